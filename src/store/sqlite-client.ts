import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { SqlClient } from './sql-client.js';

/**
 * The embedded engine: SQLite through better-sqlite3, in one file (created with its folder if
 * missing), or in memory when `file` is undefined (tests). WAL mode lets the operator tool read and
 * write the same file while the server runs. Chosen over PGlite by measurement (docs/BENCHMARKS.md).
 *
 * The store's SQL is written for PostgreSQL (`$n` placeholders); SQLite takes `?` with the values in
 * order of appearance, so each `$n` is rewritten once per statement and its value repeated as needed.
 */
export function openSqliteClient(file: string | undefined): SqlClient {
  if (file !== undefined) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file ?? ':memory:');
  db.pragma('journal_mode = WAL');
  // Another process (the operator tool) may hold the write lock for a moment: wait, don't fail.
  db.pragma('busy_timeout = 5000');
  const prepared = new Map<string, { statement: Statement; order: number[] }>();
  const prepare = (sql: string) => {
    let entry = prepared.get(sql);
    if (entry === undefined) {
      const order = [...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]) - 1);
      entry = { statement: db.prepare(sql.replace(/\$\d+/g, '?')), order };
      prepared.set(sql, entry);
    }
    return entry;
  };
  return {
    async query(sql, params = []) {
      const { statement, order } = prepare(sql);
      const values = order.map((i) => params[i]);
      if (statement.reader) return statement.all(...values) as Record<string, unknown>[];
      statement.run(...values);
      return [];
    },
    async exec(sql) {
      db.exec(sql);
    },
    async close() {
      db.close();
    },
  };
}
