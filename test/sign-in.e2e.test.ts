// Team sign-in end to end: corpus-mcp as its own authorization server, a real upstream provider
// started here (an OpenID provider playing Google, an app shaped like GitHub), a browser that signs in
// and consents, and a client playing Claude (the MCP SDK's auth(): discovery, DCR or a client ID
// metadata document, PKCE, resource indicator) — from the 401 on /mcp to a search tool call.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeUrl, Browser, CLIENT_REDIRECT_URI as REDIRECT, consentForm, form, freePort, mcpStatus, pkcePair, register, startGithubUpstream, startOidcUpstream,
  startSignInServer, tokenRequest,
} from './support/sign-in.js';
import type { SignInServer, TokenResponse, Upstream } from './support/sign-in.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };
const ADA = { email: 'ada@example.com' };
const BOB = { email: 'bob@example.com' };
const EIGHT_HOURS_MS = 8 * 3600_000;
const CIMD_URL = 'https://claude.example/oauth/client-metadata.json';

/** The fetch the server uses for client ID metadata documents: serves Claude's document. */
const CUSTOM_SCHEME_CIMD_URL = 'https://native.example/oauth/client-metadata.json';
const CUSTOM_SCHEME_REDIRECT = 'myapp://claude.ai/callback';
const cimdFetch = async (url: URL | string) => {
  const document = { [CIMD_URL]: REDIRECT, [CUSTOM_SCHEME_CIMD_URL]: CUSTOM_SCHEME_REDIRECT }[String(url)];
  if (document === undefined) return new Response('not found', { status: 404 });
  return Response.json({
    client_id: String(url), client_name: 'Claude', application_type: 'native', redirect_uris: [document], grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'], token_endpoint_auth_method: 'none',
  });
};

const root = new URL('../', import.meta.url).pathname;
/**
 * Runs the operator's tool as its own process. Asynchronously: the server under test lives in this
 * process, and an event loop blocked for seconds (spawnSync on a loaded machine) wakes up with its
 * keep-alive timers and the next request racing for the same socket (ECONNRESET).
 */
function runAuthTool(args: string[], dataDir: string): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/auth-tool.ts'), ...args],
      { cwd: root, encoding: 'utf8', env: { PATH: process.env.PATH, AUTH_DATA_DIR: dataDir }, timeout: 60_000 },
      (error, stdout) => (error !== null && typeof error.code !== 'number' ? reject(error) : resolve({ status: error === null ? 0 : (error.code as number), stdout })),
    );
  });
}

/** Claude, as the MCP SDK sees it: registration data, tokens and the verifier live in memory. */
class ClaudeProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly metadata: Partial<OAuthClientMetadata> = {}, readonly clientMetadataUrl?: string) {}
  get redirectUrl() { return REDIRECT; }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Claude', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...this.metadata };
  }
  clientInformation() { return this.client; }
  saveClientInformation(info: OAuthClientInformationMixed) { this.client = info; }
  tokens() { return this.saved; }
  saveTokens(tokens: OAuthTokens) { this.saved = tokens; }
  redirectToAuthorization(url: URL) { this.authorizationUrl = url; }
  saveCodeVerifier(verifier: string) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
}

