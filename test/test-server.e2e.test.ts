import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLE_SOURCES } from './support/sample-corpus.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';

describe('startTestServer', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  it('with no arguments serves the sample corpus', async () => {
    server = await startTestServer();
    const { client } = await connectClient(server.mcpUrl);
    const result = await client.callTool({ name: 'list_documents', arguments: {} });
    const listed = (result.structuredContent as { documents: Array<{ source: string }> }).documents.map((d) => d.source);
    expect(listed).toEqual(SAMPLE_SOURCES);
    await client.close();
  });
});
