// MCP authorization (2025-06-18 / 2025-11-25) as a resource server, checked clause by clause against
// a real listening corpus-mcp and a local authorization server with its own keys and JWKS. A check of
// one answer (a challenge, a metadata document) sends its request through supertest; the SDK's
// client and discovery, and flows over several requests, use fetch.
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { principalIdForToken } from '../src/auth/static-tokens.js';
import { startAuthorizationServer } from './support/authorization-server.js';
import type { TestAuthorizationServer } from './support/authorization-server.js';
import { startProtectedServer } from './support/protected-server.js';
import type { ProtectedServer } from './support/protected-server.js';
import { MCP_HEADERS, mcpPost } from './support/mcp-post.js';
import { initializeBody, PROTOCOL_VERSION } from './support/raw-mcp.js';

const PUBLIC_URL = 'https://docs.example.com';
const RESOURCE = `${PUBLIC_URL}/mcp`;
const METADATA_URL = `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`;
const STATIC_TOKEN = 'ci-token-4f1d2c3b4a5968778695a4b3c2d1e0f1';
const METRICS_TOKEN = 'metrics-9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d';
const SCOPE = 'docs:read';

/** The auth-params of a `Bearer` challenge, in order. */
function challengeParams(header: string | null | undefined): Record<string, string> {
  expect(header).toMatch(/^Bearer( |$)/);
  return Object.fromEntries([...header!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

let as: TestAuthorizationServer;
let server: ProtectedServer;
const secretsSeen: string[] = [STATIC_TOKEN, METRICS_TOKEN];

/** A token from the local authorization server, remembered so the log check can look for it. */
async function mint(...args: Parameters<TestAuthorizationServer['mint']>): Promise<string> {
  const token = await as.mint(...args);
  secretsSeen.push(token);
  return token;
}

/** An initialize POST to /mcp through supertest, for the checks of one answer. */
const initialize = (headers: Record<string, string>, url: string | URL = server.mcpUrl) => mcpPost(url, JSON.stringify(initializeBody()), headers);

/** What every auth error answer carries besides its challenge (RFC 6750 §3: not cached). */
function expectAuthErrorHeaders(response: request.Response): void {
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['mcp-session-id']).toBeUndefined();
}

function post(headers: Record<string, string>, options: { url?: string | URL; body?: unknown; method?: string } = {}) {
  const { url = server.mcpUrl, body = initializeBody(), method = 'POST' } = options;
  return fetch(url, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
}

beforeAll(async () => {
  // Keycloak-shaped: an issuer with a path, discovered through OpenID Connect metadata.
  as = await startAuthorizationServer({ audience: RESOURCE, issuerPath: '/realms/corp', metadata: 'openid' });
  server = await startProtectedServer(
    { PUBLIC_URL, AUTH_TOKENS: STATIC_TOKEN, OAUTH_ISSUER: as.issuer, OAUTH_REQUIRED_SCOPES: SCOPE, METRICS_TOKEN },
    { oauthTuning: { jwksCooldownMs: 0 } },
  );
});
afterAll(async () => {
  await server?.close();
  await as?.close();
});

describe('protected resource metadata', () => {
  it.each(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'])(
    'RFC 9728 §3: is served at %s without credentials, naming the resource, issuer, scopes and header-only bearer use',
    async (path) => {
      const response = await request(server.url).get(path);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      // Public, cacheable, and readable by browser-based clients cross-origin.
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect(response.headers['cache-control']).toBe('public, max-age=300');
      expect(response.body).toEqual({
        resource: RESOURCE,
        authorization_servers: [as.issuer],
        scopes_supported: [SCOPE],
        bearer_methods_supported: ['header'],
        resource_name: 'corpus-mcp',
      });
    },
  );

  it('RFC 9728 §3.3: its resource is the canonical URL the challenge metadata URL was built from, and the SDK finds it', async () => {
    const params = extractWWWAuthenticateParams(await post({}));
    expect(params.resourceMetadataUrl?.href).toBe(METADATA_URL);
    // The SDK derives the same well-known path from the server URL and reads the document from it.
    const metadata = await discoverOAuthProtectedResourceMetadata(server.mcpUrl);
    expect(metadata.resource).toBe(RESOURCE);
    expect(metadata.authorization_servers).toEqual([as.issuer]);
  });
});

describe('requests without credentials', () => {
  it('RFC 6750 §3.1: a request without credentials gets 401 with a bare Bearer challenge and creates no session', async () => {
    const before = server.app.sessions.size;
    const response = await initialize({});
    expect(response.status).toBe(401);
    const header = response.headers['www-authenticate'];
    expect(header).not.toContain('error=');
    expect(challengeParams(header)).toEqual({ scope: SCOPE, resource_metadata: METADATA_URL });
    expectAuthErrorHeaders(response);
    expect(response.body).toMatchObject({ error: 'unauthorized' });
    expect(server.app.sessions.size).toBe(before);
  });

  it('MCP 2025-11-25 §Protected Resource Metadata Discovery: the SDK client reads resource_metadata and scope from the challenge', async () => {
    const params = extractWWWAuthenticateParams(await post({}));
    expect(params).toMatchObject({ scope: SCOPE });
    expect(params.error).toBeUndefined();
  });

  it.each(['get', 'delete'] as const)('RFC 6750 §3.1: %s on /mcp also needs credentials', async (method) => {
    const response = await request(server.url)[method]('/mcp').set({ ...MCP_HEADERS, 'mcp-session-id': 'anything' });
    expect(response.status).toBe(401);
    expect(challengeParams(response.headers['www-authenticate'])).toEqual({ scope: SCOPE, resource_metadata: METADATA_URL });
    expectAuthErrorHeaders(response);
    expect(response.body).toMatchObject({ error: 'unauthorized' });
  });

  it('RFC 6750 §2.3 is not offered: a token in the query string (?access_token=) counts as no credentials', async () => {
    const url = new URL(server.mcpUrl);
    url.searchParams.set('access_token', STATIC_TOKEN);
    const response = await initialize({}, url);
    expect(response.status).toBe(401);
    expect(challengeParams(response.headers['www-authenticate'])).toEqual({ scope: SCOPE, resource_metadata: METADATA_URL });
    expectAuthErrorHeaders(response);
    expect(response.body).toMatchObject({ error: 'unauthorized' });
  });

  it('RFC 6750 §3.1: another authentication scheme counts as no credentials', async () => {
    const response = await initialize({ authorization: `Basic ${Buffer.from(`user:${STATIC_TOKEN}`).toString('base64')}` });
    expect(response.status).toBe(401);
    expect(challengeParams(response.headers['www-authenticate'])).toEqual({ scope: SCOPE, resource_metadata: METADATA_URL });
    expectAuthErrorHeaders(response);
    expect(response.body).toMatchObject({ error: 'unauthorized' });
  });

  it('RFC 6750 §3.1: a malformed Bearer header gets 400 invalid_request', async () => {
    const response = await initialize({ authorization: `Bearer ${STATIC_TOKEN} extra` });
    expect(response.status).toBe(400);
    expect(challengeParams(response.headers['www-authenticate'])).toMatchObject({ error: 'invalid_request', resource_metadata: METADATA_URL });
    expectAuthErrorHeaders(response);
    expect(response.body).toMatchObject({ error: 'invalid_request' });
    expect(response.text).not.toContain(STATIC_TOKEN);
  });

  it.each(['/healthz', '/readyz', '/.well-known/oauth-protected-resource/mcp'])('leaves %s open', async (path) => {
    const response = await request(server.url).get(path);
    expect(response.status).toBe(200);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });
});

describe('invalid tokens', () => {
  const cases: Array<[string, () => Promise<string>, RegExp]> = [
    ['an unknown static token', async () => STATIC_TOKEN.replace('ci-', 'cj-'), /not a signed JWT/],
    ['RFC 8707: a token for another resource (wrong audience)', () => mint({ aud: 'https://other.example.com/mcp', scope: SCOPE }), /audience/],
    ['RFC 9068 §4: a token from another issuer', () => mint({ iss: 'https://evil.example.com/realms/corp', scope: SCOPE }), /not issued by/],
    ['RFC 7519 §4.1.4: an expired token', () => mint({ exp: Math.floor(Date.now() / 1000) - 600, scope: SCOPE }), /expired/],
    // The challenge turns the description's double quotes into single ones (RFC 6750 §3); the body keeps them.
    ['a token without exp', () => mint({ scope: SCOPE }, { omitExp: true }), /no ['"]exp['"] claim/],
    ['a token signed by a foreign key under an unknown kid', async () => mint({ scope: SCOPE }, { key: await as.foreignKey(), kid: 'foreign' }), /no key .* matches/],
    ['a token signed by a foreign key under the real kid', async () => mint({ scope: SCOPE }, { key: await as.foreignKey(), kid: 'key-1' }), /signature is invalid/],
    [
      'RFC 7515 §4.1.11: a token with a critical header extension the server does not understand',
      () => mint({ scope: SCOPE }, { header: { crit: ['urn:example:unknown'], 'urn:example:unknown': true }, crit: { 'urn:example:unknown': true } }),
      /marks an extension as critical \(['"]crit['"]\)/,
    ],
    ['RFC 8725 §3.1: an unsigned token (alg none)', async () => as.mintUnsigned({ scope: SCOPE }), /not a signed JWT/],
    ['RFC 8725 §3.1: an unsigned token (alg none) with a made-up signature', async () => `${as.mintUnsigned({ scope: SCOPE })}c2ln`, /algorithm is not accepted/],
    ['RFC 8725 §3.1: an HS256 token keyed with the public key', () => as.mintWithPublicKeyAsHmacSecret({ scope: SCOPE }), /algorithm is not accepted/],
    ['a string that is no JWT at all', async () => 'not-a-jwt-and-not-a-configured-static-token', /not a signed JWT/],
  ];

  it.each(cases)('RFC 6750 §3.1: %s gets 401 invalid_token with a description and resource_metadata', async (_name, token, description) => {
    const value = await token();
    secretsSeen.push(value);
    const response = await initialize({ authorization: `Bearer ${value}` });
    expect(response.status).toBe(401);
    const params = challengeParams(response.headers['www-authenticate']);
    expect(params).toMatchObject({ error: 'invalid_token', resource_metadata: METADATA_URL, scope: SCOPE });
    expect(params.error_description).toMatch(description);
    expectAuthErrorHeaders(response);
    const body = response.body as { error: string; error_description: string };
    expect(body.error).toBe('invalid_token');
    expect(body.error_description).toMatch(description);
    expect(body.error_description).not.toContain(value);
  });

  it('a JWT just under the 16 KB header limit is verified like any other; a larger one gets 431', async () => {
    const padded = async (bytes: number) => mint({ sub: 'big', scope: SCOPE, pad: 'x'.repeat(bytes) });
    const small = await padded(0);
    // Node's default limit is 16 KiB for the request line and all headers together.
    const under = await padded(Math.floor(((16 * 1024 - 600 - small.length) * 3) / 4));
    expect(under.length).toBeGreaterThan(15_500);
    const accepted = await initialize({ authorization: `Bearer ${under}` });
    expect(accepted.status).toBe(200);
    expect(accepted.headers['mcp-session-id']).toBeTruthy();
    const over = await padded(16 * 1024);
    const refused = await initialize({ authorization: `Bearer ${over}` });
    expect(refused.status).toBe(431);
    expect(refused.headers['mcp-session-id']).toBeUndefined();
  });

  it('RFC 8707: says which audience the token must carry', async () => {
    const response = await initialize({ authorization: `Bearer ${await mint({ aud: 'https://other.example.com/mcp', scope: SCOPE })}` });
    expect(response.status).toBe(401);
    expect(challengeParams(response.headers['www-authenticate']).error_description).toContain(RESOURCE);
    expect((response.body as { error_description: string }).error_description).toContain(RESOURCE);
  });
});

describe('scopes', () => {
  it('RFC 6750 §3.1: a valid token lacking a required scope gets 403 insufficient_scope naming the scope', async () => {
    const response = await initialize({ authorization: `Bearer ${await mint({ scope: 'profile' })}` });
    expect(response.status).toBe(403);
    const params = challengeParams(response.headers['www-authenticate']);
    expect(params).toMatchObject({ error: 'insufficient_scope', scope: SCOPE, resource_metadata: METADATA_URL });
    expect(params.error_description).toContain(SCOPE);
    expectAuthErrorHeaders(response);
    expect(response.body).toMatchObject({ error: 'insufficient_scope', error_description: expect.stringContaining(SCOPE) });
  });

  it('accepts scopes given as an scp array', async () => {
    const response = await post({ authorization: `Bearer ${await mint({ scp: ['profile', SCOPE] })}` });
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });
});

describe('accepted credentials', () => {
  it('a static token opens a session and calls tools through the SDK client', async () => {
    const client = await server.connect({ Authorization: `Bearer ${STATIC_TOKEN}` });
    try {
      const result = (await client.callTool({ name: 'search_documents', arguments: { query: 'sourdough starter' } })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.structuredContent)).toContain('guides/baking.md');
    } finally {
      await client.close();
    }
  });

  it('an OAuth access token opens a session and calls tools through the SDK client', async () => {
    const client = await server.connect({ Authorization: `Bearer ${await mint({ sub: 'alice', client_id: 'claude', scope: `openid ${SCOPE}` })}` });
    try {
      const result = (await client.callTool({ name: 'list_documents', arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('RFC 6750 §3.1, MCP "token validation on every request": an expired token on a live session gets 401', async () => {
    const response = await post({ authorization: `Bearer ${await mint({ sub: 'bob', scope: SCOPE })}` });
    const sessionId = response.headers.get('mcp-session-id')!;
    await response.body?.cancel();
    const expired = await mint({ sub: 'bob', scope: SCOPE, exp: Math.floor(Date.now() / 1000) - 120 });
    const ping = await post(
      { authorization: `Bearer ${expired}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION },
      { body: { jsonrpc: '2.0', id: 2, method: 'ping' } },
    );
    expect(ping.status).toBe(401);
    expect(challengeParams(ping.headers.get('www-authenticate')).error).toBe('invalid_token');
  });

  it('picks up a rotated signing key: a token with a new kid in the JWKS is accepted', async () => {
    const fetches = as.jwksRequests;
    const kid = await as.rotateKey();
    const token = await mint({ sub: 'rotated', scope: SCOPE });
    expect(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString())).toMatchObject({ kid });
    const client = await server.connect({ Authorization: `Bearer ${token}` });
    await client.close();
    expect(as.jwksRequests).toBe(fetches + 1);
  });
});

describe('sessions belong to the principal that created them', () => {
  async function openSession(token: string): Promise<string> {
    const response = await post({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    const sessionId = response.headers.get('mcp-session-id')!;
    const initialized = await post(
      { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION },
      { body: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    );
    expect(initialized.status).toBe(202);
    return sessionId;
  }
  const onSession = (token: string, sessionId: string, method = 'POST') =>
    post(
      { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION },
      { method, body: { jsonrpc: '2.0', id: 9, method: 'ping' } },
    );

  it.each(['POST', 'GET', 'DELETE'])(
    'MCP security best practices (session hijacking): %s on a session with another principal\'s valid token gets 404, as for an unknown session',
    async (method) => {
      const owner = await mint({ sub: 'owner', scope: SCOPE });
      const sessionId = await openSession(owner);
      const intruder = await openSession(STATIC_TOKEN).then(() => STATIC_TOKEN);

      const refused = await onSession(intruder, sessionId, method);
      expect(refused.status).toBe(404);
      const unknown = await onSession(intruder, '00000000-0000-4000-8000-000000000000', method);
      // Indistinguishable from a session that does not exist: nothing confirms the id is live.
      expect(await refused.json()).toEqual(await unknown.json());

      // The owner's session is untouched, even by a foreign DELETE.
      const still = await onSession(owner, sessionId);
      expect(still.status).toBe(200);
      await still.body?.cancel();
    },
  );

  it('MCP security best practices (session hijacking): another principal\'s requests neither keep a session alive nor re-create it', async () => {
    const other = 'ci-token-other-0f1e2d3c4b5a69788796a5b4c3d2e1f0';
    const short = await startProtectedServer({ PUBLIC_URL, AUTH_TOKENS: `${STATIC_TOKEN},${other}`, SESSION_IDLE_TTL: '1' });
    const on = (token: string, sessionId?: string, body: unknown = initializeBody()) =>
      post(
        { authorization: `Bearer ${token}`, ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION } : {}) },
        { url: short.mcpUrl, body },
      );
    // The idle clock and its purge timers are faked: time moves only when the test moves it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      await vi.advanceTimersByTimeAsync(1000); // off the fake clock's 0, which lru-cache reads as "no start"
      const opened = await on(STATIC_TOKEN);
      await opened.body?.cancel();
      const sessionId = opened.headers.get('mcp-session-id')!;
      expect((await on(STATIC_TOKEN, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
      // The intruder keeps knocking, every 400 ms for 1.6 s, past the idle TTL; the owner stays silent.
      for (let knocks = 0; knocks < 4; knocks++) {
        await vi.advanceTimersByTimeAsync(400);
        const knock = await on(other, sessionId, { jsonrpc: '2.0', id: 1, method: 'ping' });
        expect(knock.status).toBe(404);
        await knock.body?.cancel();
      }
      // The knocks did not keep it alive: it expired. Nor did they bring it back.
      expect(short.app.sessions.size).toBe(0);
      vi.useRealTimers();
      // Its owner's next request re-creates it from its id: idle expiry costs the owner nothing.
      const late = await on(STATIC_TOKEN, sessionId, { jsonrpc: '2.0', id: 2, method: 'ping' });
      expect(late.status).toBe(200);
      await late.body?.cancel();
      expect(short.app.sessions.size).toBe(1);
    } finally {
      vi.useRealTimers();
      await short.close();
    }
  });

  it.each([
    ['another subject', { sub: 'erin' }],
    ["a client whose id is the owner's subject", { sub: undefined, client_id: 'dave' }],
  ])("two OAuth principals: %s presenting the owner's session id gets 404, is served nothing and re-creates nothing", async (_name, intruderClaims) => {
    const owner = await mint({ sub: 'dave', scope: SCOPE });
    const sessionId = await openSession(owner);
    const intruder = await mint({ ...intruderClaims, scope: SCOPE });
    const sessions = server.app.sessions.size;
    for (const method of ['POST', 'GET', 'DELETE']) {
      const refused = await onSession(intruder, sessionId, method);
      expect(refused.status).toBe(404);
      expect(refused.headers.get('mcp-session-id')).toBeNull();
      expect(await refused.json()).toMatchObject({ error: { message: expect.stringMatching(/session/i) } });
    }
    // A tool call under the owner's id is refused the same way, and no session appeared for anyone.
    const call = await post(
      { authorization: `Bearer ${intruder}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION },
      { body: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_documents', arguments: {} } } },
    );
    expect(call.status).toBe(404);
    expect(await call.text()).not.toContain('guides/');
    expect(server.app.sessions.size).toBe(sessions);
    const still = await onSession(owner, sessionId);
    expect(still.status).toBe(200);
    await still.body?.cancel();
  });

  it('a refreshed token for the same subject keeps its sessions', async () => {
    const sessionId = await openSession(await mint({ sub: 'carol', scope: SCOPE }));
    const refreshed = await mint({ sub: 'carol', scope: SCOPE, iat: Math.floor(Date.now() / 1000) + 1 });
    const response = await onSession(refreshed, sessionId);
    expect(response.status).toBe(200);
    await response.body?.cancel();
  });
});

describe('/metrics with METRICS_TOKEN set', () => {
  it('refuses a scrape without the metrics token, including with an MCP token, and serves it with', async () => {
    const none = await request(server.url).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(none.headers['cache-control']).toBe('no-store');
    expect(none.text).not.toContain('corpus_mcp_');
    const mcpToken = await request(server.url).get('/metrics').set('authorization', `Bearer ${STATIC_TOKEN}`);
    expect(mcpToken.status).toBe(401);
    expect(challengeParams(mcpToken.headers['www-authenticate'])).toMatchObject({ realm: 'metrics', error: 'invalid_token' });
    expect(mcpToken.text).not.toContain('corpus_mcp_');
    const ok = await request(server.url).get('/metrics').set('authorization', `Bearer ${METRICS_TOKEN}`);
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.headers['cache-control']).toBe('no-store');
    const exposition = ok.text;
    expect(exposition).toMatch(/corpus_mcp_auth_failures_total\{reason="invalid_token"\} [1-9]/);
    expect(exposition).toMatch(/corpus_mcp_auth_failures_total\{reason="session_principal_mismatch"\} 11\n/);
    expect(exposition).toMatch(/corpus_mcp_auth_failures_total\{reason="metrics_token"\} 2\n/);
  });
});

describe('logs', () => {
  it('name the principal of each request and never contain a token', async () => {
    const client = await server.connect({ Authorization: `Bearer ${STATIC_TOKEN}` });
    await client.close();
    const log = server.rawLog();
    expect(log).toContain(`"principal":"${principalIdForToken(STATIC_TOKEN)}"`);
    expect(log).toContain('"principal":"oauth:sub:alice"');
    for (const secret of secretsSeen) {
      // A JWT's signature part is unique to it; a static token is compared whole.
      expect(log).not.toContain(secret.includes('.') ? secret.split('.').slice(0, 2).join('.') : secret);
    }
  });
});

describe('a server with static tokens only', () => {
  let plain: ProtectedServer;
  beforeAll(async () => {
    plain = await startProtectedServer({ PUBLIC_URL, AUTH_TOKENS: STATIC_TOKEN });
  });
  afterAll(async () => {
    await plain?.close();
  });

  it('RFC 6750 §3: a request without credentials gets a bare Bearer challenge with a realm and nothing that points to OAuth', async () => {
    const response = await request(plain.url).post('/mcp').set('content-type', 'application/json').send(JSON.stringify(initializeBody()));
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="corpus-mcp"');
    expectAuthErrorHeaders(response);
  });

  it('RFC 6750 §3.1: a wrong token gets 401 invalid_token with its description, and no resource_metadata', async () => {
    const response = await initialize({ authorization: 'Bearer not-one-of-the-configured-tokens-0123456789' }, `${plain.url}/mcp`);
    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="corpus-mcp", error="invalid_token", error_description="the bearer token is not one of the configured AUTH_TOKENS"');
    expect(response.body).toEqual({ error: 'invalid_token', error_description: 'the bearer token is not one of the configured AUTH_TOKENS' });
    expectAuthErrorHeaders(response);
  });

  it('RFC 9728: publishes no protected resource metadata, since no authorization server issues its tokens, and the SDK finds none', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      expect((await request(plain.url).get(path)).status).toBe(404);
    }
    await expect(discoverOAuthProtectedResourceMetadata(new URL(`${plain.url}/mcp`))).rejects.toThrow();
  });

  it('answers a client that tries dynamic registration anyway with a 404 saying that /mcp takes a static token', async () => {
    const response = await request(plain.url).post('/register').set('content-type', 'application/json').send({ redirect_uris: ['http://localhost:1/cb'] });
    expect(response.status).toBe(404);
    expect(response.body.message).toMatch(/no OAuth authorization server.*Authorization: Bearer/);
  });

  it('refuses a JWT it has no issuer to check against', async () => {
    const response = await request(plain.url)
      .post('/mcp')
      .set({ 'content-type': 'application/json', authorization: `Bearer ${await mint({ scope: SCOPE })}` })
      .send(JSON.stringify(initializeBody()));
    expect(response.status).toBe(401);
    const params = challengeParams(response.headers['www-authenticate']);
    expect(params).toMatchObject({ realm: 'corpus-mcp', error: 'invalid_token' });
    expect(params.resource_metadata).toBeUndefined();
    expectAuthErrorHeaders(response);
  });
});

describe('a server without authentication (loopback)', () => {
  let open: ProtectedServer;
  beforeAll(async () => {
    open = await startProtectedServer({ PUBLIC_URL: 'http://127.0.0.1:8080' });
  });
  afterAll(async () => {
    await open?.close();
  });

  it('serves MCP without credentials and publishes no protected resource metadata', async () => {
    const client = await open.connect();
    await client.close();
    expect((await fetch(`${open.url}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
  });
});

describe('/metrics on the public port', () => {
  it('off loopback, is not served without METRICS_TOKEN (404), so counts of auth failures and versions stay private', async () => {
    const open = await startProtectedServer({ HOST: '0.0.0.0', PUBLIC_URL, AUTH_TOKENS: STATIC_TOKEN });
    try {
      const response = await fetch(`${open.url}/metrics`);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('corpus_mcp_');
    } finally {
      await open.close();
    }
  });

  it('off loopback, is served behind METRICS_TOKEN when one is set', async () => {
    const guarded = await startProtectedServer({ HOST: '0.0.0.0', PUBLIC_URL, AUTH_TOKENS: STATIC_TOKEN, METRICS_TOKEN });
    try {
      expect((await fetch(`${guarded.url}/metrics`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });

  it('with METRICS_PORT, is not served on the public port at all, even with METRICS_TOKEN', async () => {
    const moved = await startProtectedServer({ PUBLIC_URL, AUTH_TOKENS: STATIC_TOKEN, METRICS_TOKEN, METRICS_PORT: '0' });
    try {
      expect((await fetch(`${moved.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status).toBe(404);
    } finally {
      await moved.close();
    }
  });
});
