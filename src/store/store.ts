/**
 * Persistent state of the built-in authorization server, behind one small interface so that the
 * embedded default and a shared PostgreSQL are interchangeable. A record is an opaque JSON payload of
 * one `kind` (the authorization server's model names: `Client`, `Grant`, `AuthorizationCode`,
 * `RefreshToken`, `Interaction`, `Session`, …) under an `id`, with the few columns the server looks
 * records up or cleans them up by.
 *
 * Times are milliseconds since the epoch. An expired record is never returned; `deleteExpired`
 * reclaims its space.
 */
import { CodedError } from '../coded-error.js';
export interface StoredRecord {
  kind: string;
  id: string;
  payload: Record<string, unknown>;
  /** The grant the record belongs to (codes, tokens), for revoking a grant as a whole. */
  grantId: string | undefined;
  /** Secondary lookup key (a session's `uid`). */
  uid: string | undefined;
  /** Whose record it is (grants, tokens, sessions), for revoking a person's access. */
  accountId: string | undefined;
  /** When the record stops existing; undefined = never. */
  expiresAt: number | undefined;
  /** When the record was first consumed (codes, rotated refresh tokens); undefined = not yet. */
  consumedAt: number | undefined;
}

/** What `put` writes besides the payload. */
export interface RecordIndexes {
  grantId?: string | undefined;
  uid?: string | undefined;
  accountId?: string | undefined;
  expiresAt?: number | undefined;
}

export interface Store {
  /** Inserts or replaces a record. Replacing keeps its `consumedAt`. */
  put(kind: string, id: string, payload: Record<string, unknown>, indexes?: RecordIndexes): Promise<void>;
  /** The live (unexpired) record, or undefined. */
  get(kind: string, id: string): Promise<StoredRecord | undefined>;
  /** The live record of `kind` whose `uid` is `uid`, or undefined. */
  getByUid(kind: string, uid: string): Promise<StoredRecord | undefined>;
  /**
   * Marks a live record consumed at `at` in one atomic statement and returns the time it was FIRST
   * consumed (`at` for the first caller, the earlier time for every later one), or undefined when the
   * record does not exist. Two concurrent callers never both see themselves as first.
   */
  consume(kind: string, id: string, at: number): Promise<number | undefined>;
  /** Removes one record; removing a missing one is not an error. */
  delete(kind: string, id: string): Promise<void>;
  /** Removes every record of a grant (tokens, codes) and the grant itself. Returns how many. */
  deleteGrant(grantId: string): Promise<number>;
  /** Removes every record of an account (grants, tokens, sessions). Returns how many. */
  deleteAccount(accountId: string): Promise<number>;
  /** Live records of one kind, oldest first, at most `limit` (default 10000). For operator tools. */
  list(kind: string, options?: { limit?: number }): Promise<StoredRecord[]>;
  /**
   * Keeps the `keep` newest records of `kind` whose `uid` is `uid` (newest = latest `expiresAt`;
   * records without one are not counted) and removes the older ones, expired or not: a bound on a
   * group of records nobody else cleans up (unused client registrations). A record expiring in the
   * same millisecond as the oldest one removed is removed too. Returns how many were removed.
   */
  deleteOldest(kind: string, uid: string, keep: number): Promise<number>;
  /** Removes records that expired before `now`. Returns how many. */
  deleteExpired(now: number): Promise<number>;
  close(): Promise<void>;
}

/** Thrown when the store cannot be opened or a statement fails; `code` is machine-readable. */
export class StoreError extends CodedError<'store_unavailable' | 'store_failed'> {}
