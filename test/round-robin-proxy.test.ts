// The test proxy the replica tests stand on: if it reused connections, pinned a client to one backend
// or buffered streams, those tests could pass for the wrong reason.
import { createServer } from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';
import type { RoundRobinProxy } from './support/round-robin-proxy.js';

interface Upstream {
  server: Server;
  port: number;
  connections: number;
  /** Responses whose client went away before they ended. */
  abandoned: number;
  open: Set<ServerResponse>;
  /** What GET /readyz answers: 200 when true, 503 when false. */
  ready: boolean;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upstream(name: string): Promise<Upstream> {
  const state: Upstream = { server: undefined as unknown as Server, port: 0, connections: 0, abandoned: 0, open: new Set(), ready: true };
  state.server = createServer((req, res) => {
    if (req.url === '/readyz') return void res.writeHead(state.ready ? 200 : 503).end();
    if (req.url === '/sse') {
      state.open.add(res);
      res.on('close', () => {
        if (!res.writableEnded) state.abandoned += 1;
        state.open.delete(res);
      });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${name} first\n\n`);
      return; // the rest comes when the test says
    }
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'x-backend': name }).end(JSON.stringify({ name, body, host: req.headers.host })));
  });
  state.server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.port = (state.server.address() as AddressInfo).port;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        state.server.close(() => resolve());
        state.server.closeAllConnections();
      }),
  );
  return state;
}

async function proxyFor(...ups: Upstream[]): Promise<RoundRobinProxy> {
  const proxy = await startRoundRobinProxy(ups.map((u) => ({ host: '127.0.0.1', port: u.port })));
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A free loopback port nobody listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('startRoundRobinProxy', () => {
  it('sends requests to each backend in turn and passes the body through', async () => {
    const a = await upstream('a');
    const b = await upstream('b');
    const proxy = await proxyFor(a, b);
    const names: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await fetch(`${proxy.url}/echo`, { method: 'POST', body: `hello ${i}` });
      const json = (await response.json()) as { name: string; body: string };
      expect(json.body).toBe(`hello ${i}`);
      names.push(json.name);
    }
    expect(names).toEqual(['a', 'b', 'a', 'b']);
    expect(proxy.served).toEqual([2, 2]);
    expect(proxy.log.map((r) => r.backend)).toEqual([0, 1, 0, 1]);
  });

  it('opens a new upstream connection for every request even when the client keeps its connection alive', async () => {
    const a = await upstream('a');
    const proxy = await proxyFor(a);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanups.push(async () => agent.destroy());
    let clientSockets = 0;
    for (let i = 0; i < 5; i += 1) {
      await new Promise<void>((resolve, reject) => {
        const req = request(`${proxy.url}/x`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve());
        });
        req.on('socket', (socket) => {
          if (!(socket as unknown as { counted?: boolean }).counted) {
            (socket as unknown as { counted?: boolean }).counted = true;
            clientSockets += 1;
          }
        });
        req.on('error', reject);
        req.end();
      });
    }
    expect(clientSockets).toBe(1);
    expect(a.connections).toBe(5);
  });

  it('skips a backend that refuses connections and keeps serving from the others', async () => {
    const a = await upstream('a');
    const proxy = await startRoundRobinProxy([
      { host: '127.0.0.1', port: await deadPort() },
      { host: '127.0.0.1', port: a.port },
    ]);
    cleanups.push(() => proxy.close());
    for (let i = 0; i < 4; i += 1) {
      const response = await fetch(`${proxy.url}/echo`, { method: 'POST', body: 'x' });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { name: string }).name).toBe('a');
    }
    expect(proxy.served).toEqual([0, 4]);
    expect(proxy.refusals).toBe(2);
  });

  it('sends nothing to a backend taken out of rotation until it is put back', async () => {
    const a = await upstream('a');
    const b = await upstream('b');
    const proxy = await proxyFor(a, b);
    proxy.setOutOfRotation(0, true);
    const names = async (n: number) => {
      const seen: string[] = [];
      for (let i = 0; i < n; i += 1) seen.push(((await (await fetch(`${proxy.url}/echo`)).json()) as { name: string }).name);
      return seen;
    };
    expect(await names(4)).toEqual(['b', 'b', 'b', 'b']);
    proxy.setOutOfRotation(0, false);
    expect((await names(4)).sort()).toEqual(['a', 'a', 'b', 'b']);
  });

  it('keeps the client\'s Host header with preserveHost, and names the backend without it', async () => {
    const a = await upstream('a');
    const keeping = await startRoundRobinProxy([{ host: '127.0.0.1', port: a.port }], { preserveHost: true });
    cleanups.push(() => keeping.close());
    expect(((await (await fetch(`${keeping.url}/echo`)).json()) as { host: string }).host).toBe(`127.0.0.1:${keeping.port}`);
    const proxy = await proxyFor(a);
    expect(((await (await fetch(`${proxy.url}/echo`)).json()) as { host: string }).host).toBe(`127.0.0.1:${a.port}`);
  });

  it('with readiness checks, sends nothing to a backend whose /readyz fails until it answers 200 again', async () => {
    const a = await upstream('a');
    const b = await upstream('b');
    const proxy = await startRoundRobinProxy([a, b].map((u) => ({ host: '127.0.0.1', port: u.port })), { readiness: { path: '/readyz', intervalMs: 20 } });
    cleanups.push(() => proxy.close());
    const names = async (n: number) => {
      const seen: string[] = [];
      for (let i = 0; i < n; i += 1) seen.push(((await (await fetch(`${proxy.url}/echo`)).json()) as { name: string }).name);
      return seen;
    };
    a.ready = false;
    await eventually(() => proxy.unready.has(0), { what: 'the health check to mark a unready' });
    expect(await names(4)).toEqual(['b', 'b', 'b', 'b']);
    a.ready = true;
    await eventually(() => !proxy.unready.has(0), { what: 'the health check to mark a ready again' });
    expect((await names(4)).sort()).toEqual(['a', 'a', 'b', 'b']);
  });

  it('answers 502 when every backend refuses', async () => {
    const proxy = await startRoundRobinProxy([{ host: '127.0.0.1', port: await deadPort() }]);
    cleanups.push(() => proxy.close());
    const response = await fetch(`${proxy.url}/echo`);
    expect(response.status).toBe(502);
    expect(await response.text()).toMatch(/refused/);
  });

  it('uses a backend replaced in place, e.g. a replica restarted on a new port', async () => {
    const a = await upstream('a');
    const b = await upstream('b');
    const proxy = await proxyFor(a);
    proxy.backends[0] = { host: '127.0.0.1', port: b.port };
    expect(((await (await fetch(`${proxy.url}/echo`)).json()) as { name: string }).name).toBe('b');
  });

  it('streams an SSE response as it is written and tears down the upstream request when the client goes away', async () => {
    const a = await upstream('a');
    const proxy = await proxyFor(a);
    const response = await fetch(`${proxy.url}/sse`);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    const first = await reader.read();
    // The backend has not ended the response: the first event arrived through the proxy on its own.
    expect(new TextDecoder().decode(first.value)).toBe('data: a first\n\n');
    expect(a.open.size).toBe(1);
    for (const res of a.open) res.write('data: a second\n\n');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: a second\n\n');
    await reader.cancel();
    await eventually(() => a.abandoned > 0, { what: 'the backend to see its stream abandoned' });
    expect(a.abandoned).toBe(1);
  });

  it('breaks the client response when the backend dies mid-stream instead of ending it cleanly', async () => {
    const a = await upstream('a');
    const proxy = await proxyFor(a);
    const response = await fetch(`${proxy.url}/sse`);
    const reader = response.body!.getReader();
    await reader.read();
    for (const res of a.open) res.socket?.destroy();
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return 'clean end';
      })(),
    ).rejects.toThrow();
  });
});
