// Settings whose values are secrets, checked by hand so that no message quotes them.
import { MIN_SESSION_SECRET_CHARS } from '../http/session-token.js';

/**
 * SESSION_SECRET and DATABASE_URL are secrets (a database URL may hold a password): checked by hand
 * so that no message ever quotes them.
 */
export function secretProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  const secret = env.SESSION_SECRET?.trim();
  if (secret && secret.length < MIN_SESSION_SECRET_CHARS) {
    problems.push(
      `SESSION_SECRET: is ${secret.length} characters, must be at least ${MIN_SESSION_SECRET_CHARS} (e.g. SESSION_SECRET=$(openssl rand -hex 32)); every replica needs the same one`,
    );
  }
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl) {
    let protocol: string | undefined;
    try {
      protocol = new URL(databaseUrl).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      problems.push('DATABASE_URL: must be a postgres:// or postgresql:// URL, e.g. postgres://user:password@db.internal:5432/corpus (value not shown: it may hold a password)');
    }
  }
  return problems;
}

/** DATABASE_URL alone, for the operator tool: with it, the sign-in records live in PostgreSQL. */
export function loadDatabaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return env.DATABASE_URL?.trim() || undefined;
}
