// The logs of a real server under real clients: JSON lines, a request id on every line of a request
// (including the tool-call line written deep in the MCP layer), principal and session where known,
// the query only with LOG_QUERIES=true, and never a token — not even a wrong one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { principalIdForToken } from '../src/auth/static-tokens.js';
import { sessionLogId } from '../src/logger.js';
import { startOpsServer } from './metrics-server.js';
import type { OpsServer } from './metrics-server.js';

const TOKEN = 'e2e-log-token-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const WRONG = 'e2e-wrong-token-00000000000000000000000000000';
const QUERY = 'barometer flags storm warnings';

describe('request logs over a real server', () => {
  let server: OpsServer;
  beforeAll(async () => {
    server = await startOpsServer({ tokens: [TOKEN] });
  });
  afterAll(async () => {
    await server.close();
  });

  it('puts the request id, principal and session on the tool-call line, with duration and outcome', async () => {
    const { client, transport } = await server.connect({ authorization: `Bearer ${TOKEN}`, 'x-request-id': 'e2e-trace-1' });
    await client.callTool({ name: 'search_documents', arguments: { query: QUERY } });
    await client.callTool({ name: 'get_chunk', arguments: { chunk_id: 'lighthouse.md#999' } });
    await client.close();

    const calls = server.lines().filter((l) => l.msg === 'tool call' && l.request_id === 'e2e-trace-1');
    expect(calls.map((l) => [l.tool, l.outcome])).toEqual([
      ['search_documents', 'ok'],
      ['get_chunk', 'tool_error'],
    ]);
    for (const line of calls) {
      expect(line).toMatchObject({ principal: principalIdForToken(TOKEN), session_id: sessionLogId(transport.sessionId!) });
      expect(line.duration_ms).toEqual(expect.any(Number));
    }
  });

  it('writes one completion line per request, each with its own request id echoed to the client', async () => {
    const before = server.lines().length;
    const responses = await Promise.all([fetch(`${server.url}/readyz`), fetch(`${server.url}/healthz`)]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    expect(new Set(ids).size).toBe(2);
    const done = server.lines().slice(before).filter((l) => l.msg === 'request completed');
    expect(done.map((l) => l.request_id).sort()).toEqual([...ids].sort());
    expect(done.map((l) => l.route).sort()).toEqual(['/healthz', '/readyz']);
  });

  it('gives every line written during a request that request id', async () => {
    const before = server.lines().length;
    const { client } = await server.connect({ authorization: `Bearer ${TOKEN}`, 'x-request-id': 'e2e-trace-2' });
    await client.listTools();
    await client.close();
    const during = server.lines().slice(before).filter((l) => l.msg !== 'request completed' || l.request_id === 'e2e-trace-2');
    expect(during.length).toBeGreaterThan(0);
    for (const line of during) {
      // lines outside any request (session timers, boot) are the only ones allowed without it
      if (line.request_id !== undefined) expect(line.request_id).toBe('e2e-trace-2');
    }
    expect(during.filter((l) => l.msg === 'request completed').length).toBeGreaterThanOrEqual(2);
  });

  it('does not log the query text when LOG_QUERIES is off', async () => {
    expect(server.rawLog()).toContain('"tool":"search_documents"');
    expect(server.rawLog()).not.toContain(QUERY);
  });

  it('never logs a token, valid or not, and logs the refusal', async () => {
    const refused = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${WRONG}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(refused.status).toBe(401);
    const id = refused.headers.get('x-request-id');
    expect(server.lines().find((l) => l.request_id === id && l.msg === 'request completed')).toMatchObject({ status: 401 });
    expect(server.rawLog()).not.toContain(TOKEN);
    expect(server.rawLog()).not.toContain(WRONG);
  });
});

describe('LOG_QUERIES=true', () => {
  it('adds the query text to the search tool-call line', async () => {
    const server = await startOpsServer({ logQueries: true });
    try {
      const { client } = await server.connect({ 'x-request-id': 'e2e-query' });
      await client.callTool({ name: 'search_documents', arguments: { query: QUERY } });
      await client.close();
      expect(server.lines().find((l) => l.msg === 'tool call' && l.request_id === 'e2e-query')).toMatchObject({ query: QUERY });
    } finally {
      await server.close();
    }
  });
});
