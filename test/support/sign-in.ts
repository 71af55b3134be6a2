// What the team sign-in tests need around the server: a real upstream OpenID provider (a second
// oidc-provider) and a small app shaped like GitHub's OAuth and REST API, each on its own loopback
// port; a browser that follows redirects with cookies and submits the consent form; and corpus-mcp
// itself, assembled from an environment as main.ts assembles it, restartable on the same port and
// data folder.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { createSignIn } from '../../src/auth/server/sign-in.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/config.js';
import { loadCorpus } from '../../src/corpus/load-corpus.js';
import type { CorpusApp } from './test-server.js';
import { assembleServer } from '../../src/http/assemble.js';
import type { AssembleOptions } from '../../src/http/assemble.js';
import { createLogger } from '../../src/logger.js';
import { semanticServiceFromConfig } from '../../src/semantic/semantic-from-config.js';
import { IndexHolder } from '../../src/mcp/index-holder.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { writeCorpusFiles } from './sample-corpus.js';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export interface UpstreamUser {
  email: string;
  emailVerified?: boolean;
  /** OIDC only: the ID token's `hd` claim (Google Workspace). */
  hd?: string;
  /** GitHub only: the user's numeric id; default derived from the email. */
  id?: number;
  /** GitHub only: organisations the user belongs to (GitHub's ids and logins), served 100 a page. */
  orgs?: { id: number; login: string }[];
}

export interface Upstream {
  url: string;
  /** Who signs in next. */
  user: UpstreamUser;
  close(): Promise<void>;
}

/**
 * The Google stand-in: an OpenID provider (oidc-provider) with one confidential client whose redirect
 * URI is corpus-mcp's callback. Its interactions sign in `user` at once, without a page.
 */
export async function startOidcUpstream(callbackUrl: string, client: { id: string; secret: string }): Promise<Upstream> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const state: { user: UpstreamUser } = { user: { email: 'nobody@example.com' } };
  const provider = new Provider(issuer, {
    clients: [{ client_id: client.id, client_secret: client.secret, redirect_uris: [callbackUrl], grant_types: ['authorization_code'], response_types: ['code'] }],
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'upstream', alg: 'RS256', use: 'sig' }] },
    claims: { openid: ['sub', 'hd'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/i/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const user = state.user;
      return {
        accountId: id,
        claims: async () => ({ sub: id, email: user.email, email_verified: user.emailVerified ?? true, name: 'Test Person', ...(user.hd ? { hd: user.hd } : {}) }),
      };
    },
  });
  const callback = provider.callback();
  const server = createServer((req, res) => {
    if (!req.url?.startsWith('/i/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (details.prompt.name === 'login') {
        await provider.interactionFinished(req, res, { login: { accountId: `sub-${state.user.email}` } }, { mergeWithLastSubmission: false });
        return;
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
      grant.addOIDCScope('openid email profile');
      await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true });
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: issuer,
    get user() { return state.user; },
    set user(user) { state.user = user; },
    close: () => closeServer(server),
  };
}

/**
 * The GitHub stand-in: /login/oauth/authorize answers at once with a code for `user`;
 * /login/oauth/access_token exchanges it; /api/user, /api/user/emails and /api/user/orgs answer as
 * GitHub's REST API does for that token (the organisations in pages of `per_page`, at most 100, linked
 * by a `Link: <…>; rel="next"` header). A token answers for the user object it was issued to: change
 * that object's `orgs` to change what GitHub says about them. `revoke(email)` makes their tokens fail
 * with 401, as GitHub does for a token revoked by its user; `outage.on` makes the API answer 503.
 */
