// SIGTERM and SIGINT against the real process (src/main.ts, spawned): while a request is in flight the
// server reports not ready and refuses new sessions, lets the request finish, ends the open SSE
// stream, and exits 0.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SHUTTING_DOWN_CODE } from '../src/http/middleware/draining.js';
import { cleanUpSpawnedServers, slowPost, spawnServer } from './support/spawned-server.js';
import { eventually } from './support/eventually.js';

afterEach(cleanUpSpawnedServers);

/** The JSON-RPC messages of a response that is either JSON or an SSE stream. */
function messagesOf(contentType: string, text: string): Array<Record<string, unknown>> {
  if (contentType.includes('application/json')) return [JSON.parse(text) as Record<string, unknown>];
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:') && l.slice(5).trim())
    .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
}

// Each test boots a real process (tsx compiling src/main.ts), which takes far longer than the default
// test timeout on a loaded two-core machine: the bound is on a hang, not on speed.
describe('graceful shutdown of the real process', { timeout: 120_000 }, () => {
  it('on SIGTERM finishes the in-flight request, refuses new sessions, ends the SSE stream and exits 0', async () => {
    const server = await spawnServer({ DRAIN_TIMEOUT_MS: '60000' });
    const client = new Client({ name: 'shutdown-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 } });
    await client.connect(transport);
    // The SDK client opens the standalone GET SSE stream, which stays open. It must not hold up the
    // drain: closing the session ends it, so the drain reports nothing cut off well before its
    // one-minute deadline (which would also time this test out).
    await eventually(async () => server.lines.some((l) => l.method === 'GET' && l.path === '/mcp' && l.status === 200));

    const call = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'get_document', arguments: { source: 'lighthouse.md' } } });
    const slow = slowPost(
      server.port,
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion!,
      },
      call,
    );
    await slow.sent;
    // a round trip on another connection, so the server has surely parsed the slow request's headers
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);

    server.child.kill('SIGTERM');
    await eventually(async () => (await fetch(`${server.base}/readyz`)).status === 503);
    const newSession = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'late', version: '1' } } }),
    });
    expect(newSession.status).toBe(503);
    expect(await newSession.json()).toMatchObject({ jsonrpc: '2.0', error: { code: SHUTTING_DOWN_CODE } });
    expect(server.child.exitCode).toBeNull(); // still draining: the slow request is not done

    slow.finish();
    const answer = await slow.answered;
    expect(answer.status).toBe(200);
    const result = messagesOf(answer.contentType, answer.text).find((m) => m.id === 99)?.result as
      | { isError?: boolean; structuredContent: { source: string; text: string } }
      | undefined;
    expect(result?.isError).toBeFalsy();
    expect(result?.structuredContent.source).toBe('lighthouse.md');
    expect(result?.structuredContent.text).toContain('Lighthouse operations');

    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.lines.find((l) => l.msg === 'shutdown complete')).toMatchObject({ reason: 'SIGTERM', drained: true, abandoned: 0 });
  });

  it('on SIGINT with nothing in flight exits 0 at once', async () => {
    const server = await spawnServer({ DRAIN_TIMEOUT_MS: '60000' });
    server.child.kill('SIGINT');
    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.lines.find((l) => l.msg === 'shutdown complete')).toMatchObject({ reason: 'SIGINT', drained: true });
  });

  it('cuts off a request that outlives DRAIN_TIMEOUT_MS and still exits 0', async () => {
    const server = await spawnServer({ DRAIN_TIMEOUT_MS: '300' });
    const { client, transport } = await (async () => {
      const c = new Client({ name: 'shutdown-e2e', version: '1.0.0' });
      const t = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`));
      await c.connect(t);
      return { client: c, transport: t };
    })();
    const stuck = slowPost(
      server.port,
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    );
    await stuck.sent;
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exit).toEqual({ code: 0, signal: null });
    await expect(stuck.cutOff).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(server.lines.find((l) => l.msg === 'shutdown deadline reached: open requests were cut off')).toMatchObject({
      drained: false,
      abandoned: expect.any(Number),
    });
    await client.close().catch(() => {});
  });
});
