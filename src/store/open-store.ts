import { join } from 'node:path';
import { openSqliteClient } from './sqlite-client.js';
import { SqlStore } from './sql-store.js';
import type { SqlStoreOptions } from './sql-store.js';
import { StoreError } from './store.js';
import type { Store } from './store.js';

export interface OpenStoreOptions extends SqlStoreOptions {
  /**
   * Folder of the embedded store (AUTH_DATA_DIR); its database is the file `<dataDir>/auth.sqlite`.
   * `undefined` keeps everything in memory (tests only: nothing survives the process).
   */
  dataDir: string | undefined;
}

/** Opens the embedded store, creating its folder and schema on first use. Throws StoreError. */
export async function openStore({ dataDir, ...options }: OpenStoreOptions): Promise<Store> {
  let sql;
  try {
    sql = openSqliteClient(dataDir === undefined ? undefined : join(dataDir, 'auth.sqlite'));
  } catch (error) {
    throw new StoreError(
      'store_unavailable',
      `could not open the store in ${dataDir === undefined ? 'memory' : JSON.stringify(dataDir)}: ${(error as Error).message}; ` +
        'check that AUTH_DATA_DIR is a writable folder and that no other corpus-mcp process uses it',
      { cause: error },
    );
  }
  return SqlStore.open(sql, options);
}
