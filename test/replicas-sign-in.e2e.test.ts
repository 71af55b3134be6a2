// Team sign-in on two replicas of the real process (src/main.ts) that share only DATABASE_URL (a real
// PostgreSQL database of its own), AUTH_SECRET and SESSION_SECRET, behind a round-robin proxy whose
// address is their PUBLIC_URL, signing people in through a real upstream OpenID provider. What one
// replica issues, the other honours exactly once: an authorization code issued on A is redeemed on B
// and never again on either; a refresh token rotated on A and replayed on B works inside
// REFRESH_TOKEN_GRACE and, after it, revokes the whole grant on both. The negative control runs the
// same replicas on separate embedded stores, where B cannot redeem A's code.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, Browser, CLIENT_REDIRECT_URI, mcpStatus, pkcePair, register, startOidcUpstream, tokenRequest } from './support/sign-in.js';
import type { Registered, ServerAddress, TokenResponse, Upstream } from './support/sign-in.js';
import { createTestDatabase } from './support/postgres.js';
import type { TestDatabase } from './support/postgres.js';
import { startRoundRobinProxy } from './support/round-robin-proxy.js';
import type { RoundRobinProxy } from './support/round-robin-proxy.js';
import { writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';

const LOOPBACK = '127.0.0.1';
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };
/** Short, so the test can wait it out; a step that misses it on a loaded machine is started again. */
const GRACE_SECONDS = 3;
/** How many times the rotate-and-replay step is started again when a loaded machine missed the window. */
const MAX_WINDOW_ATTEMPTS = 5;
const A = 0;
const B = 1;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase('corpus_signin');
});
afterAll(async () => {
  await db?.drop();
});

const cleanups: Array<() => Promise<void> | void> = [];
async function cleanUp() {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await cleanUpSpawnedServers();
}

interface Replicas {
  proxy: RoundRobinProxy;
  /** The proxy, as clients reach the service: PUBLIC_URL of both replicas. */
  service: ServerAddress;
  /** Sends every following request through the proxy to `slot` alone (the other is out of rotation). */
  only(slot: number): ServerAddress;
  /** Which replica answered the last request the proxy forwarded. */
  lastServedBy(): number;
}

/**
 * Two replica processes with team sign-in behind a round-robin proxy that keeps the client's Host, so
 * both build their URLs for PUBLIC_URL. `shared`: both on the test database; otherwise each on an
 * embedded store of its own (AUTH_DATA_DIR).
 */
async function startReplicas({ shared }: { shared: boolean }): Promise<Replicas> {
  // The replicas' ports are known only once they listen; the proxy (whose URL they need) starts first.
  const proxy = await startRoundRobinProxy([{ host: LOOPBACK, port: 1 }, { host: LOOPBACK, port: 1 }], { preserveHost: true });
  cleanups.push(() => proxy.close());
  const upstream: Upstream = await startOidcUpstream(`${proxy.url}/oauth/callback`, UPSTREAM_CLIENT);
  cleanups.push(() => upstream.close());
  upstream.user = { email: 'ada@example.com' };
  const scratch = await mkdtemp(join(tmpdir(), 'corpus-mcp-replica-signin-'));
  cleanups.push(() => rm(scratch, { recursive: true, force: true }));
  const corpusDir = join(scratch, 'corpus');
  await writeCorpusFiles(corpusDir);
  const env = (slot: number) => ({
    PUBLIC_URL: proxy.url,
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
    ALLOWED_EMAIL_DOMAINS: 'example.com',
    AUTH_SECRET: 'replica-sign-in-auth-secret-0123456789abcdef',
    SESSION_SECRET: 'replica-sign-in-session-secret-0123456789abc',
    REFRESH_TOKEN_GRACE: String(GRACE_SECONDS),
    ...(shared ? { DATABASE_URL: db.url } : { AUTH_DATA_DIR: join(scratch, `data-${slot}`) }),
  });
  const replicas = await Promise.all([A, B].map((slot) => spawnServer(env(slot), { corpusDir, readyWithinMs: 90_000 }) /* two sign-in processes at once */));
  replicas.forEach((replica, slot) => (proxy.backends[slot] = { host: LOOPBACK, port: replica.port }));
  const service = { url: proxy.url };
  return {
    proxy,
    service,
    only(slot) {
      proxy.setOutOfRotation(slot, false);
      proxy.setOutOfRotation(1 - slot, true);
      return service;
    },
    lastServedBy: () => proxy.log.at(-1)!.backend,
  };
}

/** Registers a client and signs Ada in through the browser on `server`; returns the code, unredeemed. */
async function authorize(server: ServerAddress): Promise<{ client: Registered; code: string; verifier: string }> {
  const client = await register(server, 'none');
  const { verifier, challenge } = pkcePair();
  const back = await new Browser().authorize(authorizeUrl(server, client.client_id, challenge), CLIENT_REDIRECT_URI);
  const code = back.searchParams.get('code');
  if (code === null) throw new Error(`no code in ${back.href}`);
  return { client, code, verifier };
}

const redeem = (server: ServerAddress, { client, code, verifier }: { client: Registered; code: string; verifier: string }) =>
  tokenRequest(server, client, { grant_type: 'authorization_code', code, redirect_uri: CLIENT_REDIRECT_URI, code_verifier: verifier });

const refresh = (server: ServerAddress, client: Registered, tokens: TokenResponse) =>
  tokenRequest(server, client, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });

