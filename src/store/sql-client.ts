/**
 * The little a SQL engine must offer the store: parameterised statements with PostgreSQL-style `$n`
 * placeholders, and a multi-statement script for the schema. Every backend (the embedded PGlite, a
 * PostgreSQL server) adapts its driver to this.
 */
export interface SqlClient {
  /** Runs one statement and returns its rows (empty for statements without RETURNING). */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a script of statements without parameters (the schema). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}
