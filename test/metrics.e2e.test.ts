// The metrics move as real clients call tools, fail, open and end sessions, and get refused — read
// back from GET /metrics of a real listening server and compared as exact series.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleValue, samplesNamed } from './metrics-exposition.js';
import type { Sample } from './metrics-exposition.js';
import { startOpsServer } from './metrics-server.js';
import type { OpsServer } from './metrics-server.js';
import { SAMPLE_SOURCES } from './support/sample-corpus.js';
import { eventually } from './support/eventually.js';

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels) ?? 0;
const TOKEN = 'e2e-static-token-0123456789abcdef0123456789';

describe('metrics over a real server', () => {
  let server: OpsServer;
  const cleanups: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    server = await startOpsServer({ maxSessions: 2 });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => {});
  });
  afterAll(async () => {
    await server.close();
  });

  const connect = async () => {
    const connection = await server.connect();
    cleanups.push(() => connection.client.close());
    return connection;
  };

  it('reports the index size once it is built', async () => {
    const samples = await server.scrape();
    expect(value(samples, 'corpus_mcp_index_documents')).toBe(SAMPLE_SOURCES.length);
    expect(value(samples, 'corpus_mcp_index_chunks')).toBeGreaterThan(SAMPLE_SOURCES.length);
    expect(value(samples, 'corpus_mcp_index_terms')).toBeGreaterThan(0);
    expect(value(samples, 'corpus_mcp_index_ready')).toBe(1);
  });

  it('counts tool calls by tool and outcome, with their latency and search result counts', async () => {
    const { client } = await connect();
    const before = await server.scrape();

    const ok = await client.callTool({ name: 'search_documents', arguments: { query: 'lighthouse keeper weather', top_k: 3 } });
    const hits = (ok.structuredContent as { results: unknown[] }).results.length;
    expect(hits).toBeGreaterThan(0);
    expect((await client.callTool({ name: 'search_documents', arguments: { query: '   ' } })).isError).toBe(true);
    expect((await client.callTool({ name: 'get_chunk', arguments: { chunk_id: 'lighthouse.md#999' } })).isError).toBe(true);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow();

    const after = await server.scrape();
    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);
    expect(delta('corpus_mcp_tool_calls_total', { tool: 'search_documents', outcome: 'ok', era: 'legacy' })).toBe(1);
    expect(delta('corpus_mcp_tool_calls_total', { tool: 'search_documents', outcome: 'tool_error', era: 'legacy' })).toBe(1);
    expect(delta('corpus_mcp_tool_calls_total', { tool: 'get_chunk', outcome: 'tool_error', era: 'legacy' })).toBe(1);
    expect(delta('corpus_mcp_tool_calls_total', { tool: 'unknown', outcome: 'protocol_error', era: 'legacy' })).toBe(1);
    expect(delta('corpus_mcp_tool_call_duration_seconds_count', { tool: 'search_documents', outcome: 'ok', era: 'legacy' })).toBe(1);
    expect(delta('corpus_mcp_search_results_count')).toBe(1); // failed searches return no result list
    expect(delta('corpus_mcp_search_results_sum')).toBe(hits);
    // no label anywhere carries what the client sent
    for (const s of after) expect(Object.values(s.labels).join(' ')).not.toMatch(/no_such_tool|lighthouse/);
  });

  it('tracks sessions as clients open them and end them with DELETE', async () => {
    const before = await server.scrape();
    const { transport } = await connect();
    const opened = await server.scrape();
    expect(value(opened, 'corpus_mcp_sessions_created_total') - value(before, 'corpus_mcp_sessions_created_total')).toBe(1);
    expect(value(opened, 'corpus_mcp_sessions_active')).toBe(server.app.sessions.size);
    expect(value(opened, 'corpus_mcp_sessions_active')).toBeGreaterThanOrEqual(1);

    await transport.terminateSession();
    const ended = await server.scrape();
    expect(value(ended, 'corpus_mcp_sessions_ended_total', { reason: 'deleted' }) - value(before, 'corpus_mcp_sessions_ended_total', { reason: 'deleted' })).toBe(1);
    expect(value(ended, 'corpus_mcp_sessions_active')).toBe(value(opened, 'corpus_mcp_sessions_active') - 1);
  });

  it('counts sessions evicted by the MAX_SESSIONS cap', async () => {
    const before = await server.scrape();
    for (let i = 0; i < 3; i++) await connect(); // cap is 2
    const after = await server.scrape();
    expect(value(after, 'corpus_mcp_sessions_ended_total', { reason: 'evicted' }) - value(before, 'corpus_mcp_sessions_ended_total', { reason: 'evicted' })).toBeGreaterThanOrEqual(1);
    expect(value(after, 'corpus_mcp_sessions_active')).toBe(2);
  });

  it('counts HTTP requests by route pattern, method and status, never by raw path or session id', async () => {
    const before = await server.scrape();
    const unknownSession = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session-4711' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(unknownSession.status).toBe(404);
    expect((await fetch(`${server.url}/wp-admin/setup-config.php`)).status).toBe(404);
    await fetch(`${server.url}/`);

    const after = await server.scrape();
    const delta = (labels: Record<string, string>) =>
      value(after, 'corpus_mcp_http_requests_total', labels) - value(before, 'corpus_mcp_http_requests_total', labels);
    expect(delta({ route: '/mcp', method: 'POST', status: '404' })).toBe(1);
    expect(delta({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(delta({ route: '/', method: 'GET', status: '200' })).toBe(1);
    expect(value(after, 'corpus_mcp_http_requests_total', { route: '/metrics', method: 'GET', status: '200' })).toBeGreaterThan(0);
    const routes = new Set(samplesNamed(after, 'corpus_mcp_http_requests_total').map((s) => s.labels.route));
    expect([...routes].sort()).toEqual([...routes].filter((r) => ['/', '/mcp', '/metrics', '/healthz', '/readyz', 'unmatched'].includes(r!)).sort());
    expect(JSON.stringify(after)).not.toMatch(/wp-admin|no-such-session-4711/);
  });

  it('exposes process and runtime metrics', async () => {
    const samples = await server.scrape();
    expect(value(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samplesNamed(samples, 'nodejs_eventloop_lag_seconds')).toHaveLength(1);
  });
});

describe('metrics of auth refusals and idle expiry', () => {
  it('counts requests refused for a missing or invalid token, by reason', async () => {
    const server = await startOpsServer({ tokens: [TOKEN] });
    try {
      const post = (headers: Record<string, string>) =>
        fetch(server.mcpUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body: '{}',
        });
      expect((await post({})).status).toBe(401);
      expect((await post({ authorization: 'Bearer wrong-token-wrong-token-wrong-token-00' })).status).toBe(401);
      expect((await post({ authorization: 'Bearer wrong-token-wrong-token-wrong-token-00' })).status).toBe(401);
      const { client } = await server.connect({ authorization: `Bearer ${TOKEN}` });
      await client.close();

      const samples = await server.scrape();
      expect(value(samples, 'corpus_mcp_auth_failures_total', { reason: 'missing_token' })).toBe(1);
      expect(value(samples, 'corpus_mcp_auth_failures_total', { reason: 'invalid_token' })).toBe(2);
      expect(value(samples, 'corpus_mcp_http_requests_total', { route: '/mcp', method: 'POST', status: '401' })).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('guards /metrics with METRICS_TOKEN when set, and counts scrapes refused for lacking it', async () => {
    const metricsToken = 'e2e-metrics-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const server = await startOpsServer({ tokens: [TOKEN], metricsToken });
    try {
      expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
      // an MCP token is not a metrics token
      expect((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(401);
      const samples = await server.scrape({ authorization: `Bearer ${metricsToken}` });
      expect(value(samples, 'corpus_mcp_auth_failures_total', { reason: 'metrics_token' })).toBe(2);
      expect(value(samples, 'corpus_mcp_http_requests_total', { route: '/metrics', method: 'GET', status: '401' })).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('counts a request on another principal\'s session as session_principal_mismatch', async () => {
    const other = 'e2e-other-token-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    const server = await startOpsServer({ tokens: [TOKEN, other] });
    try {
      const { client, transport } = await server.connect({ authorization: `Bearer ${TOKEN}` });
      const hijack = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${other}`,
          'mcp-session-id': transport.sessionId!,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
      });
      expect(hijack.status).toBe(404);
      await client.close();
      expect(value(await server.scrape(), 'corpus_mcp_auth_failures_total', { reason: 'session_principal_mismatch' })).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('counts a session closed for idleness as expired', async () => {
    const server = await startOpsServer({ sessionIdleTtlMs: 300 });
    try {
      await server.connect();
      await eventually(async () => value(await server.scrape(), 'corpus_mcp_sessions_ended_total', { reason: 'expired' }) === 1);
      expect(value(await server.scrape(), 'corpus_mcp_sessions_active')).toBe(0);
    } finally {
      await server.close();
    }
  });
});
