import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../src/logger.js';
import { eventually } from './support/eventually.js';
import { refuseNewSessionsWhileDraining, SHUTTING_DOWN_CODE } from '../src/http/middleware/draining.js';
import { createShutdown, type Shutdown } from '../src/http/shutdown.js';

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

interface Harness {
  base: string;
  port: number;
  server: Server;
  shutdown: Shutdown;
  slowStarted: Promise<void>;
  releaseSlow: () => void;
  streamOpened: Promise<void>;
  sessionsClosed: () => boolean;
}

const servers: Server[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** A server with the drain attached; `quietMs` defaults to 0 here so tests not about it run fast. */
async function start(drainTimeoutMs: number, { quietMs = 0 }: { quietMs?: number } = {}): Promise<Harness> {
  const shutdown = createShutdown({ logger: silentLogger, drainTimeoutMs, quietMs });
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
  app.get('/readyz', (c) => c.text(shutdown.draining ? 'draining' : 'ready', shutdown.draining ? 503 : 200));
  const openStream = () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        streams.add(controller);
        controller.enqueue(new TextEncoder().encode(': open\n\n'));
        streamOpened.resolve();
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
  app.get('/stream', openStream);
  app.post('/listen', openStream); // as a 2026-07-28 subscriptions/listen answer
  app.use('/mcp', refuseNewSessionsWhileDraining({ isDraining: () => shutdown.draining }));
  app.post('/mcp', (c) => c.json({ ok: true }));
  // As the MCP SDK answers with SSE: it names keep-alive itself.
  app.get('/keep-alive', (c) => c.text('data: x\n\n', 200, { 'content-type': 'text/event-stream', connection: 'keep-alive' }));

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
    port,
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
      expect(h.shutdown.draining).toBe(true);
      // still listening while it drains, so a new client is told to go elsewhere rather than refused a connection
      const newSession = await fetch(`${h.base}/mcp`, { method: 'POST', body: '{}' });
      expect(newSession.status).toBe(503);
      expect(await newSession.json()).toMatchObject({ error: { code: SHUTTING_DOWN_CODE } });
      // A whole request served meanwhile: the drain had every chance to move on, and did not.
      expect(finished).toBe(false); // still waiting for /slow
      expect(h.sessionsClosed()).toBe(false); // sessions outlive the requests that use them

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

    it('does not wait on an open subscriptions/listen stream either: closing the sessions ends it', async () => {
      const h = await start(60_000);
      const res = await fetch(`${h.base}/listen`, { method: 'POST', headers: { accept: 'text/event-stream', 'mcp-method': 'subscriptions/listen' }, body: '{}' });
      await h.streamOpened;
      const body = res.text();
      expect(await h.shutdown.run('SIGTERM')).toMatchObject({ drained: true, abandoned: 0 });
      expect(await body).toBe(': open\n\n');
    });

    it('cuts off a request that outlives the drain deadline and says so', async () => {
      const h = await start(200);
      const pending = fetch(`${h.base}/hang`).then(
        () => 'answered',
        () => 'cut off',
      );
      await eventually(() => h.shutdown.inFlight === 1, { what: 'the request to arrive' });
      expect(await h.shutdown.run('SIGTERM')).toMatchObject({ drained: false, abandoned: 1 });
      expect(await pending).toBe('cut off');
      expect(h.sessionsClosed()).toBe(true);
    });

    it('answers every response with Connection: close once draining, so no client reuses the connection', async () => {
      const h = await start(60_000, { quietMs: 200 });
      const before = await fetch(`${h.base}/mcp`, { method: 'POST', headers: { 'mcp-session-id': 's' }, body: '{}' });
      expect(before.headers.get('connection')).toBe('keep-alive');
      const report = h.shutdown.run('SIGTERM');
      const during = await fetch(`${h.base}/mcp`, { method: 'POST', headers: { 'mcp-session-id': 's' }, body: '{}' });
      expect(during.status).toBe(200);
      expect(during.headers.get('connection')).toBe('close');
      const sse = await fetch(`${h.base}/keep-alive`);
      expect(sse.status).toBe(200);
      expect(sse.headers.get('connection')).toBe('close');
      await sse.text();
      expect(await report).toMatchObject({ drained: true, abandoned: 0 });
    });

    // The drain reads the time from Date and waits with setTimeout: the next three tests move both
    // by hand, so what they assert about quietMs and the half-time bound holds however slow the machine.
    it('keeps listening while requests keep arriving, and closes the listener once they stop for quietMs', async () => {
      const h = await start(60_000, { quietMs: 500 });
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      const report = h.shutdown.run('SIGTERM');
      // Two seconds of traffic, a request every 400 ms: four times the quiet time, and still listening.
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${h.base}/mcp`, { method: 'POST', headers: { 'mcp-session-id': 's' }, body: '{}' });
        expect(res.status).toBe(200);
        await vi.advanceTimersByTimeAsync(400);
        expect(h.server.listening).toBe(true);
      }
      await vi.advanceTimersByTimeAsync(99);
      expect(h.server.listening).toBe(true);
      await vi.advanceTimersByTimeAsync(1);
      vi.useRealTimers();
      expect(await report).toMatchObject({ drained: true, abandoned: 0 });
      expect(h.server.listening).toBe(false);
    });

    it('does not count health probes as traffic: a load balancer polling /readyz does not hold the listener open', async () => {
      const h = await start(60_000, { quietMs: 300 });
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      const report = h.shutdown.run('SIGTERM');
      // Polled every 100 ms; once quietMs has passed the listener closes all the same.
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${h.base}/readyz`);
        expect(res.status).toBe(503);
        await vi.advanceTimersByTimeAsync(100);
      }
      vi.useRealTimers();
      expect(await report).toMatchObject({ drained: true });
      expect(h.server.listening).toBe(false);
    });

    it('closes the listener at half the drain time at the latest', async () => {
      const h = await start(1_000, { quietMs: 10_000 });
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
      const report = h.shutdown.run('SIGTERM');
      await vi.advanceTimersByTimeAsync(499);
      expect(h.server.listening).toBe(true);
      await vi.advanceTimersByTimeAsync(1);
      vi.useRealTimers();
      await report;
      expect(h.server.listening).toBe(false);
    });

    it('answers a connection accepted before the listener closed whose request arrives after, instead of resetting it', async () => {
      const h = await start(60_000, { quietMs: 0 });
      const accepted = new Promise<void>((resolve) => h.server.once('connection', () => resolve()));
      const socket = connect(h.port, '127.0.0.1');
      await accepted;
      const report = h.shutdown.run('SIGTERM');
      await eventually(() => !h.server.listening, { what: 'the listener to close' });
      let answer = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
      const closed = new Promise<string | undefined>((resolve) => {
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
        socket.on('close', () => resolve(undefined));
      });
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nMcp-Session-Id: s\r\nContent-Length: 2\r\n\r\n{}');
      expect(await closed).toBeUndefined(); // closed cleanly after the answer, not reset
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(await report).toMatchObject({ drained: true, abandoned: 0 });
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
    expect(() => createShutdown({ logger: silentLogger, drainTimeoutMs: 10_000, quietMs: -1 })).toThrow(/quietMs.*got -1/);
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
