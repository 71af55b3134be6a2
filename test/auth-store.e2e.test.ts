// What the built-in authorization server leaves in its store, seen from outside over a real server
// and a real sign-in: anonymous registrations are bounded in size, and no token, code or session id
// it hands out is stored as issued, neither in the SQLite files (AUTH_DATA_DIR, owner-only) nor in
// PostgreSQL's rows.
import { readdir, readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/store/open-postgres-store.js';
import {
  authorizeUrl, Browser, CLIENT_REDIRECT_URI as REDIRECT, freePort, mcpStatus, pkcePair, register, startOidcUpstream, startSignInServer, tokenRequest,
} from './helpers/sign-in.js';
import type { SignInServer, Upstream } from './helpers/sign-in.js';
import { createTestDatabase } from './support/postgres.js';
import type { TestDatabase } from './support/postgres.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };

interface Started { server: SignInServer; upstream: Upstream; dataDir: string; closed?: boolean }

async function start(openAuthStore?: Parameters<typeof startSignInServer>[1]['openAuthStore']): Promise<Started> {
  const port = await freePort();
  const dataDir = join(await mkdtemp(join(tmpdir(), 'corpus-auth-store-')), 'auth');
  const upstream = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, UPSTREAM_CLIENT);
  upstream.user = { email: 'ada@example.com' };
  const env = {
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
    ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: SECRET,
  };
  const server = await startSignInServer(env, { port, dataDir, ...(openAuthStore ? { openAuthStore } : {}) });
  return { server, upstream, dataDir };
}

async function stop({ server, upstream, dataDir, closed }: Started) {
  if (!closed) await server?.close();
  await upstream?.close();
  await rm(join(dataDir, '..'), { recursive: true, force: true });
}

/**
 * A full sign-in, a refresh and a second refresh; returns every secret the server handed out: the
 * code, the access and refresh tokens of each step, and the sign-in session's cookie value.
 */
async function signInAndRefresh(server: SignInServer): Promise<Record<string, string>> {
  const client = await register(server, 'none');
  const { verifier, challenge } = pkcePair();
  const browser = new Browser();
  const back = await browser.authorize(authorizeUrl(server, client.client_id, challenge), REDIRECT);
  const code = back.searchParams.get('code')!;
  const first = await tokenRequest(server, client, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier });
  expect(first.status).toBe(200);
  const second = await tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: first.body.refresh_token! });
  expect(second.status).toBe(200);
  expect(await mcpStatus(server, second.body.access_token!)).toBe(200);
  const session = browser.cookie(server.url, '_session');
  expect(session).toBeTruthy();
  return {
    code, session: session!,
    'first access token': first.body.access_token!, 'first refresh token': first.body.refresh_token!,
    'second access token': second.body.access_token!, 'second refresh token': second.body.refresh_token!,
  };
}

/** The secrets found in `haystack`, by name. */
const found = (haystack: Buffer, secrets: Record<string, string>) => Object.keys(secrets).filter((name) => haystack.includes(secrets[name]!));

describe('the embedded store (AUTH_DATA_DIR)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => {
    await stop(s);
  });

  it('keeps its folder 0700 and its files 0600, and stores no token, code or session id as issued', async () => {
    const secrets = await signInAndRefresh(s.server);
    const files = await readdir(s.dataDir);
    expect(files.sort()).toEqual(['auth.sqlite', 'auth.sqlite-shm', 'auth.sqlite-wal']);
    expect(((await stat(s.dataDir)).mode & 0o777).toString(8)).toBe('700');
    for (const file of files) expect([file, ((await stat(join(s.dataDir, file))).mode & 0o777).toString(8)]).toEqual([file, '600']);
    // The WAL holds the newest pages while the server runs; closing checkpoints them into the database.
    const bytes = async () => Buffer.concat(await Promise.all((await readdir(s.dataDir)).map((f) => readFile(join(s.dataDir, f)))));
    expect(found(await bytes(), secrets)).toEqual([]);
    await s.server.close();
    s.closed = true;
    expect(found(await bytes(), secrets)).toEqual([]);
  });
});

describe('the shared store (PostgreSQL)', () => {
  let db: TestDatabase;
  let s: Started;
  beforeAll(async () => {
    db = await createTestDatabase('corpus_auth_store');
    s = await start(() => openPostgresStore({ databaseUrl: db.url }));
  });
  afterAll(async () => {
    await stop(s);
    await db?.drop();
  });

  it('stores no token, code or session id as issued in any row, and no row without an expiry', async () => {
    const secrets = await signInAndRefresh(s.server);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT * FROM auth_records');
      expect(rows.map((r: { kind: string }) => r.kind)).toEqual(expect.arrayContaining(['Grant', 'RefreshToken', 'Session', 'Client']));
      expect(found(Buffer.from(JSON.stringify(rows)), secrets)).toEqual([]);
      // And every record expires, so the sweep reclaims it.
      expect(rows.filter((r: { expires_at: unknown }) => r.expires_at === null).map((r: { kind: string }) => r.kind)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

describe('dynamic client registration limits', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => {
    await stop(s);
  });

  const long = (n: number) => 'x'.repeat(n);
  const base = { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] };
  it.each([
    { name: 'a client_name of 201 characters', metadata: { client_name: long(201) }, error: 'invalid_client_metadata', field: 'client_name' },
    { name: '11 redirect URIs', metadata: { redirect_uris: Array.from({ length: 11 }, (_, i) => `http://localhost:${1000 + i}/cb`) }, error: 'invalid_redirect_uri', field: 'redirect_uris' },
    { name: 'a redirect URI of 2001 characters', metadata: { redirect_uris: [`https://app.example/${long(1981)}`] }, error: 'invalid_redirect_uri', field: 'redirect_uris' },
    { name: 'a logo_uri of 2001 characters', metadata: { logo_uri: `https://app.example/${long(1981)}` }, error: 'invalid_client_metadata', field: 'logo_uri' },
    { name: '11 contacts', metadata: { contacts: Array.from({ length: 11 }, (_, i) => `p${i}@example.com`) }, error: 'invalid_client_metadata', field: 'contacts' },
  ])('refuses $name with 400 $error and stores nothing', async ({ metadata, error, field }) => {
    const before = (await s.server.store.list('Client')).length;
    const response = await fetch(`${s.server.url}/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Claude', ...base, ...metadata }),
    });
    expect(response.status).toBe(400);
    const body = await response.json() as { error: string; error_description: string };
    expect(body.error).toBe(error);
    expect(body.error_description).toContain(field);
    expect((await s.server.store.list('Client')).length).toBe(before);
  });

  it('still registers a client such as Claude, at the limits', async () => {
    const client = await register(s.server, 'none');
    expect(client.client_id).toBeTruthy();
    const response = await fetch(`${s.server.url}/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...base, client_name: long(200), redirect_uris: Array.from({ length: 10 }, (_, i) => `http://localhost:${1000 + i}/cb`) }),
    });
    expect(response.status).toBe(201);
    // RFC 7592 management is off: no registration access token is issued or stored.
    expect(await response.json()).not.toHaveProperty('registration_access_token');
    expect(await s.server.store.list('RegistrationAccessToken')).toEqual([]);
  });
});
