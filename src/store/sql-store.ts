import type { SqlClient } from './sql-client.js';
import { SCHEMA_SQL } from './schema.js';
import { StoreError } from './store.js';
import type { RecordIndexes, Store, StoredRecord } from './store.js';

const COLUMNS = 'kind, id, payload, grant_id, uid, account_id, expires_at, consumed_at';
const LIVE = '(expires_at IS NULL OR expires_at > $';

export interface SqlStoreOptions {
  /** Clock in milliseconds since the epoch; tests move it. Default `Date.now`. */
  now?: () => number;
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
// Drivers return bigint columns as number, string or bigint; times fit a double comfortably.
const optionalTime = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value);

function toRecord(row: Record<string, unknown>): StoredRecord {
  return {
    kind: String(row.kind),
    id: String(row.id),
    payload: JSON.parse(String(row.payload)) as Record<string, unknown>,
    grantId: optionalString(row.grant_id),
    uid: optionalString(row.uid),
    accountId: optionalString(row.account_id),
    expiresAt: optionalTime(row.expires_at),
    consumedAt: optionalTime(row.consumed_at),
  };
}

/**
 * The Store over any SqlClient. Every write that must not race is one statement: an upsert, or an
 * `UPDATE … RETURNING` for consumption, never a read followed by a write.
 */
export class SqlStore implements Store {
  readonly #sql: SqlClient;
  readonly #now: () => number;

  private constructor(sql: SqlClient, now: () => number) {
    this.#sql = sql;
    this.#now = now;
  }

  /** Creates the schema if needed and returns the store. Throws StoreError `store_unavailable`. */
  static async open(sql: SqlClient, { now = Date.now }: SqlStoreOptions = {}): Promise<SqlStore> {
    try {
      await sql.exec(SCHEMA_SQL);
    } catch (error) {
      throw new StoreError('store_unavailable', `could not create the store's schema: ${(error as Error).message}`, { cause: error });
    }
    return new SqlStore(sql, now);
  }

  async #query(sql: string, params: readonly unknown[]): Promise<Record<string, unknown>[]> {
    try {
      return await this.#sql.query(sql, params);
    } catch (error) {
      throw new StoreError('store_failed', `store statement failed: ${(error as Error).message}`, { cause: error });
    }
  }

  async put(kind: string, id: string, payload: Record<string, unknown>, indexes: RecordIndexes = {}): Promise<void> {
    await this.#query(
      `INSERT INTO auth_records (kind, id, payload, grant_id, uid, account_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (kind, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
         uid = EXCLUDED.uid, account_id = EXCLUDED.account_id, expires_at = EXCLUDED.expires_at`,
      [kind, id, JSON.stringify(payload), indexes.grantId ?? null, indexes.uid ?? null, indexes.accountId ?? null,
        indexes.expiresAt === undefined ? null : Math.ceil(indexes.expiresAt)],
    );
  }

  async get(kind: string, id: string): Promise<StoredRecord | undefined> {
    const rows = await this.#query(`SELECT ${COLUMNS} FROM auth_records WHERE kind = $1 AND id = $2 AND ${LIVE}3)`, [kind, id, this.#now()]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async getByUid(kind: string, uid: string): Promise<StoredRecord | undefined> {
    const rows = await this.#query(`SELECT ${COLUMNS} FROM auth_records WHERE kind = $1 AND uid = $2 AND ${LIVE}3) LIMIT 1`, [kind, uid, this.#now()]);
    return rows[0] === undefined ? undefined : toRecord(rows[0]);
  }

  async consume(kind: string, id: string, at: number): Promise<number | undefined> {
    const rows = await this.#query(
      `UPDATE auth_records SET consumed_at = COALESCE(consumed_at, $3)
       WHERE kind = $1 AND id = $2 AND ${LIVE}4) RETURNING consumed_at`,
      [kind, id, Math.floor(at), this.#now()],
    );
    return rows[0] === undefined ? undefined : optionalTime(rows[0].consumed_at);
  }

  async delete(kind: string, id: string): Promise<void> {
    await this.#query('DELETE FROM auth_records WHERE kind = $1 AND id = $2', [kind, id]);
  }

  async deleteGrant(grantId: string): Promise<number> {
    const rows = await this.#query(
      `DELETE FROM auth_records WHERE grant_id = $1 OR (kind = 'Grant' AND id = $1) RETURNING id`,
      [grantId],
    );
    return rows.length;
  }

  async deleteAccount(accountId: string): Promise<number> {
    const rows = await this.#query('DELETE FROM auth_records WHERE account_id = $1 RETURNING id', [accountId]);
    return rows.length;
  }

  async list(kind: string, { limit = 10_000 }: { limit?: number } = {}): Promise<StoredRecord[]> {
    const rows = await this.#query(
      `SELECT ${COLUMNS} FROM auth_records WHERE kind = $1 AND ${LIVE}2) ORDER BY expires_at, id LIMIT $3`,
      [kind, this.#now(), limit],
    );
    return rows.map(toRecord);
  }

  async deleteOldest(kind: string, uid: string, keep: number): Promise<number> {
    // One statement over the (kind, uid, expires_at) index: the expiry of the record just past the
    // newest `keep`, then every record of the group expiring no later. A record sharing that exact
    // millisecond goes too; when the group is within `keep` the subquery is NULL and nothing goes.
    const rows = await this.#query(
      `DELETE FROM auth_records WHERE kind = $1 AND uid = $2 AND expires_at <= (
         SELECT expires_at FROM auth_records WHERE kind = $1 AND uid = $2 AND expires_at IS NOT NULL
         ORDER BY expires_at DESC LIMIT 1 OFFSET $3
       ) RETURNING id`,
      [kind, uid, Math.max(0, Math.floor(keep))],
    );
    return rows.length;
  }

  async deleteExpired(now: number): Promise<number> {
    const rows = await this.#query('DELETE FROM auth_records WHERE expires_at <= $1 RETURNING id', [now]);
    return rows.length;
  }

  async close(): Promise<void> {
    await this.#sql.close();
  }
}