/** Registers a client, signs in through the browser and redeems the code. */
async function signIn(server: SignInServer, method: 'none' | 'client_secret_post' = 'none', browser = new Browser()) {
  const client = await register(server, method);
  const { verifier, challenge } = pkcePair();
  const back = await browser.authorize(authorizeUrl(server, client.client_id, challenge), REDIRECT);
  const code = back.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${back.href}`);
  const { status, body } = await tokenRequest(server, client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
  expect(status).toBe(200);
  return { client, tokens: body as Required<Pick<TokenResponse, 'access_token' | 'refresh_token'>> };
}

/** The `scope` claim of an issued access token (a JWT), as a sorted list. */
function scopeOf(accessToken: string): string[] {
  const claims = decodeJwt(accessToken);
  return typeof claims.scope === 'string' ? claims.scope.split(' ').sort() : [];
}

async function searchWith(server: SignInServer, provider: OAuthClientProvider): Promise<string> {
  const client = new Client({ name: 'claude-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(server.mcpUrl, { authProvider: provider }));
  try {
    const result = await client.callTool({ name: 'search_documents', arguments: { query: 'sourdough starter' } });
    expect(result.isError).toBeFalsy();
    return JSON.stringify(result.content);
  } finally {
    await client.close();
  }
}

describe('team sign-in with an OpenID upstream (Google stand-in)', () => {
  let upstream: Upstream;
  let server: SignInServer;
  let dataDir: string;
  let port: number;
  const env = () => ({
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
    ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: SECRET, REFRESH_TOKEN_GRACE: '1',
  });
  // The refresh grace window's clock: real time, moved ahead by the test that needs the window past.
  let clockAheadMs = 0;
  const now = () => Date.now() + clockAheadMs;
  const start = () => startSignInServer(env(), { port, dataDir, tuning: { fetch: cimdFetch, now } });

  beforeAll(async () => {
    port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), 'corpus-signin-data-'));
    upstream = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, UPSTREAM_CLIENT);
    server = await start();
  });
  afterAll(async () => {
    await server?.close();
    await upstream?.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  afterEach(() => {
    upstream.user = ADA;
  });

  it('goes from the 401 on /mcp to a search tool call with the issued token (DCR, public client)', async () => {
    upstream.user = ADA;
    const unauthenticated = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(unauthenticated.status).toBe(401);
    const challenge = unauthenticated.headers.get('www-authenticate') ?? '';
    const resourceMetadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(resourceMetadataUrl).toBeDefined();
    const prm = await (await fetch(resourceMetadataUrl!)).json() as { authorization_servers: string[]; scopes_supported: string[] };
    expect(prm.authorization_servers).toEqual([server.url]);

    const claude = new ClaudeProvider();
    expect(await auth(claude, { serverUrl: server.mcpUrl, resourceMetadataUrl: new URL(resourceMetadataUrl!) })).toBe('REDIRECT');
    expect(claude.client?.client_id).toBeTruthy();
    const authorizationUrl = claude.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${server.url}/mcp`);

    const back = await new Browser().authorize(authorizationUrl.href, REDIRECT);
    expect(back.searchParams.get('error_description') ?? '').toBe('');
    expect(back.searchParams.get('iss')).toBe(server.url); // RFC 9207
    const code = back.searchParams.get('code');
    expect(code).toBeTruthy();
    expect(await auth(claude, { serverUrl: server.mcpUrl, authorizationCode: code! })).toBe('AUTHORIZED');
    expect(claude.saved?.refresh_token).toBeTruthy();
    expect(await searchWith(server, claude)).toContain('baking');
  });
  it('registers confidential clients with client_secret_post and signs them in', async () => {
    const { client, tokens } = await signIn(server, 'client_secret_post');
    expect(client.client_secret).toBeTruthy();
    expect(await mcpStatus(server, tokens.access_token)).toBe(200);
    // Without its secret the confidential client cannot refresh.
    const { status, body } = await tokenRequest(server, { client_id: client.client_id }, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(status).toBe(401);
    expect(body.error).toBe('invalid_client');
  });

  it('accepts a client ID metadata document (CIMD) fetched through the injected fetch', async () => {
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
    expect(metadata).toMatchObject({ issuer: server.url, client_id_metadata_document_supported: true, code_challenge_methods_supported: ['S256'], authorization_response_iss_parameter_supported: true });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(['offline_access', 'mcp']));
    expect(metadata).toMatchObject({
      authorization_endpoint: `${server.url}/authorize`, token_endpoint: `${server.url}/token`,
      registration_endpoint: `${server.url}/register`, revocation_endpoint: `${server.url}/revoke`,
    });
    expect(await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()).toEqual(metadata);
    const claude = new ClaudeProvider({}, CIMD_URL);
    expect(await auth(claude, { serverUrl: server.mcpUrl })).toBe('REDIRECT');
    expect(claude.authorizationUrl!.searchParams.get('client_id')).toBe(CIMD_URL);
    const back = await new Browser().authorize(claude.authorizationUrl!.href, REDIRECT);
    expect(await auth(claude, { serverUrl: server.mcpUrl, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
    expect(await searchWith(server, claude)).toContain('baking');
  });

  it.each([
    ['http://docs.attacker.example/callback', 400],
    // Private-use schemes: any app may claim one, and the consent page could only show a fake "host".
    ['myapp://claude.ai/callback', 400],
    ['com.evil.app:/cb', 400],
    ['https://claude.ai/api/mcp/auth_callback', 201],
    ['http://127.0.0.1:7777/callback', 201],
    ['http://localhost:33418/callback', 201],
    ['http://[::1]:7777/callback', 201],
  ])('registers redirect URI %s with HTTP %i: https, or http on loopback only, for web and native clients', async (uri, status) => {
    for (const applicationType of ['web', 'native']) {
      const response = await fetch(`${server.url}/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [uri], token_endpoint_auth_method: 'none', application_type: applicationType }),
      });
      expect({ applicationType, status: response.status }).toEqual({ applicationType, status });
      if (status === 400) expect(await response.json()).toMatchObject({ error: 'invalid_redirect_uri' });
      else await response.body?.cancel();
    }
  });

  it('refuses a client ID metadata document whose redirect URI has a custom scheme, and issues no code', async () => {
    const url = authorizeUrl(server, CUSTOM_SCHEME_CIMD_URL, pkcePair().challenge, { redirect_uri: CUSTOM_SCHEME_REDIRECT });
    const { redirect, page } = await new Browser().follow(url, CUSTOM_SCHEME_REDIRECT);
    expect(redirect).toBeUndefined();
    expect(page!.status).toBe(400);
    expect(await page!.text()).not.toContain('consent');
  });

  it.each([
    ['missing', undefined],
    ['wrong', 'x'.repeat(43)],
  ])('refuses a code redeemed with a %s PKCE verifier', async (_label, verifier) => {
    const client = await register(server, 'none');
    const { challenge } = pkcePair();
    const back = await new Browser().authorize(authorizeUrl(server, client.client_id, challenge), REDIRECT);
    const { status, body } = await tokenRequest(server, client, {
      grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, ...(verifier ? { code_verifier: verifier } : {}),
    });
    expect(status).toBe(400);
    expect(body.error).toMatch(/invalid_grant|invalid_request/);
    expect(body.access_token).toBeUndefined();
  });

  it('refuses an authorization request without PKCE', async () => {
    const client = await register(server, 'none');
    const url = new URL(authorizeUrl(server, client.client_id, 'unused'));
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const { redirect } = await new Browser().follow(url.href, REDIRECT);
    expect(redirect?.searchParams.get('error')).toBe('invalid_request');
    expect(redirect?.searchParams.get('code')).toBeNull();
  });

  it('answers a foreign resource with invalid_target', async () => {
    const client = await register(server, 'none');
    const { challenge } = pkcePair();
    const { redirect } = await new Browser().follow(authorizeUrl(server, client.client_id, challenge, { resource: 'https://elsewhere.example/mcp' }), REDIRECT);
    expect(redirect?.searchParams.get('error')).toBe('invalid_target');
    expect(redirect?.searchParams.get('code')).toBeNull();
  });

  it('denies an email outside the allowlist with access_denied and issues no code', async () => {
    upstream.user = { email: 'eve@outsider.example' };
    const client = await register(server, 'none');
    const { challenge } = pkcePair();
    // The person first sees which account was refused and whom to ask; returning tells the app.
    const { html, redirect } = await new Browser().returnToApp(authorizeUrl(server, client.client_id, challenge), REDIRECT, 403);
    expect(html).toContain('eve@outsider.example');
    expect(html).toContain(`Ask the person who runs ${new URL(server.url).host}`);
    expect(redirect?.searchParams.get('error')).toBe('access_denied');
    expect(redirect?.searchParams.get('code')).toBeNull();
    expect(server.rawLog()).toContain('sign-in denied');
  });

  it('shows an unknown client a page of this server that says to add the connector again', async () => {
    const response = await fetch(authorizeUrl(server, 'no-such-client', pkcePair().challenge), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await response.text();
    expect(html).toContain(`<h1>This app is not registered with ${new URL(server.url).host}</h1>`);
    expect(html).toContain('add it again');
    expect(html).not.toMatch(/oops! something went wrong/i);
  });

  it('refuses a "Return to the app" POST without its CSRF token', async () => {
    upstream.user = { email: 'eve@outsider.example' };
    const client = await register(server, 'none');
    const browser = new Browser();
    const { page } = await browser.follow(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT);
    const back = consentForm(await page!.text())!;
    const forged = await browser.request(new URL(back.action, server.url).href, form({ csrf: 'forged' }));
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
  });

  it('denies an allowed address whose email is not verified', async () => {
    upstream.user = { email: 'unverified@example.com', emailVerified: false };
    const client = await register(server, 'none');
    const { html, redirect } = await new Browser().returnToApp(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT, 403);
    expect(html).toContain('did not confirm an email address');
    expect(redirect?.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a consent POST without its CSRF token, and the interaction issues no code', async () => {
    const client = await register(server, 'none');
    const browser = new Browser();
    const first = await browser.follow(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT);
    const html = await first.page!.text();
    expect(html).toContain('Claude');
    expect(html).toContain('<code>http://localhost:33418</code>'); // scheme and host of the redirect URI
    const form_ = consentForm(html)!;
    const refused = await browser.request(new URL(form_.action, server.url).href, form({ decision: 'allow' }));
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();
    const forged = await browser.request(new URL(form_.action, server.url).href, form({ decision: 'allow', csrf: 'forged' }));
    expect(forged.status).toBe(403);
  });

  describe('what clients and directories read', () => {
    it('keeps in its metadata what Claude needs to choose a client ID metadata document: the flag and the "none" auth method', async () => {
      const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
      expect(metadata.client_id_metadata_document_supported).toBe(true);
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none']));
    });

    it('keeps the grant\'s scope on a refresh that names none (as Claude Code sends it)', async () => {
      const { client, tokens } = await signIn(server);
      const granted = scopeOf(tokens.access_token);
      expect(granted).toContain('mcp');
      const refreshed = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(refreshed.status).toBe(200);
      expect(scopeOf(refreshed.body.access_token!)).toEqual(granted);
      expect(await mcpStatus(server, refreshed.body.access_token!)).toBe(200);
      // And once more with the rotated token.
      const again = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: refreshed.body.refresh_token! });
      expect(scopeOf(again.body.access_token!)).toEqual(granted);
    });
  });

  it('lets two refreshes of one token at once both succeed (grace window)', async () => {
    const { client, tokens } = await signIn(server);
    const [a, b] = await Promise.all([1, 2].map(() => tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })));
    expect(a!.status).toBe(200);
    expect(b!.status).toBe(200);
    expect(a!.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(await mcpStatus(server, a!.body.access_token!)).toBe(200);
    expect(await mcpStatus(server, b!.body.access_token!)).toBe(200);
  });

  it('revokes the whole grant when a rotated refresh token is replayed after the grace window', async () => {
    const { client, tokens } = await signIn(server);
    const first = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(first.status).toBe(200);
    clockAheadMs += 1200; // past the test's 1 s grace window
    const replay = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // The newer refresh token and every access token of the grant are dead too.
    const newer = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token! });
    expect(newer.body.error).toBe('invalid_grant');
    expect(await mcpStatus(server, first.body.access_token!)).toBe(401);
    expect(await mcpStatus(server, tokens.access_token)).toBe(401);
  });

  it('ends the grant when the client revokes its refresh token at /revoke (RFC 7009)', async () => {
    const { client, tokens } = await signIn(server);
    const revoked = await fetch(`${server.url}/revoke`, form({ client_id: client.client_id, token: tokens.refresh_token, token_type_hint: 'refresh_token' }));
    expect(revoked.status).toBe(200);
    const refresh = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
    expect(await mcpStatus(server, tokens.access_token)).toBe(401);
  });

  it('keeps access and refresh tokens valid across a restart', async () => {
    const { client, tokens } = await signIn(server);
    await server.close();
    server = await start();
    expect(await mcpStatus(server, tokens.access_token)).toBe(200);
    const refreshed = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(await mcpStatus(server, refreshed.body.access_token!)).toBe(200);
  });

  it('keeps a browser signed in here for 8 hours from the upstream sign-in, not for weeks', async () => {
    const browser = new Browser();
    const before = Date.now();
    await signIn(server, 'none', browser);
    const session = browser.setCookies.filter((line) => line.startsWith('_session=')).at(-1);
    const expires = Date.parse(/expires=([^;]+)/i.exec(session ?? '')?.[1] ?? '');
    expect(expires).toBeGreaterThan(before + EIGHT_HOURS_MS - 60_000);
    // The cookie's expiry is the stored session's (oidc-provider writes both from ttl.Session).
    expect(expires).toBeLessThanOrEqual(Date.now() + EIGHT_HOURS_MS + 1000);
  });

  it('keeps serving a sign-in from before accounts were kept, decided on its account id (the admitted email) alone', async () => {
    upstream.user = ADA;
    const { client, tokens } = await signIn(server);
    await server.store.delete('Account', ADA.email);
    expect(await mcpStatus(server, tokens.access_token)).toBe(200);
    const refreshed = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refreshed.status).toBe(200);
  });

  it('lets a browser signed in here within its 8 hours connect another client without the upstream', async () => {
    upstream.user = ADA;
    const browser = new Browser();
    await signIn(server, 'none', browser);
    const client = await register(server, 'none');
    const visitedBefore = browser.visited.length;
    const { page } = await browser.follow(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT);
    expect(await page!.text()).toContain(`signed in as <strong>${ADA.email}</strong>`);
    expect(browser.visited.slice(visitedBefore).some((url) => url.startsWith(upstream.url))).toBe(false);
  });

  describe('after a restart with an allowlist that no longer names Ada', () => {
    const restartWith = async (allowlist: Record<string, string>) => {
      await server.close();
      server = await startSignInServer({ ...env(), ALLOWED_EMAIL_DOMAINS: '', ...allowlist }, { port, dataDir, tuning: { fetch: cimdFetch } });
    };
    afterEach(async () => {
      await server.close();
      server = await start();
    });

    it('refuses her access token at /mcp and her refresh token with invalid_grant', async () => {
      const { client, tokens } = await signIn(server);
      expect(await mcpStatus(server, tokens.access_token)).toBe(200);
      await restartWith({ ALLOWED_EMAILS: BOB.email });
      expect(await mcpStatus(server, tokens.access_token)).toBe(401);
      const refresh = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(refresh.status).toBe(400);
      expect(refresh.body.error).toBe('invalid_grant');
      expect(refresh.body.access_token).toBeUndefined();
      expect(server.rawLog()).toContain('account no longer allowed');
    });

    it('sends her browser session to the upstream again for a new client instead of authorizing it as Ada', async () => {
      const browser = new Browser();
      await signIn(server, 'none', browser);
      await restartWith({ ALLOWED_EMAILS: BOB.email });
      // The upstream now signs in Bob at that browser: the consent page must name Bob, not Ada.
      upstream.user = BOB;
      const client = await register(server, 'none');
      const visitedBefore = browser.visited.length;
      const { page } = await browser.follow(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT);
      const html = await page!.text();
      expect(browser.visited.slice(visitedBefore).some((url) => url.startsWith(upstream.url))).toBe(true);
      expect(html).toContain(`signed in as <strong>${BOB.email}</strong>`);
      expect(html).not.toContain(ADA.email);
    });

    it('denies her, through the upstream, when the upstream still signs in Ada', async () => {
      const browser = new Browser();
      await signIn(server, 'none', browser);
      await restartWith({ ALLOWED_EMAILS: BOB.email });
      const client = await register(server, 'none');
      const visitedBefore = browser.visited.length;
      const { html, redirect } = await browser.returnToApp(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT, 403);
      expect(browser.visited.slice(visitedBefore).some((url) => url.startsWith(upstream.url))).toBe(true);
      expect(html).toContain(ADA.email);
      expect(redirect?.searchParams.get('error')).toBe('access_denied');
      expect(redirect?.searchParams.get('code')).toBeNull();
    });
  });

  describe('with REQUIRE_HOSTED_DOMAIN (Google Workspace `hd`)', () => {
    beforeAll(async () => {
      await server.close();
      server = await startSignInServer({ ...env(), REQUIRE_HOSTED_DOMAIN: 'true' }, { port, dataDir, tuning: { fetch: cimdFetch } });
    });
    afterAll(async () => {
      await server.close();
      server = await start();
    });

    it('admits an address of an allowed domain whose account that Workspace manages', async () => {
      upstream.user = { email: 'carol@example.com', hd: 'example.com' };
      const { tokens } = await signIn(server);
      expect(await mcpStatus(server, tokens.access_token)).toBe(200);
    });

    it.each([
      ['without `hd` (a personal Google account opened with the work address)', { email: 'dave@example.com' }],
      ['with another Workspace\'s `hd`', { email: 'dave@example.com', hd: 'elsewhere.example' }],
    ])('denies an address of an allowed domain %s', async (_label, user) => {
      upstream.user = user;
      const client = await register(server, 'none');
      const { html, redirect } = await new Browser().returnToApp(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT, 403);
      expect(html).toContain(user.email);
      expect(redirect?.searchParams.get('error')).toBe('access_denied');
      expect(redirect?.searchParams.get('code')).toBeNull();
      expect(server.rawLog()).toContain('not managed by it');
    });
  });

  it('ends access at once with `npm run auth -- revoke <email>`', async () => {
    const { client, tokens } = await signIn(server);
    const listed = await runAuthTool(['grants'], dataDir);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(ADA.email);
    const revoked = await runAuthTool(['revoke', ADA.email], dataDir);
    expect(revoked.status).toBe(0);
    expect(revoked.stdout).toContain(ADA.email);
    expect(await mcpStatus(server, tokens.access_token)).toBe(401);
    const refresh = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await runAuthTool(['grants'], dataDir)).stdout).not.toContain(ADA.email);
  }, 120_000); // three runs of the operator's tool, each a Node process compiling TypeScript
});

describe('team sign-in when the identity provider cannot be reached', () => {
  /** A sign-in server whose OpenID upstream is running; closing it is up to the test. */
  async function withUpstream(use: (server: SignInServer, upstream: Upstream) => Promise<void>) {
    const port = await freePort();
    const dataDir = await mkdtemp(join(tmpdir(), 'corpus-signin-down-'));
    const upstream = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, UPSTREAM_CLIENT);
    upstream.user = ADA;
    const server = await startSignInServer({
      LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
      ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: SECRET,
    }, { port, dataDir });
    try {
      await use(server, upstream);
    } finally {
      await server.close();
      await upstream.close().catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    }
  }

  it('offers a retry, and returning tells the app temporarily_unavailable with its state (RFC 6749 §4.1.2.1)', async () => {
    await withUpstream(async (server, upstream) => {
      await upstream.close();
      const client = await register(server, 'none');
      const { html, redirect } = await new Browser().returnToApp(authorizeUrl(server, client.client_id, pkcePair().challenge, { state: 'st-1' }), REDIRECT, 502);
      expect(html).toContain('Your sign-in provider cannot be reached');
      expect(html).toMatch(/<a class="button primary" href="\/interaction\/[^"]+">Try again<\/a>/);
      expect(redirect?.searchParams.get('error')).toBe('temporarily_unavailable');
      expect(redirect?.searchParams.get('state')).toBe('st-1');
      expect(redirect?.searchParams.get('iss')).toBe(server.url);
      expect(redirect?.searchParams.get('code')).toBeNull();
    });
  });

  it('says the provider cannot be reached when it goes away between the sign-in and the token exchange', async () => {
    await withUpstream(async (server, upstream) => {
      const client = await register(server, 'none');
      const browser = new Browser();
      const { redirect: callback } = await browser.follow(authorizeUrl(server, client.client_id, pkcePair().challenge), `${server.url}/oauth/callback`);
      expect(callback).toBeDefined();
      await upstream.close();
      const { html, redirect } = await browser.returnToApp(callback!.href, REDIRECT, 502);
      expect(html).toContain('Your sign-in provider cannot be reached');
      expect(redirect?.searchParams.get('error')).toBe('temporarily_unavailable');
    });
  });
});

/** The listed organisation, as GitHub names it (ALLOWED_GITHUB_ORGS=our-team). */
const OUR_TEAM = { id: 7001, login: 'Our-Team' };
/** `count` organisations that are not listed, as a member of many would see them. */
const otherOrgs = (count: number) => Array.from({ length: count }, (_, i) => ({ id: 100_000 + i, login: `other-org-${i}` }));

describe('team sign-in with GitHub', () => {
  let github: Awaited<ReturnType<typeof startGithubUpstream>>;
  let server: SignInServer;
  let dataDir: string;

  beforeAll(async () => {
    const port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), 'corpus-signin-gh-'));
    github = await startGithubUpstream(UPSTREAM_CLIENT);
    server = await startSignInServer({
      LOGIN_PROVIDER: 'github', LOGIN_GITHUB_URL: github.url, LOGIN_GITHUB_API_URL: github.apiUrl,
      LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret, ALLOWED_GITHUB_ORGS: 'our-team', AUTH_SECRET: SECRET,
    }, { port, dataDir });
  });
  afterAll(async () => {
    await server?.close();
    await github?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('signs in a member of an allowed organisation and serves a search', async () => {
    // The first sign-in through a listed login pins that organisation's id.
    github.user = { email: 'grace@personal.example', orgs: [OUR_TEAM] };
    const claude = new ClaudeProvider();
    expect(await auth(claude, { serverUrl: server.mcpUrl })).toBe('REDIRECT');
    const back = await new Browser().authorize(claude.authorizationUrl!.href, REDIRECT);
    expect(await auth(claude, { serverUrl: server.mcpUrl, authorizationCode: back.searchParams.get('code')! })).toBe('AUTHORIZED');
    expect(await searchWith(server, claude)).toContain('baking');
    expect(server.rawLog()).not.toMatch(/gho_[0-9a-f]{24}/); // the upstream token is never logged
  });

  it('denies a GitHub user outside the organisation with access_denied', async () => {
    github.user = { email: 'mallory@personal.example', orgs: [{ id: 5, login: 'another-org' }] };
    const client = await register(server, 'none');
    const { html, redirect } = await new Browser().returnToApp(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT, 403);
    expect(html).toContain('mallory@personal.example');
    expect(redirect?.searchParams.get('error')).toBe('access_denied');
    expect(redirect?.searchParams.get('code')).toBeNull();
  });

  it('reads every page of the organisations: the listed one on page 2 of 150 admits', async () => {
    github.user = { email: 'linus@personal.example', orgs: [...otherOrgs(120), OUR_TEAM, ...otherOrgs(150).slice(120)] };
    const { tokens } = await signIn(server);
    expect(await mcpStatus(server, tokens.access_token)).toBe(200);
  });

  it('refuses an organisation with the listed login but another id (the name re-registered)', async () => {
    // A member's sign-in has pinned the listed login to its id (in this test too, whatever ran before).
    github.user = { email: 'grace@personal.example', orgs: [OUR_TEAM] };
    await signIn(server);
    expect((await server.store.get('GithubOrgPin', 'our-team'))?.payload).toEqual({ id: OUR_TEAM.id });
    github.user = { email: 'mallory@personal.example', orgs: [{ id: 666, login: 'our-team' }] };
    const client = await register(server, 'none');
    const { redirect } = await new Browser().returnToApp(authorizeUrl(server, client.client_id, pkcePair().challenge), REDIRECT, 403);
    expect(redirect?.searchParams.get('error')).toBe('access_denied');
    expect(redirect?.searchParams.get('code')).toBeNull();
  });

  it('asks GitHub again on refresh: a member who left the organisation is refused (organisation on page 2)', async () => {
    const margaret = { email: 'margaret@personal.example', orgs: [...otherOrgs(130), OUR_TEAM] };
    github.user = margaret;
    const { client, tokens } = await signIn(server);
    const still = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(still.status).toBe(200);
    margaret.orgs = otherOrgs(130);
    const refused = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: still.body.refresh_token! });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    // What GitHub said is kept: her access tokens are refused from now on, not only at their expiry.
    expect(await mcpStatus(server, still.body.access_token!)).toBe(401);
    expect(server.rawLog()).not.toMatch(/gho_[0-9a-f]{24}/);
  });

  it('refuses a refresh once the person revoked the app at GitHub', async () => {
    const ken = { email: 'ken@personal.example', orgs: [OUR_TEAM] };
    github.user = ken;
    const { client, tokens } = await signIn(server);
    github.revoke(ken.email);
    const refused = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(refused.body.error).toBe('invalid_grant');
  });

  it('answers a refresh 503 temporarily_unavailable while GitHub is down, and the refresh token still works after', async () => {
    github.user = { email: 'barbara@personal.example', orgs: [OUR_TEAM] };
    const { client, tokens } = await signIn(server);
    github.outage.on = true;
    try {
      const down = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(down.status).toBe(503);
      expect(down.body.error).toBe('temporarily_unavailable');
    } finally {
      github.outage.on = false;
    }
    const after = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(after.status).toBe(200);
  });

  it('keeps the GitHub token only encrypted', async () => {
    github.user = { email: 'grace@personal.example', orgs: [OUR_TEAM] };
    await signIn(server);
    const stored = await server.store.get('Account', 'grace@personal.example');
    expect(stored?.payload).toMatchObject({ provider: 'github', githubOrgs: [{ id: OUR_TEAM.id, login: 'our-team' }] });
    expect(JSON.stringify(stored?.payload)).not.toMatch(/gho_/);
  });
});
