// What anonymous callers can make the sign-in store keep, measured from outside over a real listening
// server: oversized free-form /authorize parameters are refused before anything is stored, and the
// records a sign-in in progress leaves (Interaction, UpstreamLogin) are bounded in number and live
// minutes. Both stores: the embedded SQLite (auth.sqlite and its WAL) and a shared PostgreSQL.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION_PARAMETER_LIMITS } from '../src/auth/server/authorization-request-limits.js';
import { openPostgresStore } from '../src/store/open-postgres-store.js';
import { authorizeUrl, Browser, CLIENT_REDIRECT_URI, freePort, pkcePair, register, startOidcUpstream, startSignInServer } from './support/sign-in.js';
import type { SignInServer, Upstream } from './support/sign-in.js';
import { createTestDatabase } from './support/postgres.js';
import type { TestDatabase } from './support/postgres.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };
/**
 * The audit's figures: 300 requests, each with a 12,000-character `state`. Random characters, as an
 * attacker would send: PostgreSQL compresses a repeated one to almost nothing and would hide the growth.
 */
const FLOOD = 300;
const HUGE_STATE = randomBytes(9_000).toString('base64url');
/** "Within a few hundred KB of where it began". */
const ALLOWED_GROWTH_BYTES = 300 * 1024;

interface Started { server: SignInServer; upstream: Upstream; dataDir: string }

async function start(options: { openAuthStore?: () => ReturnType<typeof openPostgresStore>; maxPendingSignIns?: number } = {}): Promise<Started> {
  const port = await freePort();
  const dataDir = join(await mkdtemp(join(tmpdir(), 'corpus-store-bounds-')), 'auth');
  const upstream = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, UPSTREAM_CLIENT);
  const env = {
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
    ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: SECRET,
  };
  const tuning = options.maxPendingSignIns === undefined ? undefined : { maxPendingSignIns: options.maxPendingSignIns };
  const server = await startSignInServer(env, {
    port, dataDir, ...(options.openAuthStore ? { openAuthStore: options.openAuthStore } : {}), ...(tuning ? { tuning } : {}),
  });
  return { server, upstream, dataDir };
}

async function stop(s: Started | undefined) {
  await s?.server.close();
  await s?.upstream.close();
  if (s) await rm(join(s.dataDir, '..'), { recursive: true, force: true });
}

/** GET without following redirects; the body is dropped. */
async function get(url: string): Promise<{ status: number; location: string | null }> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  return { status: response.status, location: response.headers.get('location') };
}

/** Sends the flood one request at a time; returns every answer. */
async function flood(s: Started, clientId: string): Promise<{ status: number; location: string | null }[]> {
  const { challenge } = pkcePair();
  const answers = [];
  for (let i = 0; i < FLOOD; i++) answers.push(await get(authorizeUrl(s.server, clientId, challenge, { state: HUGE_STATE })));
  return answers;
}

/** Every answer sent the browser back to the client with `invalid_request` naming `state`, never to a sign-in. */
function expectRefused(answers: { status: number; location: string | null }[]) {
  const summary = answers.map(({ status, location }) => {
    const url = location === null ? undefined : new URL(location, 'http://x');
    return { status, to: (url?.origin ?? '') + (url?.pathname.replace(/^\/interaction\/.*/, '/interaction/…') ?? ''), error: url?.searchParams.get('error'), says: url?.searchParams.get('error_description')?.includes('state') };
  });
  expect(new Set(summary.map((s) => JSON.stringify(s)))).toEqual(new Set([
    JSON.stringify({ status: 303, to: CLIENT_REDIRECT_URI, error: 'invalid_request', says: true }),
  ]));
}

const fileBytes = async (path: string) => (await stat(path).catch(() => undefined))?.size ?? 0;
const sqliteBytes = async (dataDir: string) => (await fileBytes(join(dataDir, 'auth.sqlite'))) + (await fileBytes(join(dataDir, 'auth.sqlite-wal')));

