// Two replicas of the real process behind a round-robin proxy on loopback (a new upstream connection
// per request, a refusing backend skipped), and one MCP SDK client session making a steady stream of
// tool calls while replica A is stopped with SIGTERM and restarted, then replica B. With a shared
// SESSION_SECRET no call fails and the client keeps its Mcp-Session-Id; without one (the negative
// control) calls fail, which shows the test can see the problem. The same with MCP_SESSIONS=off.
// Stopping comes two ways: the test takes the replica out of rotation before SIGTERM (as a preStop pause
// does), or it sends SIGTERM at once to a replica still in rotation and the proxy, which health-checks
// /readyz like Fly's proxy or a Kubernetes Service, steers away on its own while the replica keeps
// answering until the traffic has gone.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eventually } from './support/eventually.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';
import type { RoundRobinProxy } from './support/round-robin-proxy.js';
import { writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer, stopServer as stop } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';
import { startSteadyCalls } from './support/steady-calls.js';

const SECRET = 'replica-test-session-secret-0123456789abcdef';
const LOOPBACK = '127.0.0.1';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await cleanUpSpawnedServers();
});

interface RunResult {
  calls: number;
  failures: string[];
  /** Every Mcp-Session-Id the client held during the run. */
  sessionIds: Set<string | undefined>;
  /** Tool calls answered by each slot before, between and after the restarts. */
  servedBySlot: number[];
  /** Tool calls answered by the restarted processes (slot 0 after A's restart, slot 1 after B's). */
  servedByRestarted: number[];
  /** Requests the proxy sent elsewhere because a stopped replica refused the connection. */
  skipped: number;
  /** Tool calls a replica answered between its SIGTERM and its exit. */
  servedWhileDraining: number;
}

/**
 * How a replica is stopped: `rotation` takes it out of the proxy's rotation 100 ms before SIGTERM;
 * `sigterm` sends SIGTERM to a replica still in rotation, with a proxy that checks /readyz every 200 ms.
 */
type StopWith = 'rotation' | 'sigterm';

/**
 * Two replicas (each with `envOf(slot)`) behind the proxy; one client calls search_documents in a loop
 * while A, then B, is stopped with SIGTERM and restarted (and put back in rotation once ready).
 */
async function rollingRestart(envOf: (slot: number) => Record<string, string>, stopWith: StopWith = 'rotation'): Promise<RunResult> {
  const corpusDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-replicas-'));
  cleanups.push(() => rm(corpusDir, { recursive: true, force: true }));
  await writeCorpusFiles(corpusDir);
  const start = async (slot: number) => {
    return spawnServer({ DRAIN_TIMEOUT_MS: '5000', ...envOf(slot) }, { corpusDir });
  };
  const replicas: SpawnedServer[] = [await start(0), await start(1)];
  const proxy: RoundRobinProxy = await startRoundRobinProxy(
    replicas.map((r) => ({ host: LOOPBACK, port: r.port })),
    stopWith === 'sigterm' ? { readiness: { path: '/readyz', intervalMs: 200 } } : {},
  );
  cleanups.push(() => proxy.close());

  const client = new Client({ name: 'replica-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
    // The standalone GET stream ends when its replica stops; it is not what this test measures.
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
  });
  client.onerror = () => {};
  const result: RunResult = { calls: 0, failures: [], sessionIds: new Set(), servedBySlot: [0, 0], servedByRestarted: [0, 0], skipped: 0, servedWhileDraining: 0 };
  try {
    // initialize and notifications/initialized already go to different replicas.
    await client.connect(transport);
  } catch (error) {
    result.failures.push(`connect: ${String(error)}`);
    return result;
  }
  cleanups.push(() => client.close().catch(() => {}));
  result.sessionIds.add(transport.sessionId);
  const restarted = [false, false];
  // Two callers on the one session, so calls are in flight while a replica drains.
  const stream = startSteadyCalls(
    async () => {
      const before = proxy.log.length;
      try {
        const answer = await client.callTool({ name: 'search_documents', arguments: { query: 'lighthouse keeper' } });
        if (answer.isError) throw new Error(`tool error: ${JSON.stringify(answer.content)}`);
        if (!JSON.stringify(answer.content).includes('lighthouse.md')) throw new Error('answer without the expected hit');
      } finally {
        result.sessionIds.add(transport.sessionId);
        // The tool call's POST is the first POST logged after it started.
        const entry = proxy.log.slice(before).find((e) => e.method === 'POST' && e.status === 200);
        if (entry !== undefined && entry.backend >= 0) {
          result.servedBySlot[entry.backend]! += 1;
          if (restarted[entry.backend]) result.servedByRestarted[entry.backend]! += 1;
        }
      }
    },
    { callers: 2 },
  );
  // Both replicas take calls (or, in the negative control, calls fail) before the first stop.
  await eventually(() => (result.servedBySlot[0]! > 0 && result.servedBySlot[1]! > 0) || stream.failures.length > 0, { what: 'both replicas to answer calls', timeoutMs: 30_000 });
  for (const slot of [0, 1]) {
    const old = replicas[slot]!;
    // `rotation`: as an orchestrator does with a preStop pause, the balancer stops sending the
    // replica new requests and SIGTERM follows a moment later. `sigterm`: no pause; the replica's
    // /readyz turns 503 and it keeps listening until requests stop arriving, so none reaches its
    // listening socket in the instant it closes (which would reset it: a TCP race no retry can undo).
    if (stopWith === 'rotation') {
      proxy.setOutOfRotation(slot, true);
      // SIGTERM once the balancer has visibly steered a request elsewhere.
      const steered = proxy.log.length;
      await eventually(() => proxy.log.slice(steered).some((e) => e.backend === 1 - slot), { what: 'a request sent to the other replica', timeoutMs: 30_000 });
    }
    const signalled = proxy.log.length;
    const stopped = await stop(old);
    expect(stopped.code).toBe(0);
    result.servedWhileDraining += proxy.log.slice(signalled).filter((e) => e.backend === slot && e.method === 'POST').length;
    if (stopWith === 'rotation') {
      // Back in rotation while it is down: the balancer meets a refused connection and skips it.
      const refusals = proxy.refusals;
      proxy.setOutOfRotation(slot, false);
      await eventually(() => proxy.refusals > refusals || stream.failures.length > 0, { what: 'the balancer to meet the stopped replica', timeoutMs: 30_000 });
    }
    const fresh = await start(slot);
    replicas[slot] = fresh;
    proxy.backends[slot] = { host: LOOPBACK, port: fresh.port };
    restarted[slot] = true;
    // The health-checking proxy sends it nothing until its next check finds it ready.
    if (stopWith === 'sigterm') await eventually(() => !proxy.unready.has(slot), { what: 'the proxy to find the new replica ready', timeoutMs: 30_000 });
    // The restarted replica answers calls (or, in the negative control, calls fail) before the next stop.
    await eventually(() => result.servedByRestarted[slot]! > 0 || stream.failures.length > 0, { what: `the restarted replica ${slot} to answer a call`, timeoutMs: 30_000 });
  }
  // Enough calls in all to show the stream went on throughout (the tests ask for more than 20).
  await eventually(() => stream.calls > 20 || stream.failures.length > 0, { what: 'more than 20 calls', timeoutMs: 30_000 });
  await stream.stop();
  result.calls = stream.calls;
  result.failures.push(...stream.failures);
  result.skipped = proxy.refusals;
  return result;
}

