import pg from 'pg';
import type { SqlClient } from './sql-client.js';

/**
 * Key of the session-level advisory lock that serialises schema changes: two replicas booting at once
 * must not both run `CREATE TABLE IF NOT EXISTS` (PostgreSQL can fail the second with a unique
 * violation on its catalog while the first is still in progress). Any fixed 64-bit number works;
 * this one is "corpus-mcp" read as ASCII, folded into a bigint.
 */
export const SCHEMA_LOCK_KEY = 0x636f72707573n;

export interface PostgresClientOptions {
  /** Connections kept open at most, ≥ 1. Default 10. */
  maxConnections?: number;
  /** Milliseconds to wait for a connection, ≥ 1. Default 10000. */
  connectTimeoutMs?: number;
}

/**
 * A shared PostgreSQL server as the store's SQL engine, through a `pg` connection pool. Statements
 * run one at a time on any pooled connection; the schema script runs in one transaction that first
 * takes the advisory lock, so concurrent boots apply it one after the other and the second finds
 * everything in place.
 */
export function openPostgresClient(connectionString: string, { maxConnections = 10, connectTimeoutMs = 10_000 }: PostgresClientOptions = {}): SqlClient {
  if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new RangeError(`openPostgresClient: maxConnections must be a whole number ≥ 1, got ${maxConnections}`);
  const pool = new pg.Pool({ connectionString, max: maxConnections, connectionTimeoutMillis: connectTimeoutMs });
  // An idle connection the server drops (restart, failover) must not crash the process; the pool
  // replaces it on the next query.
  pool.on('error', () => {});
  return {
    async query(sql, params = []) {
      const result = await pool.query(sql, [...params]);
      return result.rows as Record<string, unknown>[];
    },
    async exec(script) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY.toString()]);
        await client.query(script);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
