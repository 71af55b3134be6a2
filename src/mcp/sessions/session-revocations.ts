// Ended sessions. A session id is a self-contained token that stays valid until it expires, so ending
// a session (DELETE) must also remember that its id may no longer re-create it. This process always
// remembers the ids it ended; with a shared store every replica learns of them too. Ids are kept as
// SHA-256 digests, never as the ids themselves (an id is a credential of sorts), and only until the
// id would have expired anyway.
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Store } from '../../store/store.js';

/** Where revocations are shared between replicas (PostgreSQL through the store). */
export interface SharedRevocations {
  /** Records `key` as revoked until `expiresAt` (milliseconds since the epoch). Idempotent. */
  revoke(key: string, expiresAt: number): Promise<void>;
  /** Whether `key` is recorded and not yet past its expiry. */
  isRevoked(key: string): Promise<boolean>;
}

export interface SessionRevocationsOptions {
  /** Shared with the other replicas; undefined keeps revocations in this process only. */
  shared?: SharedRevocations | undefined;
  /**
   * Revoked ids this process remembers by itself, ≥ 1. Beyond it the oldest is forgotten and, without
   * a shared store, could be re-created by its own principal until it expires. Default 100000.
   */
  maxLocal?: number;
  /** Clock in milliseconds, for tests. Default Date.now. */
  now?: () => number;
}

export interface SessionRevocations {
  /** True when revocations reach every replica. */
  readonly shared: boolean;
  /** Revokes a session id until `expiresAt` (seconds since the epoch, the id's own expiry). */
  revoke(sessionId: string, expiresAt: number): Promise<void>;
  /** Whether the id was revoked here or, with a shared store, anywhere. */
  isRevoked(sessionId: string): Promise<boolean>;
}

/** The digest under which a session id is recorded. */
export const revocationKey = (sessionId: string): string => createHash('sha256').update(sessionId).digest('base64url');

export function createSessionRevocations({ shared, maxLocal = 100_000, now = Date.now }: SessionRevocationsOptions = {}): SessionRevocations {
  if (!Number.isInteger(maxLocal) || maxLocal < 1) throw new RangeError(`createSessionRevocations: maxLocal must be a whole number ≥ 1, got ${maxLocal}`);
  // Each entry lives until its id's own expiry (checked on read against the injected clock).
  const local = new LRUCache<string, number>({ max: maxLocal });
  const locallyRevoked = (key: string) => {
    const until = local.get(key);
    if (until === undefined) return false;
    if (until > now()) return true;
    local.delete(key);
    return false;
  };
  return {
    shared: shared !== undefined,
    async revoke(sessionId, expiresAt) {
      const key = revocationKey(sessionId);
      const until = expiresAt * 1000;
      if (until <= now()) return; // expired ids are refused anyway
      local.set(key, until);
      await shared?.revoke(key, until);
    },
    async isRevoked(sessionId) {
      const key = revocationKey(sessionId);
      if (locallyRevoked(key)) return true;
      return shared !== undefined && (await shared.isRevoked(key));
    },
  };
}

/** The record kind under which revoked session ids are kept in the store. */
const REVOCATION_KIND = 'SessionRevocation';

/** Revocations kept in the shared store (PostgreSQL with DATABASE_URL), one record per revoked id until it expires. */
export function revocationsInStore(store: Store): SharedRevocations {
  return {
    revoke: (key, expiresAt) => store.put(REVOCATION_KIND, key, {}, { expiresAt }),
    isRevoked: async (key) => (await store.get(REVOCATION_KIND, key)) !== undefined,
  };
}