describe('two replicas behind a round-robin proxy, restarted one after the other', { timeout: 300_000 }, () => {
  it('with a shared SESSION_SECRET: zero failed calls, one unchanged Mcp-Session-Id, both replicas (and both restarted ones) served', async () => {
    const run = await rollingRestart(() => ({ SESSION_SECRET: SECRET }));
    expect(run.failures).toEqual([]);
    expect(run.calls).toBeGreaterThan(20);
    expect(run.sessionIds.size).toBe(1);
    expect([...run.sessionIds][0]).toEqual(expect.any(String));
    expect(run.servedBySlot[0]).toBeGreaterThan(0);
    expect(run.servedBySlot[1]).toBeGreaterThan(0);
    expect(run.servedByRestarted[0]).toBeGreaterThan(0);
    expect(run.servedByRestarted[1]).toBeGreaterThan(0);
    expect(run.skipped).toBeGreaterThan(0);
  });

  it('stopped with SIGTERM while still in rotation (the proxy health-checks /readyz): zero failed calls, one unchanged Mcp-Session-Id, calls answered while draining', async () => {
    const run = await rollingRestart(() => ({ SESSION_SECRET: SECRET }), 'sigterm');
    expect(run.failures).toEqual([]);
    expect(run.calls).toBeGreaterThan(20);
    expect(run.sessionIds.size).toBe(1);
    expect(run.servedByRestarted[0]).toBeGreaterThan(0);
    expect(run.servedByRestarted[1]).toBeGreaterThan(0);
    // Requests reached each replica after its SIGTERM, before the proxy saw /readyz fail: the race
    // this run is about happened, and every one of them was answered.
    expect(run.servedWhileDraining).toBeGreaterThan(0);
  });

  it('negative control: without a shared SESSION_SECRET the same run fails calls', async () => {
    const run = await rollingRestart(() => ({}));
    expect(run.failures.length).toBeGreaterThan(0);
    expect(run.failures.join('\n')).toMatch(/404|Session not found/);
  });

  it('with MCP_SESSIONS=off: zero failed calls, no session id at all, both replicas served', async () => {
    const run = await rollingRestart(() => ({ MCP_SESSIONS: 'off' }));
    expect(run.failures).toEqual([]);
    expect(run.calls).toBeGreaterThan(20);
    expect([...run.sessionIds]).toEqual([undefined]);
    expect(run.servedBySlot[0]).toBeGreaterThan(0);
    expect(run.servedBySlot[1]).toBeGreaterThan(0);
    expect(run.servedByRestarted[0]).toBeGreaterThan(0);
    expect(run.servedByRestarted[1]).toBeGreaterThan(0);
  });
});