export async function startGithubUpstream(client: { id: string; secret: string }): Promise<Upstream & { apiUrl: string; revoke(email: string): void; outage: { on: boolean } }> {
  const state: { user: UpstreamUser } = { user: { email: 'nobody@example.com' } };
  const codes = new Map<string, UpstreamUser>();
  const tokens = new Map<string, UpstreamUser>();
  const app = new Hono();
  app.get('/login/oauth/authorize', (c) => {
    const redirect = new URL(c.req.query('redirect_uri')!);
    if (c.req.query('client_id') !== client.id) return c.text('unknown client', 400);
    const code = randomBytes(8).toString('hex');
    codes.set(code, state.user);
    redirect.searchParams.set('code', code);
    redirect.searchParams.set('state', c.req.query('state') ?? '');
    return c.redirect(redirect.href, 302);
  });
  app.post('/login/oauth/access_token', async (c) => {
    const basic = Buffer.from((c.req.header('authorization') ?? '').replace(/^Basic /, ''), 'base64').toString();
    const form = await c.req.parseBody();
    const user = codes.get(String(form.code));
    codes.delete(String(form.code));
    if (basic !== `${client.id}:${client.secret}` || user === undefined) return c.json({ error: 'bad_verification_code' });
    const token = `gho_${randomBytes(12).toString('hex')}`;
    tokens.set(token, user);
    return c.json({ access_token: token, token_type: 'bearer', scope: 'read:user,user:email,read:org' });
  });
  const revoked = new Set<string>();
  const outage = { on: false };
  // GitHub down: every API call answers 503.
  app.use('/api/*', async (c, next) => (outage.on ? c.json({ message: 'Service Unavailable' }, 503) : next()));
  const who = (authorization: string | undefined) => {
    const user = tokens.get((authorization ?? '').replace(/^Bearer /, ''));
    return user && !revoked.has(user.email) ? user : undefined;
  };
  const userId = (user: UpstreamUser) => user.id ?? Number.parseInt(createHash('sha256').update(user.email).digest('hex').slice(0, 8), 16);
  app.get('/api/user', (c) => {
    const user = who(c.req.header('authorization'));
    return user ? c.json({ id: userId(user), login: user.email.split('@')[0], name: 'Test Person' }) : c.json({ message: 'Bad credentials' }, 401);
  });
  app.get('/api/user/emails', (c) => {
    const user = who(c.req.header('authorization'));
    return user
      ? c.json([{ email: user.email, verified: user.emailVerified ?? true, primary: true, visibility: 'private' }, { email: 'unverified@elsewhere.example', verified: false, primary: false }])
      : c.json({ message: 'Bad credentials' }, 401);
  });
  app.get('/api/user/orgs', (c) => {
    const user = who(c.req.header('authorization'));
    if (!user) return c.json({ message: 'Bad credentials' }, 401);
    const perPage = Math.min(100, Number(c.req.query('per_page') ?? 30));
    const page = Number(c.req.query('page') ?? 1);
    const orgs = user.orgs ?? [];
    const lastPage = Math.max(1, Math.ceil(orgs.length / perPage));
    if (page < lastPage) {
      const link = (n: number) => {
        const target = new URL(c.req.url);
        target.searchParams.set('page', String(n));
        return target.href;
      };
      c.header('link', `<${link(page + 1)}>; rel="next", <${link(lastPage)}>; rel="last"`);
    }
    return c.json(orgs.slice((page - 1) * perPage, page * perPage).map(({ id, login }) => ({ id, login, url: `https://api.example/orgs/${login}` })));
  });
  const port = await freePort();
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port }, () => resolve(s as Server));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    apiUrl: `${url}/api`,
    revoke: (email) => void revoked.add(email),
    outage,
    get user() { return state.user; },
    set user(user) { state.user = user; },
    close: () => closeServer(server),
  };
}

/** A browser: follows redirects across origins with a cookie jar, until `stopAt` is reached. */
export class Browser {
  readonly #cookies = new Map<string, Map<string, string>>();
  /** Every Set-Cookie line received, with its attributes, oldest first. */
  readonly setCookies: string[] = [];
  /** Every URL requested, oldest first. */
  readonly visited: string[] = [];

