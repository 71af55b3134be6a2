// The Host check (DNS-rebinding protection) on every route, over real listening servers and node:http
// (fetch replaces the Host header): a name that is not this server's gets 403 before any route runs,
// on the public port (sign-in server in this process) and on the METRICS_PORT listener (the real
// process), which also holds at most MAX_CONNECTIONS connections. The operator's routes (/healthz,
// /readyz, /metrics) also accept a Host that is an IP address, as platform checkers and scrapers send.
import { request } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startSignInWithOidcUpstream } from './support/sign-in.js';
import type { SignInWithUpstream } from './support/sign-in.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';

/** A request with `host` as written; resolves with the status and body. */
function get(port: number, path: string, host: string, method = 'GET'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers: { host, connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

const REBINDING_HOST = 'rebind.attacker.example';
const refusedForHost = (answer: { status: number; body: string }) => answer.status === 403 && answer.body.includes('Host header');

describe('the Host check on every route of the public port', () => {
  const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
  const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };
  let signIn: SignInWithUpstream;
  let port: number;
  beforeAll(async () => {
    signIn = await startSignInWithOidcUpstream(UPSTREAM_CLIENT, SECRET, { tmpPrefix: 'corpus-host-routes-' });
    ({ port } = signIn);
  });
  afterAll(() => signIn?.close());

  const ROUTES: Array<[string, string]> = [
    ['GET', '/healthz'],
    ['GET', '/readyz'],
    ['GET', '/metrics'],
    ['GET', '/'],
    ['GET', '/.well-known/oauth-protected-resource/mcp'],
    ['GET', '/.well-known/oauth-authorization-server'],
    ['GET', '/.well-known/openid-configuration'],
    ['GET', '/.well-known/mcp/server-card.json'],
    ['GET', '/mcp'],
    ['POST', '/mcp'],
    ['GET', '/authorize?client_id=x'],
    ['POST', '/register'],
    ['POST', '/token'],
    ['GET', '/jwks'],
    ['GET', '/interaction/some-uid'],
    ['GET', '/oauth/callback?state=x&code=y'],
    ['GET', '/no-such-route'],
  ];

  it.each(ROUTES)('%s %s: a foreign name in Host gets 403, a name of this server does not', async (method, path) => {
    expect(refusedForHost(await get(port, path, REBINDING_HOST, method))).toBe(true);
    expect(refusedForHost(await get(port, path, `${REBINDING_HOST}:${port}`, method))).toBe(true);
    expect(refusedForHost(await get(port, path, `127.0.0.1:${port}`, method))).toBe(false);
    expect(refusedForHost(await get(port, path, `localhost:${port}`, method))).toBe(false);
  });

  it.each([['/healthz', 200], ['/readyz', 200], ['/metrics', 200]])('%s answers a Host that is an IP address, as a platform checker sends (%i)', async (path, status) => {
    for (const host of ['10.1.2.3:8080', '[fdaa:0:1::2]:9091', '172.19.0.5']) expect((await get(port, path, host)).status).toBe(status);
  });

  it.each(['/', '/mcp', '/.well-known/oauth-authorization-server', '/authorize?client_id=x'])('%s refuses a Host that is an address not of this server', async (path) => {
    expect(refusedForHost(await get(port, path, '10.1.2.3:8080'))).toBe(true);
  });
});

describe('the METRICS_PORT listener', () => {
  let server: SpawnedServer;
  let metricsPort: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    metricsPort = await freePort();
    server = await spawnServer({ METRICS_PORT: String(metricsPort), MAX_CONNECTIONS: '3' }, { readyWithinMs: 120_000 });
  }, 150_000);
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await cleanUpSpawnedServers();
  });

  it('checks the Host: a foreign name gets 403, this server\'s names and IP addresses are served', async () => {
    expect(refusedForHost(await get(metricsPort, '/metrics', REBINDING_HOST))).toBe(true);
    for (const host of [`127.0.0.1:${metricsPort}`, `localhost:${metricsPort}`, `[fdaa:0:1::2]:${metricsPort}`]) {
      const answer = await get(metricsPort, '/metrics', host);
      expect({ host, status: answer.status }).toEqual({ host, status: 200 });
      expect(answer.body).toContain('corpus_mcp_');
    }
  });

  it('holds at most MAX_CONNECTIONS connections, closing one past it before a byte is answered', async () => {
    const open = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = connect(metricsPort, '127.0.0.1', () => resolve(socket));
        socket.on('error', () => {});
        socket.once('error', reject);
        sockets.push(socket);
      });
    const held = [await open(), await open(), await open()];
    const refused = await open();
    const received: Buffer[] = [];
    refused.on('data', (chunk: Buffer) => received.push(chunk));
    refused.write(`GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    await new Promise<void>((resolve) => (refused.closed ? resolve() : refused.once('close', () => resolve())));
    expect(Buffer.concat(received).length).toBe(0);
    for (const socket of held) socket.destroy();
    expect(server.child.exitCode).toBeNull();
  });
});
