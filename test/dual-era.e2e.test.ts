// End-to-end: one /mcp, two protocol eras, on a real socket. The SDK v2 client (2026-07-28) and the
// 1.x client (2025 sessions) talk to the same server and must get the same answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client as V2Client } from '@modelcontextprotocol/client';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { SAMPLE_FILES, SAMPLE_SOURCES } from './support/sample-corpus.js';
import { connectV2Client, MODERN_VERSION, modernRequest } from './support/modern-mcp.js';

type Structured = Record<string, unknown>;

/** Every tool with arguments that succeed on the sample corpus. */
const CALLS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['search_documents', { query: 'lighthouse keeper weather', top_k: 3 }],
  ['search_documents', { query: 'sourdough starter', path_prefix: 'guides/' }],
  ['get_chunk', { chunk_id: 'lighthouse.md#1' }],
  ['get_document', { source: 'guides/baking.md' }],
  ['get_document', { source: 'lighthouse.md', offset: 100, max_chars: 500 }],
  ['list_documents', {}],
];

async function structured(client: V1Client | V2Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Structured; content: unknown[] };
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent!;
}

describe('dual-era /mcp', () => {
  let server: TestServer;
  let modern: V2Client;
  let legacy: V1Client;

  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES });
    modern = await connectV2Client(server.mcpUrl, 'auto');
    ({ client: legacy } = await connectClient(server.mcpUrl));
  });
  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    await server?.close();
  });

  describe('the SDK v2 client in auto mode', () => {
    it('lands on the modern era (2026-07-28) and holds no session', () => {
      expect(modern.getProtocolEra()).toBe('modern');
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
      expect(server.app.sessions.size).toBe(1); // the legacy client's only
    });

    it.each(CALLS)('calls %s and gets structured content', async (name, args) => {
      const out = await structured(modern, name, args);
      expect(Object.keys(out).length).toBeGreaterThan(0);
    });
  });

  describe('the 1.x client', () => {
    it('still speaks the legacy era, on a session', () => {
      expect(legacy.getServerVersion()?.name).toBe('corpus-mcp');
      expect(server.app.sessions.size).toBe(1);
    });
  });

  describe('both eras', () => {
    it.each(CALLS)('answer %s with the same structuredContent', async (name, args) => {
      expect(await structured(modern, name, args)).toEqual(await structured(legacy, name, args));
    });

    it('list the same resources and read the same text', async () => {
      const [m, l] = await Promise.all([modern.listResources(), legacy.listResources()]);
      expect(m.resources).toEqual(l.resources);
      expect(m.resources.map((r) => r.name)).toEqual(SAMPLE_SOURCES);
      const uri = m.resources[0]!.uri;
      expect((await modern.readResource({ uri })).contents).toEqual((await legacy.readResource({ uri })).contents);
    });
  });

  describe('modern resources', () => {
    it('answers an unknown resource with -32602 (2026-07-28), where the legacy era answers -32002', async () => {
      const answer = await modernRequest(server.mcpUrl, { method: 'resources/read', params: { uri: 'corpus:///nope.md' } });
      expect(answer.message?.error?.code).toBe(-32602);
      expect(answer.message?.error?.message).toMatch(/Resource not found: "corpus:\/\/\/nope\.md"/);
      await expect(legacy.readResource({ uri: 'corpus:///nope.md' })).rejects.toMatchObject({ code: -32002 });
    });
  });
});