  #store(url: URL, response: Response) {
    const jar = this.#cookies.get(url.host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a) || /^\s*max-age=0/i.test(a));
      if (expired) jar.delete(name!.trim());
      else jar.set(name!.trim(), value.join('='));
    }
    this.#cookies.set(url.host, jar);
  }

  /** The value of cookie `name` this browser holds for `url`'s host, if any. */
  cookie(url: string, name: string): string | undefined {
    return this.#cookies.get(new URL(url).host)?.get(name);
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    this.visited.push(target.href);
    const jar = this.#cookies.get(target.host);
    const headers = new Headers(init.headers);
    if (jar && jar.size > 0) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    this.#store(target, response);
    return response;
  }

  /**
   * Follows redirects from `url`. Returns the first URL that starts with `stopAt` (the client's
   * redirect URI), or the page the chain ended on.
   */
  async follow(url: string, stopAt: string, init: RequestInit = {}): Promise<{ redirect?: URL; page?: Response }> {
    let next = url;
    let request = init;
    for (let hops = 0; hops < 20; hops++) {
      if (next.startsWith(stopAt)) return { redirect: new URL(next) };
      const response = await this.request(next, request);
      request = {};
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        next = new URL(location, next).href;
        continue;
      }
      return { page: response };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /**
   * Follows `url` to a page that stops the sign-in (status `status`), and posts its form, as a person
   * choosing "Return to the app" does; returns the page's HTML and where the app was sent back to.
   */
  async returnToApp(url: string, stopAt: string, status: number): Promise<{ html: string; redirect?: URL }> {
    const first = await this.follow(url, stopAt);
    if (first.redirect) throw new Error(`expected a page, went back to the app: ${first.redirect.href}`);
    const html = await first.page!.text();
    if (first.page!.status !== status) throw new Error(`expected HTTP ${status}, got ${first.page!.status}: ${html.slice(0, 300)}`);
    const back = consentForm(html);
    if (back === undefined) throw new Error(`no form to return to the app: ${html.slice(0, 300)}`);
    const after = await this.follow(new URL(back.action, url).href, stopAt, form({ csrf: back.csrf }));
    return { html, redirect: after.redirect };
  }

  /** Signs in through `url` and answers the consent page with `decision`; returns the redirect to the client. */
  async authorize(url: string, stopAt: string, { decision = 'allow', csrf = true }: { decision?: 'allow' | 'deny'; csrf?: boolean } = {}): Promise<URL> {
    const first = await this.follow(url, stopAt);
    if (first.redirect) return first.redirect;
    const html = await first.page!.text();
    const form = consentForm(html);
    if (form === undefined) throw new Error(`expected the consent page, got HTTP ${first.page!.status}: ${html.slice(0, 300)}`);
    const body = new URLSearchParams({ decision, ...(csrf ? { csrf: form.csrf } : {}) });
    const pageUrl = new URL(first.page!.url || url);
    const after = await this.follow(new URL(form.action, pageUrl.origin).href, stopAt, {
      method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    if (after.redirect) return after.redirect;
    throw new Error(`the consent POST ended on HTTP ${after.page!.status}: ${(await after.page!.text()).slice(0, 300)}`);
  }
}

/** The page's first POST form with a CSRF token: the consent form, or a "Return to the app" form. */
export function consentForm(html: string): { action: string; csrf: string } | undefined {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  return action && csrf ? { action: action.replace(/&amp;/g, '&'), csrf } : undefined;
}

/** The redirect URI the test clients register: a native client's loopback callback, as Claude Code's. */
export const CLIENT_REDIRECT_URI = 'http://localhost:33418/callback';

/** Where a client reaches the authorization server (and, at url + '/mcp', the resource). */
export interface ServerAddress {
  url: string;
}

export const form = (fields: Record<string, string>) => ({
  method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

export interface Registered { client_id: string; client_secret?: string }
export interface TokenResponse { access_token?: string; refresh_token?: string; error?: string; error_description?: string }

/** Dynamic client registration (RFC 7591) of a client with CLIENT_REDIRECT_URI; throws unless 201. */
export async function register(server: ServerAddress, method: 'none' | 'client_secret_post' | 'client_secret_basic'): Promise<Registered> {
  const response = await fetch(`${server.url}/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Claude', redirect_uris: [CLIENT_REDIRECT_URI], token_endpoint_auth_method: method, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
  });
  if (response.status !== 201) throw new Error(`registration answered HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as Registered;
}

export function authorizeUrl(server: ServerAddress, clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({
    response_type: 'code', client_id: clientId, redirect_uri: CLIENT_REDIRECT_URI, scope: 'mcp offline_access', state: 'xyz',
    code_challenge: challenge, code_challenge_method: 'S256', resource: `${server.url}/mcp`, ...extra,
  });
  return `${server.url}/authorize?${params}`;
}

export async function tokenRequest(server: ServerAddress, client: Registered, fields: Record<string, string>): Promise<{ status: number; body: TokenResponse }> {
  const response = await fetch(`${server.url}/token`, form({ client_id: client.client_id, ...(client.client_secret ? { client_secret: client.client_secret } : {}), ...fields }));
  return { status: response.status, body: (await response.json()) as TokenResponse };
}

/** The status of an initialize on /mcp with `accessToken`: 200 when the token is accepted, 401 when not. */
export async function mcpStatus(server: ServerAddress, accessToken: string): Promise<number> {
  const response = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await response.body?.cancel();
  return response.status;
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface SignInServer {
  url: string;
  mcpUrl: URL;
  config: Config;
  store: Store;
  app: CorpusApp;
  rawLog(): string;
  close(): Promise<void>;
}

/** LOGIN_* for an OIDC `upstream` that signs `client` in, admitting any address at example.com. */
export function oidcSignInEnv(upstream: Upstream, client: { id: string; secret: string }, authSecret: string): Record<string, string> {
  return {
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: client.id, LOGIN_CLIENT_SECRET: client.secret,
    ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: authSecret,
  };
}

export interface SignInWithUpstream { server: SignInServer; upstream: Upstream; port: number; close(): Promise<void> }

/** A sign-in server (oidcSignInEnv) and its OIDC upstream, on a free port, storing in a fresh folder named from `tmpPrefix`. */
export async function startSignInWithOidcUpstream(
  client: { id: string; secret: string },
  authSecret: string,
  { tmpPrefix, tuning }: { tmpPrefix: string; tuning?: AssembleOptions['signInTuning'] },
): Promise<SignInWithUpstream> {
  const port = await freePort();
  const dataDir = join(await mkdtemp(join(tmpdir(), tmpPrefix)), 'auth');
  const upstream = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, client);
  const server = await startSignInServer(oidcSignInEnv(upstream, client, authSecret), { port, dataDir, ...(tuning ? { tuning } : {}) });
  return {
    server, upstream, port,
    async close() {
      await server.close();
      await upstream.close();
      await rm(join(dataDir, '..'), { recursive: true, force: true });
    },
  };
}

/** corpus-mcp with LOGIN_* from `env`, on `port` (so a restart keeps PUBLIC_URL), storing in `dataDir`. */
export async function startSignInServer(
  env: Record<string, string>,
  { port, dataDir, tuning, openAuthStore }: {
    port: number; dataDir: string; tuning?: AssembleOptions['signInTuning'];
    /** Where the authorization server stores; default the embedded store in `dataDir`. */
    openAuthStore?: () => Promise<Store>;
  },
): Promise<SignInServer> {
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({ PUBLIC_URL: url, AUTH_DATA_DIR: dataDir, ...env });
  const corpusDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-signin-'));
  await writeCorpusFiles(corpusDir);
  const corpus = await loadCorpus(corpusDir);
  const holder = new IndexHolder();
  holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (chunk: string) => void raw.push(chunk) } });
  const store = openAuthStore ? await openAuthStore() : await openStore({ dataDir: config.auth.login!.dataDir });
  const { app: honoApp, mcp, attach } = assembleServer({ config, semantic: semanticServiceFromConfig(config.semantic, logger), holder, logger, authStore: store, createSignIn, ...(tuning ? { signInTuning: tuning } : {}) });
  const app: CorpusApp = { app: honoApp, sessions: mcp.sessions, close: () => mcp.close() };
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.app.fetch, hostname: '127.0.0.1', port }, () => resolve(s as Server));
  });
  attach(server);
  return {
    url,
    mcpUrl: new URL(`${url}/mcp`),
    config,
    store,
    app,
    rawLog: () => raw.join(''),
    async close() {
      await app.close();
      await closeServer(server);
      await store.close();
      await rm(corpusDir, { recursive: true, force: true });
    },
  };
}
