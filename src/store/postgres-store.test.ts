// The shared store on a real PostgreSQL server (a database of its own per run, dropped afterwards):
// the same contract as the embedded store, plus what only a shared server shows: two replicas
// migrating at once, and an atomic consume seen from two connections.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { describeStoreContract } from '../../test/support/store-contract.js';
import { createTestDatabase } from '../../test/support/postgres.js';
import type { TestDatabase } from '../../test/support/postgres.js';
import { openPostgresStore } from './open-postgres-store.js';
import type { Store } from './store.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

describeStoreContract('shared store (PostgreSQL)', async (now) => {
  const store = await openPostgresStore({ databaseUrl: db.url, now });
  // Each contract test starts from an empty store.
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('TRUNCATE auth_records');
  await client.end();
  return store;
});

describe('openPostgresStore', () => {
  it('migrates idempotently when several replicas boot at once (advisory lock)', async () => {
    const fresh = await createTestDatabase('corpus_migrate');
    const admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    const stores: Store[] = [];
    try {
      // Several rounds of six replicas booting together on an empty database: none may fail.
      for (let round = 0; round < 5; round += 1) {
        await admin.query('DROP TABLE IF EXISTS auth_records');
        const booted = await Promise.all(Array.from({ length: 6 }, () => openPostgresStore({ databaseUrl: fresh.url })));
        await Promise.all(booted.map((s) => s.close()));
      }
      stores.push(await openPostgresStore({ databaseUrl: fresh.url }), await openPostgresStore({ databaseUrl: fresh.url }));
      await stores[0]!.put('Client', 'c1', { name: 'claude' });
      // Every replica sees the one table, and booting again changes nothing.
      stores.push(await openPostgresStore({ databaseUrl: fresh.url }));
      for (const store of stores) expect((await store.get('Client', 'c1'))?.payload).toEqual({ name: 'claude' });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await admin.end();
      await fresh.drop();
    }
  });

  it('without the lock, concurrent boots can collide: the test above can see the problem', async () => {
    const fresh = await createTestDatabase('corpus_nolock');
    const { SCHEMA_SQL } = await import('./schema.js');
    const clients = Array.from({ length: 6 }, () => new pg.Client({ connectionString: fresh.url }));
    try {
      await Promise.all(clients.map((c) => c.connect()));
      // Many rounds of plain concurrent CREATE … IF NOT EXISTS: PostgreSQL fails some with a
      // duplicate key in its catalog; the advisory lock is what prevents that.
      let collisions = 0;
      for (let round = 0; round < 10 && collisions === 0; round += 1) {
        await clients[0]!.query('DROP TABLE IF EXISTS auth_records');
        const results = await Promise.allSettled(clients.map((c) => c.query(SCHEMA_SQL)));
        collisions += results.filter((r) => r.status === 'rejected').length;
      }
      expect(collisions).toBeGreaterThan(0);
    } finally {
      await Promise.all(clients.map((c) => c.end().catch(() => {})));
      await fresh.drop();
    }
  });

  it('consumes a record exactly once when two replicas race for it', async () => {
    const [a, b] = [await openPostgresStore({ databaseUrl: db.url }), await openPostgresStore({ databaseUrl: db.url })];
    try {
      for (let i = 0; i < 20; i += 1) {
        await a.put('AuthorizationCode', `race-${i}`, {}, { expiresAt: Date.now() + 60_000 });
        const [x, y] = await Promise.all([a.consume('AuthorizationCode', `race-${i}`, 1000 + i), b.consume('AuthorizationCode', `race-${i}`, 2000 + i)]);
        // Both learn the first consumption time; exactly one of them set it.
        expect(x).toBe(y);
        expect([1000 + i, 2000 + i]).toContain(x);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('names the server, never the password, when it cannot connect', async () => {
    const error = await openPostgresStore({ databaseUrl: 'postgres://user:s3cret-pw@127.0.0.1:1/nowhere', connectTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'store_unavailable', message: expect.stringContaining('127.0.0.1:1/nowhere') });
    expect(String((error as Error).message)).not.toContain('s3cret-pw');
  });
});
