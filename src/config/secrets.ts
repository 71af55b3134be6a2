// SESSION_SECRET and DATABASE_URL: secrets (a database URL may hold a password), checked by hand so
// that no message ever quotes them.
import type { Env } from './env-kinds.js';
import { MIN_SESSION_SECRET_CHARS } from './schema.js';

export function sessionSecretProblems(secret: string | undefined): string[] {
  if (secret === undefined || secret.length >= MIN_SESSION_SECRET_CHARS) return [];
  return [
    `SESSION_SECRET: is ${secret.length} characters, must be at least ${MIN_SESSION_SECRET_CHARS} (e.g. SESSION_SECRET=$(openssl rand -hex 32)); every replica needs the same one`,
  ];
}

/** DATABASE_URL, the one place it is read: for loadConfig, and alone for the operator tool (with it, the sign-in records live in PostgreSQL). */
export function loadDatabaseUrl(env: Env = process.env): string | undefined {
  return env.DATABASE_URL?.trim() || undefined;
}

export function databaseUrlProblems(databaseUrl: string | undefined): string[] {
  if (databaseUrl === undefined) return [];
  let protocol: string | undefined;
  try {
    protocol = new URL(databaseUrl).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === 'postgres:' || protocol === 'postgresql:') return [];
  return ['DATABASE_URL: must be a postgres:// or postgresql:// URL, e.g. postgres://user:password@db.internal:5432/corpus (value not shown: it may hold a password)'];
}
