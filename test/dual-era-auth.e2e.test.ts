// The modern era behind the same front door as the legacy one: authentication with the same 401
// challenge, the principal passed through to the handler, and the era on log lines and metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalIdForToken } from '../src/auth/static-tokens.js';
import { startProtectedServer } from './support/protected-server.js';
import type { ProtectedServer } from './support/protected-server.js';
import { parseExposition, sampleValue } from './metrics-exposition.js';
import { connectV2Client, MODERN_VERSION, modernRequest } from './support/modern-mcp.js';
import { initializeBody } from './support/raw-mcp.js';

const PUBLIC_URL = 'https://docs.example.com';
const TOKEN = 'ci-token-8e7d6c5b4a3928170f6e5d4c3b2a1908';

describe('the modern era with authentication on', () => {
  let server: ProtectedServer;
  beforeAll(async () => {
    server = await startProtectedServer({ PUBLIC_URL, AUTH_TOKENS: TOKEN });
  });
  afterAll(async () => {
    await server?.close();
  });

  const logLines = () =>
    server
      .rawLog()
      .split('\n')
      .filter((line) => line.trim())
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('answers a modern request without a token with 401 and the same bare challenge as a legacy one', async () => {
    const modern = await modernRequest(server.mcpUrl, { method: 'tools/list' });
    const legacy = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(initializeBody()) });
    expect(modern.status).toBe(401);
    // Static tokens only: a realm, no resource_metadata.
    expect(modern.headers.get('www-authenticate')).toBe('Bearer realm="corpus-mcp"');
    expect(legacy.headers.get('www-authenticate')).toBe(modern.headers.get('www-authenticate'));
  });

  it('answers a modern request with a wrong token with 401 invalid_token', async () => {
    const answer = await modernRequest(server.mcpUrl, { method: 'tools/list', headers: { authorization: 'Bearer not-the-token-at-all-0000000000000000' } });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });

  it('serves the SDK v2 client with a token in the modern era, and caches nothing publicly', async () => {
    const client = await connectV2Client(server.mcpUrl, 'auto', { authorization: `Bearer ${TOKEN}` });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
      const result = await client.callTool({ name: 'search_documents', arguments: { query: 'lighthouse' } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const listed = await modernRequest(server.mcpUrl, { method: 'tools/list', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(listed.message?.result).toMatchObject({ cacheScope: 'private' });
  });

  it('writes the era and the principal on the request line and the era on the tool-call line', async () => {
    const before = logLines().length;
    const answer = await modernRequest(server.mcpUrl, {
      method: 'tools/call',
      params: { name: 'get_chunk', arguments: { chunk_id: 'lighthouse.md#0' } },
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status).toBe(200);
    const lines = logLines().slice(before);
    const toolLine = lines.find((l) => l.msg === 'tool call');
    const requestLine = lines.find((l) => l.msg === 'request completed');
    expect(toolLine).toMatchObject({ tool: 'get_chunk', outcome: 'ok', era: 'modern', principal: principalIdForToken(TOKEN) });
    expect(requestLine).toMatchObject({ era: 'modern', status: 200, route: '/mcp' });
    expect(toolLine!.request_id).toBe(requestLine!.request_id);
    expect(server.rawLog()).not.toContain(TOKEN);
  });

  it('counts requests and tool calls by era', async () => {
    const scrape = async () => parseExposition(await (await fetch(`${server.url}/metrics`)).text());
    const before = await scrape();
    await modernRequest(server.mcpUrl, { method: 'tools/call', params: { name: 'list_documents', arguments: {} }, headers: { authorization: `Bearer ${TOKEN}` } });
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => (sampleValue(after, name, labels) ?? 0) - (sampleValue(before, name, labels) ?? 0);
    expect(delta('corpus_mcp_requests_total', { era: 'modern' })).toBe(1);
    expect(delta('corpus_mcp_requests_total', { era: 'legacy' })).toBe(0);
    expect(delta('corpus_mcp_tool_calls_total', { tool: 'list_documents', outcome: 'ok', era: 'modern' })).toBe(1);
  });
});
