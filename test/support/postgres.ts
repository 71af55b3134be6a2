// A PostgreSQL database of its own for each test file, on the run's server (test/support/postgres-server.ts:
// a throwaway one, or TEST_POSTGRES_URL's). Several test runs may share a TEST_POSTGRES_URL server at
// once, so each database gets a unique name and is dropped afterwards.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { eventually } from './eventually.js';
import type { PostgresState } from './postgres-server.js';

const ADMIN_URL = inject('postgresAdminUrl');
const STATE_FILE = inject('postgresStateFile');

let serverUp: Promise<void> | undefined;
/**
 * Resolves once the run's server accepts connections: the throwaway one is still starting while the
 * first test files run (test/support/postgres-server.ts). Throws its output when it failed to start.
 */
function waitForServer(): Promise<void> {
  serverUp ??= STATE_FILE === ''
    ? Promise.resolve()
    : eventually(
        async () => {
          const text = await readFile(STATE_FILE, 'utf8').catch(() => undefined);
          if (text === undefined) return false;
          const state = JSON.parse(text) as PostgresState;
          if (state.state === 'error') throw new Error(state.message);
          return true;
        },
        { what: "the tests' PostgreSQL server to start", timeoutMs: 120_000, intervalMs: 100 },
      );
  return serverUp;
}

export interface TestDatabase {
  /** Connection URL of the fresh, empty database. */
  url: string;
  name: string;
  /** Drops the database, closing whatever is still connected to it. */
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  await waitForServer();
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(prefix = 'corpus_test'): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}
