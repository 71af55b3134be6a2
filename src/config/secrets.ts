// SESSION_SECRET and DATABASE_URL: secrets (a database URL may hold a password), checked by hand so
// that no message ever quotes them.
import type { Config } from './config.js';
import type { Env } from './env-kinds.js';
import { isLoopbackHost } from './loopback-host.js';
import { MIN_SESSION_SECRET_CHARS } from './schema.js';

export function sessionSecretProblems(secret: string | undefined): string[] {
  if (secret === undefined || secret.length >= MIN_SESSION_SECRET_CHARS) return [];
  return [
    `SESSION_SECRET: is ${secret.length} characters, must be at least ${MIN_SESSION_SECRET_CHARS} (e.g. SESSION_SECRET=$(openssl rand -hex 32)); every replica needs the same one`,
  ];
}

/**
 * The boot's warning that sessions end with this process, where it matters: with DATABASE_URL (a store
 * replicas share) or a HOST reachable from other machines (a deployment, likely behind a load
 * balancer), a session must survive a restart and be served by every replica. One process on
 * loopback is left in peace. Undefined when there is nothing to say.
 */
export function sessionSecretWarning({ host, databaseUrl, sessions }: Pick<Config, 'host' | 'databaseUrl' | 'sessions'>): string | undefined {
  if (!sessions.enabled || sessions.secret !== undefined) return undefined;
  const where = databaseUrl !== undefined ? 'DATABASE_URL is set' : !isLoopbackHost(host) ? `HOST=${host} is not loopback` : undefined;
  if (where === undefined) return undefined;
  return (
    `SESSION_SECRET is not set and ${where}: session ids use a random secret of this process, so sessions end with it and ` +
    'no other replica can serve them; set the same SESSION_SECRET on every replica'
  );
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