describe('anonymous /authorize against the embedded store (auth.sqlite and its WAL)', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => {
    await stop(s);
  });

  it(`refuses ${FLOOD} requests with a 12,000-character state with invalid_request, and the files stay within a few hundred KB`, async () => {
    const client = await register(s.server, 'none');
    const before = await sqliteBytes(s.dataDir);
    const answers = await flood(s, client.client_id);
    const after = await sqliteBytes(s.dataDir);
    console.log(`sqlite: auth.sqlite + WAL ${before} bytes before, ${after} after ${FLOOD} requests with a ${HUGE_STATE.length}-character state (${after - before} bytes grown)`);
    expectRefused(answers);
    expect(await s.server.store.list('Interaction')).toEqual([]);
    expect(after - before).toBeLessThan(ALLOWED_GROWTH_BYTES);
  });

  it('still starts a sign-in whose free-form parameters are at their limits, and stores it in a bounded record', async () => {
    const client = await register(s.server, 'none');
    const { challenge } = pkcePair();
    const { stateChars, otherChars } = AUTHORIZATION_PARAMETER_LIMITS;
    const random = (chars: number) => randomBytes(chars).toString('base64url').slice(0, chars);
    // acr_values, nonce and the locales come with an OpenID request.
    const extra = { scope: 'openid email mcp offline_access', state: random(stateChars), nonce: random(otherChars), login_hint: random(otherChars), acr_values: random(otherChars), ui_locales: random(otherChars), claims_locales: random(otherChars) };
    const answer = await get(authorizeUrl(s.server, client.client_id, challenge, extra));
    expect(answer.status).toBe(303);
    expect(new URL(answer.location!, s.server.url).pathname).toMatch(/^\/interaction\//);
    const [interaction] = await s.server.store.list('Interaction');
    const bytes = Buffer.byteLength(JSON.stringify(interaction!.payload));
    console.log(`an Interaction with its free-form parameters at their limits (${Object.values(extra).join('').length} characters in all): ${bytes} bytes of payload`);
    expect(bytes).toBeLessThan(10_000);
  });
});

describe('anonymous /authorize against the shared store (PostgreSQL)', () => {
  let db: TestDatabase;
  let s: Started;
  beforeAll(async () => {
    db = await createTestDatabase('corpus_store_bounds');
    s = await start({ openAuthStore: () => openPostgresStore({ databaseUrl: db.url }) });
  });
  afterAll(async () => {
    await stop(s);
    await db?.drop();
  });

  it(`refuses ${FLOOD} requests with a 12,000-character state with invalid_request, and the table stays within a few hundred KB`, async () => {
    const client = await register(s.server, 'none');
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      const size = async () => Number((await sql.query("SELECT pg_total_relation_size('auth_records') AS bytes")).rows[0].bytes);
      const before = await size();
      const answers = await flood(s, client.client_id);
      const after = await size();
      console.log(`postgres: auth_records ${before} bytes before, ${after} after ${FLOOD} requests with a ${HUGE_STATE.length}-character state (${after - before} bytes grown)`);
      expectRefused(answers);
      expect((await sql.query("SELECT count(*)::int AS n FROM auth_records WHERE kind = 'Interaction'")).rows[0].n).toBe(0);
      expect(after - before).toBeLessThan(ALLOWED_GROWTH_BYTES);
    } finally {
      await sql.end();
    }
  });
});

describe('sign-ins in progress', () => {
  const CAP = 5;
  let s: Started;
  beforeAll(async () => {
    s = await start({ maxPendingSignIns: CAP });
  });
  afterAll(async () => {
    await stop(s);
  });

  it(`keeps at most ${CAP} pending interactions and upstream logins, the newest, each for minutes`, async () => {
    const client = await register(s.server, 'none');
    const { challenge } = pkcePair();
    // Each with its own browser (its interaction cookie); each sign-in page visited twice, and each
    // visit starts an upstream login of its own.
    const interactions: { browser: Browser; url: string }[] = [];
    for (let i = 0; i < CAP * 3; i++) {
      const browser = new Browser();
      const answer = await browser.request(authorizeUrl(s.server, client.client_id, challenge));
      await answer.body?.cancel();
      expect(answer.status).toBe(303);
      interactions.push({ browser, url: new URL(answer.headers.get('location')!, s.server.url).href });
    }
    const visit = async ({ browser, url }: { browser: Browser; url: string }) => {
      const answer = await browser.request(url);
      await answer.body?.cancel();
      return answer.status;
    };
    for (const interaction of interactions.slice(-CAP)) {
      expect(await visit(interaction)).toBe(303);
      expect(await visit(interaction)).toBe(303);
    }
    const pendingInteractions = await s.server.store.list('Interaction');
    const upstreamLogins = await s.server.store.list('UpstreamLogin');
    expect(pendingInteractions.length).toBe(CAP);
    expect(upstreamLogins.length).toBe(CAP);
    const latest = Date.now() + 10 * 60_000 + 5_000;
    for (const record of [...pendingInteractions, ...upstreamLogins]) expect(record.expiresAt).toBeLessThan(latest);
    // The newest sign-in still goes on upstream; the oldest has been let go.
    expect(await visit(interactions.at(-1)!)).toBe(303);
    expect(await visit(interactions[0]!)).toBe(400);
  });
});

describe('the authorization server metadata', () => {
  let s: Started;
  beforeAll(async () => {
    s = await start();
  });
  afterAll(async () => {
    await stop(s);
  });

  it('advertises no pushed authorization request endpoint, which it does not serve', async () => {
    const metadata = (await (await fetch(`${s.server.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(metadata.authorization_endpoint).toBe(`${s.server.url}/authorize`);
    expect(metadata).not.toHaveProperty('pushed_authorization_request_endpoint');
  });
});