/** The status /mcp gives `accessToken` on each replica, A then B. */
const accessOnEach = async (replicas: Replicas, accessToken: string) => [await mcpStatus(replicas.only(A), accessToken), await mcpStatus(replicas.only(B), accessToken)];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('team sign-in across two replicas sharing PostgreSQL', { timeout: 90_000 }, () => {
  // One pair for the describe: each test registers a client of its own, so tests share nothing else.
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas({ shared: true });
  }, 180_000);
  afterAll(cleanUp);

  it('completes a sign-in whose steps alternate between the replicas', async () => {
    replicas.proxy.setOutOfRotation(A, false);
    replicas.proxy.setOutOfRotation(B, false);
    const first = replicas.proxy.log.length;
    const grant = await authorize(replicas.service);
    const steps = replicas.proxy.log.slice(first).map((entry) => entry.backend);
    expect(new Set(steps)).toEqual(new Set([A, B]));
    const { status, body } = await redeem(replicas.service, grant);
    expect(status).toBe(200);
    expect(await accessOnEach(replicas, body.access_token!)).toEqual([200, 200]);
  });

  it('redeems on B the authorization code issued on A, and refuses a second redemption on either replica', async () => {
    const grant = await authorize(replicas.only(A));
    expect(replicas.lastServedBy()).toBe(A); // the redirect carrying the code came from A
    const redeemed = await redeem(replicas.only(B), grant);
    expect(replicas.lastServedBy()).toBe(B);
    expect(redeemed.status).toBe(200);
    expect(redeemed.body.access_token).toEqual(expect.any(String));
    expect(await accessOnEach(replicas, redeemed.body.access_token!)).toEqual([200, 200]);

    for (const slot of [B, A]) {
      const again = await redeem(replicas.only(slot), grant);
      expect(replicas.lastServedBy()).toBe(slot);
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('invalid_grant');
      expect(again.body.access_token).toBeUndefined();
    }
  });

  it('honours on B a refresh token rotated on A inside the grace window, and after it revokes the whole grant on both replicas', { timeout: 240_000 }, async () => {
    // "Inside the window" is measured from before the rotation is sent to after B answers, so it can only
    // overstate the time the server saw. When a loaded machine took longer than the window, the step
    // proves nothing about the window and is run again on a new grant, whatever B answered.
    let step: { client: Registered; original: TokenResponse; rotated: TokenResponse; retried: TokenResponse; rotatedBy: number } | undefined;
    for (let attempt = 1; step === undefined && attempt <= MAX_WINDOW_ATTEMPTS; attempt++) {
      const grant = await authorize(replicas.only(A));
      const { body: original } = await redeem(replicas.only(A), grant);
      const startedAt = Date.now();
      const rotated = await refresh(replicas.only(A), grant.client, original);
      const rotatedBy = Date.now();
      expect(rotated.status).toBe(200);
      expect(rotated.body.refresh_token).not.toBe(original.refresh_token);

      // Inside the window: B sees A's rotation (from the store) as recent and answers with tokens of its own.
      const retried = await refresh(replicas.only(B), grant.client, original);
      expect(replicas.lastServedBy()).toBe(B);
      if (Date.now() - startedAt >= GRACE_SECONDS * 1000) continue; // the window was missed: start the step again
      expect(retried.status).toBe(200);
      step = { client: grant.client, original, rotated: rotated.body, retried: retried.body, rotatedBy };
    }
    if (step === undefined) throw new Error(`a rotation and its replay never fitted in ${GRACE_SECONDS} s in ${MAX_WINDOW_ATTEMPTS} attempts`);
    const { client, original, rotated, retried, rotatedBy } = step;
    expect(retried.refresh_token).not.toBe(rotated.refresh_token);
    for (const tokens of [rotated, retried]) expect(await accessOnEach(replicas, tokens.access_token!)).toEqual([200, 200]);

    // After the window: the old token is taken as stolen, on B, and the grant ends everywhere.
    // Counted from when the rotation's answer arrived, so the server's window has surely closed.
    await sleep(rotatedBy + GRACE_SECONDS * 1000 + 500 - Date.now());
    const replayed = await refresh(replicas.only(B), client, original);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toBe('invalid_grant');
    for (const [slot, tokens] of [[A, rotated], [B, retried], [B, rotated], [A, retried]] as const) {
      const newest = await refresh(replicas.only(slot), client, tokens);
      expect(newest.body.error).toBe('invalid_grant');
    }
    for (const tokens of [original, rotated, retried]) expect(await accessOnEach(replicas, tokens.access_token!)).toEqual([401, 401]);
  });
});

describe('negative control: two replicas on separate embedded stores', { timeout: 180_000 }, () => {
  afterEach(cleanUp);

  it('B cannot redeem the authorization code issued on A (A itself can)', async () => {
    const replicas = await startReplicas({ shared: false });
    const grant = await authorize(replicas.only(A));
    const onB = await redeem(replicas.only(B), grant);
    expect(replicas.lastServedBy()).toBe(B);
    expect(onB.status).toBeGreaterThanOrEqual(400);
    expect(onB.body.error).toMatch(/^(invalid_client|invalid_grant)$/); // B has never heard of the client either
    expect(onB.body.access_token).toBeUndefined();
    const onA = await redeem(replicas.only(A), grant);
    expect(onA.status).toBe(200);
  });
});
