// The built-in authorization server as anyone on the internet reaches it, over a real socket: what it
// does with oversized bodies, forged forwarding headers, and how its answers are logged and counted.
import { request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SMALL_BODY_MAX_BYTES } from '../src/http/middleware/small-body-limit.js';
import { authorizeUrl, CLIENT_REDIRECT_URI, freePort, oidcSignInEnv, pkcePair, register, startSignInServer, startSignInWithOidcUpstream } from './support/sign-in.js';
import type { SignInServer, SignInWithUpstream, Upstream } from './support/sign-in.js';
import { parseExposition } from './metrics-exposition.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };
const HUGE_BODY_BYTES = 48 * 1024 * 1024;
const PIECE = Buffer.alloc(64 * 1024, 'a');

interface Answer { status: number; body: string; bytesSentBeforeAnswer: number }

/**
 * POSTs `totalBytes` (declared with Content-Length, or chunked), written piece by piece as the socket
 * takes them, and stops writing as soon as the answer arrives: the body is never held in memory.
 * With `stall`, writes only the first piece and waits, holding the request open.
 */
function post(url: string, options: { totalBytes: number; framing: 'content-length' | 'chunked'; stall?: boolean; piece?: Buffer; headers?: Record<string, string> }): Promise<Answer> {
  const { totalBytes, framing, stall = false, piece = PIECE } = options;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      ...(framing === 'content-length' ? { 'content-length': String(totalBytes) } : { 'transfer-encoding': 'chunked' }),
      ...options.headers,
    };
    const req = httpRequest(url, { method: 'POST', headers, agent: false });
    let sent = 0;
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const bytesSentBeforeAnswer = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), bytesSentBeforeAnswer });
        req.destroy();
      });
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), bytesSentBeforeAnswer }));
    });
    // Once answered, the server may close the socket while the rest is still being written.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < totalBytes) {
        const next = piece.subarray(0, Math.min(piece.length, totalBytes - sent));
        sent += next.length;
        if (stall) return void req.write(next);
        if (!req.write(next)) return void req.once('drain', pump);
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** Every route outside /mcp that a POST can reach: oidc-provider's own, the consent form, and the rest. */
const POST_PATHS = [
  '/authorize', '/authorize/some-uid', '/token', '/register', '/register/some-client', '/revoke', '/jwks',
  '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/interaction/some-uid/confirm', '/interaction/some-uid/return',
  '/oauth/callback', '/interaction/some-uid/upstream', '/.well-known/oauth-protected-resource/mcp', '/', '/metrics', '/healthz',
  '/readyz', '/no-such-route',
];

/** A GET with headers fetch would refuse to send (Host). */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Every absolute URL anywhere in a JSON document. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

// A Host the server is not reached by is refused on every route (the DNS-rebinding check), so the forged
// forwarding headers ride on a Host it accepts, and a forged Host is checked on its own.
const FORGED = {
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'http',
  'x-forwarded-port': '8443',
  forwarded: 'for=203.0.113.9;host=evil.example;proto=http',
};

