// Replicas sharing a real PostgreSQL server (a database of its own per run): a DELETE on one replica
// ends the session on every other, whether it holds the session or not; an unreachable store is a
// 503 to retry, never a 404 that would drop a good session; and two real processes booting at once
// on an empty database both migrate and serve.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { revocationsInStore } from '../src/mcp/sessions/session-revocations.js';
import { openPostgresStore } from '../src/store/open-postgres-store.js';
import type { Store } from '../src/store/store.js';
import { createTestDatabase } from './support/postgres.js';
import type { TestDatabase } from './support/postgres.js';
import { openSession, ping, postMessage } from './support/raw-mcp.js';
import { SAMPLE_FILES, writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer, stopServer as stop } from './support/spawned-server.js';
import { startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';

const SECRET = 'shared-store-test-session-secret-0123456789';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await cleanUpSpawnedServers();
});

/** A replica with its own connection pool to the shared database. */
async function replica(shared = true): Promise<TestServer & { store: Store | undefined }> {
  const store = shared ? await openPostgresStore({ databaseUrl: db.url }) : undefined;
  const server = await startTestServer({ files: SAMPLE_FILES, sessionSecret: SECRET, ...(store ? { sharedRevocations: revocationsInStore(store) } : {}) });
  cleanups.push(async () => {
    await server.close();
    await store?.close().catch(() => {});
  });
  return Object.assign(server, { store });
}

const deleteSession = async (url: URL, sessionId: string) =>
  (await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } })).status;

describe('session revocation shared through PostgreSQL', () => {
  it('DELETE on A, then 404 on B, which held the session live', async () => {
    const [a, b] = [await replica(), await replica()];
    const sessionId = await openSession(a.mcpUrl);
    expect((await ping(b.mcpUrl, sessionId)).status).toBe(200); // B re-creates and holds it
    expect(b.app.sessions.size).toBe(1);
    expect(await deleteSession(a.mcpUrl, sessionId)).toBe(200);
    expect((await ping(b.mcpUrl, sessionId)).status).toBe(404);
    expect(b.app.sessions.size).toBe(0);
    expect((await ping(a.mcpUrl, sessionId)).status).toBe(404);
  });

  it('DELETE on A, then 404 on B and on a third replica that never saw the session, which creates nothing', async () => {
    const [a, b, c] = [await replica(), await replica(), await replica()];
    const sessionId = await openSession(a.mcpUrl);
    // The DELETE itself lands on B, which does not hold the session.
    expect(await deleteSession(b.mcpUrl, sessionId)).toBe(200);
    for (const server of [a, b, c]) expect((await ping(server.mcpUrl, sessionId)).status).toBe(404);
    expect(c.app.sessions.size).toBe(0);
  });

  it('without the shared store, B keeps serving a session deleted on A (the documented limit, and the control for the tests above)', async () => {
    const [a, b] = [await replica(false), await replica(false)];
    const sessionId = await openSession(a.mcpUrl);
    expect(await deleteSession(a.mcpUrl, sessionId)).toBe(200);
    expect((await ping(a.mcpUrl, sessionId)).status).toBe(404);
    expect((await ping(b.mcpUrl, sessionId)).status).toBe(200);
  });

  it('answers 503 with Retry-After, not 404, while the store cannot be reached, and recovers', async () => {
    const a = await replica();
    const sessionId = await openSession(a.mcpUrl);
    await a.store!.close(); // the pool is gone: every statement now fails
    const during = await postMessage(a.mcpUrl, sessionId, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(during.status).toBe(503);
    expect(JSON.parse(during.body)).toMatchObject({ error: { message: expect.stringContaining('session store') } });
  });
});

describe('real processes on a shared PostgreSQL', { timeout: 90_000 }, () => {
  it('two replicas booting at once on an empty database both migrate and serve; a DELETE on one is a 404 on the other', async () => {
    const fresh = await createTestDatabase('corpus_boot');
    cleanups.push(() => fresh.drop());
    const corpusDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-pg-'));
    cleanups.push(() => rm(corpusDir, { recursive: true, force: true }));
    await writeCorpusFiles(corpusDir);
    const env = { SESSION_SECRET: SECRET, DATABASE_URL: fresh.url };
    const [a, b] = await Promise.all([spawnServer(env, { corpusDir }), spawnServer(env, { corpusDir })]);
    for (const server of [a, b]) {
      expect(server.lines.some((l) => l.msg === 'shared store on PostgreSQL: session revocations and sign-in records reach every replica')).toBe(true);
      expect(JSON.stringify(server.lines)).not.toContain(fresh.url);
    }
    const aUrl = new URL(`${a.base}/mcp`);
    const bUrl = new URL(`${b.base}/mcp`);
    const sessionId = await openSession(aUrl);
    expect((await ping(bUrl, sessionId)).status).toBe(200);
    expect(await deleteSession(aUrl, sessionId)).toBe(200);
    expect((await ping(bUrl, sessionId)).status).toBe(404);
    for (const server of [a, b]) expect((await stop(server)).code).toBe(0);
  });

  it('refuses to start, naming the server but not the password, when DATABASE_URL cannot be reached', async () => {
    const corpusDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-pg-'));
    cleanups.push(() => rm(corpusDir, { recursive: true, force: true }));
    await writeCorpusFiles(corpusDir);
    const error = await spawnServer({ DATABASE_URL: 'postgres://u:hunter2-secret@127.0.0.1:1/corpus' }, { corpusDir }).catch((e: unknown) => e);
    expect(String(error)).toContain('127.0.0.1:1/corpus');
    expect(String(error)).not.toContain('hunter2-secret');
  });
});
