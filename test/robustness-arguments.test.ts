// Hostile tool arguments over a real socket with the SDK client, one of each kind: a bad argument (a
// tool error), a path out of the corpus (a tool error, nothing served), an unknown tool (a JSON-RPC
// error). Every variant of each (types, ranges, scripts, encodings, ids) is in src/mcp/mcp-service.test.ts,
// called through the MCP service without a socket.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { CANARY, checkedToolCalls } from './robustness-support.js';


const FILES: Record<string, string> = {
  'guide.md': '# Guide\n\nSessions expire after an idle timeout. Tokens are checked on every request.\n',
  '.hidden.md': `# Hidden\n\n${CANARY}\n`,
  'secret.env': `TOKEN=${CANARY}\n`,
};

describe('robustness: hostile tool arguments', () => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer({ files: FILES });
    await writeFile(join(server.workDir, 'secret.txt'), `${CANARY}\n`);
    ({ client } = await connectClient(server.mcpUrl));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const { ok, refused } = checkedToolCalls(async (name, args) => (await client.callTool({ name, arguments: args })) as CallToolResult);

  it('refuses a bad argument with a tool error naming the argument and its value', async () => {
    expect(await refused('search_documents', { query: 42 })).toMatch(/query=42/);
  });

  it('refuses a path that leaves the corpus, pointing to list_documents', async () => {
    const message = await refused('get_document', { source: '../secret.txt' });
    expect(message).toMatch(/is not a document in the index/);
    expect(message).toMatch(/list_documents/);
  });

  describe('tools/call itself', () => {
    it('answers an unknown tool with a JSON-RPC invalid-params error listing the tools', async () => {
      const error = await client.callTool({ name: 'read_file', arguments: {} }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32602);
      expect((error as McpError).message).toMatch(/search_documents, get_chunk, get_document, list_documents/);
    });

    it('still answers a correct call after all of the above', async () => {
      const result = await ok('search_documents', { query: 'idle timeout' });
      expect((result.results as Array<{ source: string }>)[0]?.source).toBe('guide.md');
    });
  });
});