describe('the authorization server over HTTP', () => {
  let signIn: SignInWithUpstream;
  let upstream: Upstream;
  let server: SignInServer;

  beforeAll(async () => {
    signIn = await startSignInWithOidcUpstream(UPSTREAM_CLIENT, SECRET, { tmpPrefix: 'corpus-as-http-' });
    ({ server, upstream } = signIn);
  });
  afterAll(() => signIn?.close());

  describe('forwarding headers', () => {
    it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])(
      '%s names only PUBLIC_URL whatever X-Forwarded-* and Forwarded say, and refuses a Host it is not reached by',
      async (path) => {
        expect((await get(`${server.url}${path}`, { ...FORGED, host: 'evil.example' })).status).toBe(403);
        const answer = await get(`${server.url}${path}`, FORGED);
        expect(answer.status).toBe(200);
        const metadata = JSON.parse(answer.body) as Record<string, unknown>;
        expect(metadata).toMatchObject({ issuer: server.url, token_endpoint: `${server.url}/token`, registration_endpoint: `${server.url}/register` });
        const urls = urlsIn(metadata);
        expect(urls.length).toBeGreaterThan(3);
        for (const url of urls) expect(new URL(url).origin).toBe(server.url);
      },
    );
  });

  describe('behind a proxy that ends TLS (PUBLIC_URL https, plain HTTP on the socket)', () => {
    const PUBLIC_URL = 'https://docs.example.com';
    let behindProxy: SignInServer;
    let proxyDataDir: string;
    beforeAll(async () => {
      proxyDataDir = await mkdtemp(join(tmpdir(), 'corpus-as-proxy-'));
      behindProxy = await startSignInServer(
        { PUBLIC_URL, ...oidcSignInEnv(upstream, UPSTREAM_CLIENT, SECRET) },
        { port: await freePort(), dataDir: proxyDataDir },
      );
    });
    afterAll(async () => {
      await behindProxy?.close();
      await rm(proxyDataDir, { recursive: true, force: true });
    });

    it('names https URLs of PUBLIC_URL and sets Secure cookies, with or without the proxy\'s X-Forwarded-Proto', async () => {
      const metadata = JSON.parse((await get(`${behindProxy.url}/.well-known/oauth-authorization-server`, { ...FORGED, host: 'docs.example.com' })).body) as Record<string, unknown>;
      expect(metadata).toMatchObject({ issuer: PUBLIC_URL, authorization_endpoint: `${PUBLIC_URL}/authorize` });
      for (const url of urlsIn(metadata)) expect(new URL(url).origin).toBe(PUBLIC_URL);
      const client = await register(behindProxy, 'none');
      const authorize = authorizeUrl({ url: behindProxy.url }, client.client_id, pkcePair().challenge, { resource: `${PUBLIC_URL}/mcp` });
      const proxies: Record<string, string>[] = [{}, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' }];
      for (const headers of proxies) {
        const answer = await get(authorize, headers);
        expect(answer.status).toBe(303);
        const cookies = answer.headers['set-cookie'] ?? [];
        expect(cookies.length).toBeGreaterThan(0);
        for (const cookie of cookies) expect(cookie.toLowerCase()).toContain('; secure');
      }
    });
  });

  describe('what oidc-provider answers itself is logged and counted with the status it sent', () => {
    /** The `request completed` log lines of `path` so far. */
    const logLines = (path: string) =>
      server.rawLog().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'request completed' && line.path === path);
    const counted = async (route: string, method: string, status: number) => {
      const samples = parseExposition(await (await fetch(`${server.url}/metrics`)).text());
      return samples.find((s) => s.name === 'corpus_mcp_http_requests_total' && s.labels.route === route && s.labels.method === method && s.labels.status === String(status))?.value ?? 0;
    };

    it.each([
      ['/authorize with an unknown client', 'GET', '/authorize', 400, () => fetch(`${server.url}/authorize?client_id=nobody&response_type=code&redirect_uri=${encodeURIComponent(CLIENT_REDIRECT_URI)}`, { redirect: 'manual' })],
      ['/token with a refresh token it never issued', 'POST', '/token', 400, async () => {
        const client = await register(server, 'none');
        return fetch(`${server.url}/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: client.client_id, grant_type: 'refresh_token', refresh_token: 'not-a-refresh-token' }) });
      }],
      ['/register', 'POST', '/register', 201, () => fetch(`${server.url}/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [CLIENT_REDIRECT_URI], token_endpoint_auth_method: 'none' }) })],
    ] as const)('%s: logged and counted as %s %s %i', async (_name, method, path, status, send) => {
      const before = await counted(path, method, status);
      const linesBefore = logLines(path).length;
      const response = await send();
      await response.body?.cancel();
      expect(response.status).toBe(status);
      await vi.waitFor(() => expect(logLines(path).length).toBeGreaterThan(linesBefore));
      expect(logLines(path).at(-1)).toMatchObject({ method, route: path, status });
      expect(await counted(path, method, status)).toBe(before + 1);
    });
  });

  describe('request bodies outside /mcp', () => {
    const cases = POST_PATHS.flatMap((path) => (['content-length', 'chunked'] as const).map((framing) => [path, framing] as const));
    let rssBefore = 0;
    let rssPeak = 0;
    beforeAll(() => {
      rssBefore = process.memoryUsage().rss;
      rssPeak = rssBefore;
    });

    it.each(cases)('POST %s with a 48 MB body (%s) is refused with 413 before the body is sent, reading none of it', async (path, framing) => {
      const answer = await post(`${server.url}${path}`, { totalBytes: HUGE_BODY_BYTES, framing });
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining(`${SMALL_BODY_MAX_BYTES} bytes`) });
      expect(answer.bytesSentBeforeAnswer).toBeLessThan(HUGE_BODY_BYTES);
    });

    it('left the process memory flat through all of them (RSS growth < 50 MB)', () => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      expect(rssPeak - rssBefore).toBeLessThan(50 * 1024 * 1024);
    });

    it('still accepts a normal registration, with Content-Length and chunked', async () => {
      expect((await register(server, 'none')).client_id).toBeTruthy();
      const json = Buffer.from(JSON.stringify({ client_name: 'Chunked', redirect_uris: [CLIENT_REDIRECT_URI], token_endpoint_auth_method: 'none' }));
      const answer = await post(`${server.url}/register`, { totalBytes: json.length, framing: 'chunked', piece: json, headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body)).toMatchObject({ client_name: 'Chunked', redirect_uris: [CLIENT_REDIRECT_URI] });
    });

    it.each(['confirm', 'return'])('answers a %s POST for an interaction it does not know without waiting for the form', async (form) => {
      // The body is announced but never finished: an answer proves the form was not read first.
      const answer = await post(`${server.url}/interaction/unknown-uid/${form}`, { totalBytes: 1000, framing: 'content-length', stall: true, piece: Buffer.from('csrf=x&') });
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('This sign-in has expired');
    });
  });
});
