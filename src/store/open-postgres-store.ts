import { openPostgresClient } from './postgres-client.js';
import type { PostgresClientOptions } from './postgres-client.js';
import { SqlStore } from './sql-store.js';
import type { SqlStoreOptions } from './sql-store.js';
import { StoreError } from './store.js';
import type { Store } from './store.js';

export interface OpenPostgresStoreOptions extends SqlStoreOptions, PostgresClientOptions {
  /** DATABASE_URL: postgres://user:password@host:port/database. */
  databaseUrl: string;
}

/** Where a URL points, without its credentials, for messages. */
const describe = (databaseUrl: string) => {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
};

/**
 * Opens the shared store on a PostgreSQL server and brings its schema up to date (idempotent, one
 * replica at a time). Throws StoreError `store_unavailable` naming the server, never the password.
 */
export async function openPostgresStore({ databaseUrl, now, ...clientOptions }: OpenPostgresStoreOptions): Promise<Store> {
  const sql = openPostgresClient(databaseUrl, clientOptions);
  try {
    return await SqlStore.open(sql, now === undefined ? {} : { now });
  } catch (error) {
    await sql.close().catch(() => {});
    const cause = error instanceof StoreError && error.cause instanceof Error ? error.cause : error;
    throw new StoreError(
      'store_unavailable',
      `could not open the shared store on PostgreSQL at ${describe(databaseUrl)}: ${(cause as Error).message}; check DATABASE_URL and that the server accepts connections`,
      { cause: error },
    );
  }
}
