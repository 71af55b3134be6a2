// Two real processes behind a round-robin proxy with no affinity: a 2026-07-28 client holds no
// session, so each request may go to either process and nothing is lost when one restarts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { parseExposition, sampleValue } from './metrics-exposition.js';
import { connectV2Client, envelope, MODERN_VERSION } from './support/modern-mcp.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';
import type { RoundRobinProxy } from './support/round-robin-proxy.js';
import { cleanUpSpawnedServers, slowPost, spawnServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';
import { startSteadyCalls } from './support/steady-calls.js';
import { eventually } from './support/eventually.js';

const ENV = { DRAIN_TIMEOUT_MS: '5000' };

describe('modern clients across two replicas', () => {
  let replicas: SpawnedServer[];
  let proxy: RoundRobinProxy;
  let client: Client;

  beforeAll(async () => {
    replicas = await Promise.all([spawnServer(ENV), spawnServer(ENV)]);
    proxy = await startRoundRobinProxy(replicas.map((r) => ({ host: '127.0.0.1', port: r.port })));
    client = await connectV2Client(new URL(`${proxy.url}/mcp`), 'auto');
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await proxy?.close();
    await cleanUpSpawnedServers();
  });

  /** One search through the proxy; returns the top chunk id, or throws. */
  const search = async (): Promise<string> => {
    const result = await client.callTool({ name: 'search_documents', arguments: { query: 'lighthouse keeper weather', top_k: 1 } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return (result.structuredContent as { results: Array<{ chunk_id: string }> }).results[0]!.chunk_id;
  };

  const toolCallsOf = (replica: SpawnedServer) => replica.lines.filter((l) => l.msg === 'tool call' && l.era === 'modern').length;

  it('negotiates the modern era through the proxy', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
  });

  it('alternates calls between the processes with the same answers, and neither holds a session', async () => {
    const first = proxy.log.length;
    const before = replicas.map(toolCallsOf);
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await search());
    expect(new Set(answers).size).toBe(1);
    const backends = proxy.log.slice(first).map((entry) => entry.backend);
    expect(backends).toEqual(backends.map((_, i) => (backends[0]! + i) % 2));
    expect(replicas.map((r, i) => toolCallsOf(r) - before[i]!)).toEqual([5, 5]);
    for (const replica of replicas) {
      const samples = parseExposition(await (await fetch(`${replica.base}/metrics`)).text());
      expect(sampleValue(samples, 'corpus_mcp_sessions_active')).toBe(0);
    }
    expect(proxy.log.slice(first).every((entry) => entry.status === 200)).toBe(true);
  });

  it.each([0, 1])('keeps answering with zero failures while process %i restarts', async (index) => {
    const load = startSteadyCalls(search);
    const old = replicas[index]!;
    const other = proxy.backends[1 - index]!;
    // A request held in flight keeps the old process draining (still listening) for a while, so
    // calls reach it while it drains as well as after it has gone.
    const held = slowPost(
      old.port,
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } }),
    );
    await held.sent;
    expect((await fetch(`${old.base}/healthz`)).status).toBe(200);
    const servedByOld = toolCallsOf(old);
    old.child.kill('SIGTERM');
    await eventually(async () => (await fetch(`${old.base}/readyz`)).status === 503, { timeoutMs: 5_000 });
    await eventually(() => toolCallsOf(old) > servedByOld, { what: 'a modern call served by the draining process' });
    const servedWhileDraining = toolCallsOf(old) - servedByOld;
    // What a load balancer does once /readyz answers 503: it stops routing there before the listener
    // closes. (Without it, a connection accepted in the instant the listener closes is reset; no
    // server can answer a request it has not yet read.)
    proxy.backends[index] = other;
    // The call already on its way there (one caller: at most one) arrives and is served.
    const callsAtReroute = load.calls;
    await eventually(() => load.calls > callsAtReroute, { what: 'the call in flight at the re-route' });
    held.finish();
    expect((await held.answered).status).toBe(200);
    expect(await old.exit).toEqual({ code: 0, signal: null });
    const callsAtExit = load.calls;
    await eventually(() => load.calls > callsAtExit, { what: 'a call answered while the process is down' });
    const callsWhileDown = load.calls - callsAtExit;
    const fresh = await spawnServer(ENV);
    replicas[index] = fresh;
    proxy.backends[index] = { host: '127.0.0.1', port: fresh.port };
    const servedBefore = toolCallsOf(fresh);
    await eventually(() => toolCallsOf(fresh) > servedBefore, { what: 'a call served by the restarted process' });
    await load.stop();
    expect(load.failures).toEqual([]);
    expect(servedWhileDraining).toBeGreaterThan(0); // the draining process still answered modern calls
    expect(callsWhileDown).toBeGreaterThan(0); // the other process carried on alone
    expect(toolCallsOf(fresh)).toBeGreaterThan(servedBefore); // the restarted process is back in rotation
  }, 60_000);
});
