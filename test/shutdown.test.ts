import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { refuseNewSessionsWhileDraining, SHUTTING_DOWN_CODE } from '../src/http/middleware/draining.js';
import { createShutdown, type Shutdown } from '../src/http/shutdown.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface Harness {
  base: string;
  server: Server;
  shutdown: Shutdown;
  slowStarted: Promise<void>;
  releaseSlow: () => void;
  streamOpened: Promise<void>;
  sessionsClosed: () => boolean;
}

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function start(drainTimeoutMs: number): Promise<Harness> {
  const shutdown = createShutdown({ logger: silentLogger, drainTimeoutMs });
  const slowStarted = deferred();
  const slowGate = deferred();
  const streamOpened = deferred();
  const streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let closed = false;

  const app = new Hono();
  app.get('/slow', async (c) => {
    slowStarted.resolve();
    await slowGate.promise;
    return c.text('done');
  });
  app.get('/hang', () => new Promise<Response>(() => {}));
  app.get('/stream', () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        streams.add(controller);
        controller.enqueue(new TextEncoder().encode(': open\n\n'));
        streamOpened.resolve();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  });
  app.use('/mcp', refuseNewSessionsWhileDraining({ isDraining: () => shutdown.draining }));
  app.post('/mcp', (c) => c.json({ ok: true }));

  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s as Server)) as Server;
  });
  servers.push(server);
  shutdown.attach({
    server,
    closeSessions: () => {
      closed = true;
      for (const controller of streams) controller.close();
    },
  });
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    server,
    shutdown,
    slowStarted: slowStarted.promise,
    releaseSlow: () => slowGate.resolve(),
    streamOpened: streamOpened.promise,
    sessionsClosed: () => closed,
  };
}

describe('createShutdown', () => {
  describe('run', () => {
    it('lets an in-flight request finish, then closes sessions and reports a clean drain', async () => {
      const h = await start(60_000);
      const pending = fetch(`${h.base}/slow`);
      await h.slowStarted;
      expect(h.shutdown.inFlight).toBe(1);

      let finished = false;
      const report = h.shutdown.run('SIGTERM').then((r) => ((finished = true), r));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(h.shutdown.draining).toBe(true);
      expect(finished).toBe(false); // still waiting for /slow
      expect(h.sessionsClosed()).toBe(false); // sessions outlive the requests that use them
      // still listening while it drains, so a new client is told to go elsewhere rather than refused a connection
      const newSession = await fetch(`${h.base}/mcp`, { method: 'POST', body: '{}' });
      expect(newSession.status).toBe(503);
      expect(await newSession.json()).toMatchObject({ error: { code: SHUTTING_DOWN_CODE } });

      h.releaseSlow();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('done');
      expect(await report).toMatchObject({ reason: 'SIGTERM', drained: true, abandoned: 0 });
      expect(h.sessionsClosed()).toBe(true);
      expect(h.server.listening).toBe(false);
    });

    it('does not wait on an open SSE stream: closing the sessions ends it', async () => {
      // With a one-minute deadline, a drain that waited for the stream would time the test out.
      const h = await start(60_000);
      const res = await fetch(`${h.base}/stream`, { headers: { accept: 'text/event-stream' } });
      await h.streamOpened;
      const body = res.text();
      expect(await h.shutdown.run('SIGINT')).toMatchObject({ drained: true, abandoned: 0 });
      expect(await body).toBe(': open\n\n');
    });

    it('cuts off a request that outlives the drain deadline and says so', async () => {
      const h = await start(200);
      const pending = fetch(`${h.base}/hang`).then(
        () => 'answered',
        () => 'cut off',
      );
      while (h.shutdown.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await h.shutdown.run('SIGTERM')).toMatchObject({ drained: false, abandoned: 1 });
      expect(await pending).toBe('cut off');
      expect(h.sessionsClosed()).toBe(true);
    });

    it('returns the same drain to every caller', async () => {
      const h = await start(1_000);
      const first = h.shutdown.run('SIGTERM');
      expect(h.shutdown.run('SIGINT')).toBe(first);
      expect((await first).reason).toBe('SIGTERM');
    });
  });

  it('refuses a drain timeout that is not a positive number', () => {
    expect(() => createShutdown({ logger: silentLogger, drainTimeoutMs: 0 })).toThrow(/drainTimeoutMs.*got 0/);
  });
});

describe('refuseNewSessionsWhileDraining', () => {
  it('answers a new-session POST with 503 and a JSON-RPC error while draining, and lets existing sessions through', async () => {
    let draining = false;
    const app = new Hono();
    app.use('/mcp', refuseNewSessionsWhileDraining({ isDraining: () => draining, retryAfterSeconds: 3 }));
    app.post('/mcp', (c) => c.json({ handled: true }));

    expect((await app.request('/mcp', { method: 'POST' })).status).toBe(200);
    draining = true;
    const refused = await app.request('/mcp', { method: 'POST' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: SHUTTING_DOWN_CODE, message: expect.stringMatching(/shutting down/) },
      id: null,
    });
    const existing = await app.request('/mcp', { method: 'POST', headers: { 'mcp-session-id': 'abc' } });
    expect(await existing.json()).toEqual({ handled: true });
  });

  it.each([
    ['no MCP-Protocol-Version (a 2025 initialize)', {}, 503],
    ['a 2025 MCP-Protocol-Version', { 'mcp-protocol-version': '2025-06-18' }, 503],
    ['a modern MCP-Protocol-Version (2026-07-28 opens no session)', { 'mcp-protocol-version': '2026-07-28' }, 200],
  ])('while draining, a POST without a session carrying %s is answered %i', async (_, headers: Record<string, string>, status) => {
    const app = new Hono();
    app.use('/mcp', refuseNewSessionsWhileDraining({ isDraining: () => true }));
    app.post('/mcp', (c) => c.json({ handled: true }));
    expect((await app.request('/mcp', { method: 'POST', headers })).status).toBe(status);
  });
});
