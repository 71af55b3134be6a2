import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Statement } from 'better-sqlite3';
import type { SqlClient } from './sql-client.js';

/** The database file and the files SQLite keeps beside it in WAL mode. */
const databaseFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`];

/**
 * Opens `file` readable by its owner only: the folder 0700, the database and its -wal and -shm files
 * 0600 (they hold grants, sessions and registrations). New files are created under a umask of 077, so
 * they are never readable by others even for a moment; files and a folder left by an older version
 * are tightened with chmod. SQLite gives the -wal and -shm files it re-creates later the database
 * file's own mode. A folder or file the process does not own (a mounted volume) keeps its mode.
 */
function openPrivate(file: string): Database.Database {
  const folder = dirname(file);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  try {
    chmodSync(folder, 0o700);
  } catch {
    // Not ours to change; the files inside are still private.
  }
  // process.umask is process-wide: the open below is synchronous, so nothing else of this thread runs
  // under it. Worker threads cannot set it (they rely on the chmod after).
  let previous: number | undefined;
  try {
    previous = process.umask(0o077);
  } catch {
    previous = undefined;
  }
  let db;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
  for (const path of databaseFiles(file)) {
    try {
      if (existsSync(path)) chmodSync(path, 0o600);
    } catch {
      // Owned by another user (the operator tool run as someone else): not ours to change.
    }
  }
  return db;
}

/**
 * The embedded engine: SQLite through better-sqlite3, in one file (created with its folder if
 * missing), or in memory when `file` is undefined (tests). WAL mode lets the operator tool read and
 * write the same file while the server runs. Chosen over PGlite by measurement (docs/BENCHMARKS.md).
 *
 * The store's SQL is written for PostgreSQL (`$n` placeholders); SQLite takes `?` with the values in
 * order of appearance, so each `$n` is rewritten once per statement and its value repeated as needed.
 */
export function openSqliteClient(file: string | undefined): SqlClient {
  const db = file === undefined ? new Database(':memory:') : openPrivate(file);
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
