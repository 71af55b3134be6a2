import { createHash } from 'node:crypto';
import type { Store, StoredRecord } from '../../store/store.js';
import { checkMaxPending, MAX_PENDING_SIGN_INS, PENDING, PENDING_SIGN_IN_KINDS } from './pending-records.js';

export interface StoreAdapterOptions {
  /** How long a rotated refresh token still works after its first use, ms (REFRESH_TOKEN_GRACE). */
  refreshGraceMs: number;
  /**
   * Lifetime of a dynamically registered client, seconds. Clients such as Claude register anew on each
   * connection; a registration that never obtains a grant disappears after this. Default 86400.
   */
  unusedClientTtlSeconds?: number;
  /**
   * How many registrations that never obtained a grant are kept; past it the oldest is removed at each
   * new registration. Bounds what unauthenticated `/register` can write. Default 10000, at least 1.
   */
  maxUnusedClients?: number;
  /**
   * Lifetime, seconds, of a record oidc-provider gives none (a `RegistrationAccessToken`, an
   * `InitialAccessToken`): no record is kept forever. Default 86400.
   */
  defaultTtlSeconds?: number;
  /**
   * How many records of each kind a sign-in in progress leaves (`Interaction`, pending-records.ts)
   * are kept; past it the oldest is removed at each new one. Default
   * MAX_PENDING_SIGN_INS, at least 1.
   */
  maxPendingSignIns?: number;
  /**
   * The clock of the grace window and of records' expiry, ms since the epoch.
   * @default Date.now
   */
  now?: () => number;
}

type Payload = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * Kinds whose id is a public identifier, kept as is: a client id is public, and a grant id travels in
 * every access token (`gid`) and is what the resource server and the operator tool look grants up by.
 * Every other kind's id is a secret (a token, a code, a session cookie, an interaction cookie).
 */
const PUBLIC_ID_KINDS = new Set(['Client', 'Grant']);
/** The `uid` of a client registration that has not obtained a grant yet: the group the bound counts. */
export const UNUSED_CLIENT = 'unused-client';
const PENDING_KINDS: ReadonlySet<string> = new Set(PENDING_SIGN_IN_KINDS);

/** The `uid` column of a record: the group it is bounded in, or the lookup key oidc-provider gave it. */
function uidOf(kind: string, payload: Payload): string | undefined {
  // oidc-provider upserts a Client only when it registers one: it has no grant yet.
  if (kind === 'Client') return UNUSED_CLIENT;
  if (PENDING_KINDS.has(kind)) return PENDING;
  return text(payload.uid);
}

/** The key a secret id is stored under: its SHA-256, so the store never holds the value that was issued. */
export const storedId = (kind: string, id: string): string =>
  PUBLIC_ID_KINDS.has(kind) ? id : createHash('sha256').update(id).digest('base64url');

/**
 * Stands for the record's own id wherever oidc-provider copied it into the payload. A client that
 * sends this text in its own request parameters gets its own interaction's id back in its place,
 * which it has already.
 */
const ID_MARK = '<stored-id>';
/** Replaces every occurrence of `from` in the payload's strings (ids are URL-safe: no JSON escaping). */
const swap = (payload: Payload, from: string, to: string): Payload => JSON.parse(JSON.stringify(payload).split(from).join(to)) as Payload;

/**
 * What is written for a secret-keyed record: the payload without the secret itself. oidc-provider
 * puts the token value in `jti`, and an Interaction's id is also in its `returnTo` URL: every copy of
 * the id becomes ID_MARK, and `find`, which is given the id, puts it back. An Interaction also copies
 * the session cookie into `session.cookie`, which nothing reads back: it is dropped.
 */
function withoutSecrets(kind: string, id: string, payload: Payload): Payload {
  if (PUBLIC_ID_KINDS.has(kind)) return payload;
  const rest = { ...payload };
  const session = rest.session;
  if (kind === 'Interaction' && typeof session === 'object' && session !== null && 'cookie' in session) {
    const { cookie: _cookie, ...kept } = session as Payload;
    rest.session = kept;
  }
  return swap(rest, id, ID_MARK);
}

/**
 * oidc-provider's storage adapter over our Store: one instance per model name (`Client`, `Grant`,
 * `RefreshToken`, …), each record kept under that kind.
 *
 * Secrets at rest: a token-like record is stored under the SHA-256 of its id, without the id in its
 * payload; `find`, `consume` and `destroy` get the id from oidc-provider and hash it again, and `find`
 * puts it back where it was. A Session found by its `uid` comes back without `jti`; oidc-provider uses such
 * a session only to read its account and grants, never to save it.
 *
 * Lifetimes: every record written here expires (not so the GithubOrgPin beside them, which
 * github-org-pins.ts writes and keeps on purpose). Records oidc-provider gives no lifetime get `defaultTtlSeconds`; a
 * registration gets `unusedClientTtlSeconds`, and when a grant is saved for it, as long as that grant.
 * Registrations without a grant are also bounded in number (`maxUnusedClients`, oldest removed first),
 * and so are the records of sign-ins in progress (`maxPendingSignIns`, pending-records.ts).
 *
 * Refresh-token grace: oidc-provider rotates a refresh token on use and treats a second use of the
 * consumed one as theft (it revokes the whole grant). Clients such as Claude refresh in parallel and
 * retry, so for `refreshGraceMs` after its first use a rotated token is reported as unconsumed and the
 * request succeeds with a fresh token of its own; after the window, the report is `consumed` and
 * oidc-provider revokes the grant. The first-use time comes from the store's atomic consume.
 */
export function createStoreAdapter(store: Store, options: StoreAdapterOptions) {
  const {
    refreshGraceMs, unusedClientTtlSeconds = 86_400, maxUnusedClients = 10_000, defaultTtlSeconds = 86_400, maxPendingSignIns = MAX_PENDING_SIGN_INS, now = Date.now,
  } = options;
  if (!Number.isInteger(maxUnusedClients) || maxUnusedClients < 1) {
    throw new RangeError(`createStoreAdapter: maxUnusedClients must be a whole number ≥ 1, got ${maxUnusedClients}`);
  }
  checkMaxPending('createStoreAdapter', maxPendingSignIns);
  const withConsumption = (kind: string, payload: Payload, consumedAt: number | undefined): Payload => {
    if (consumedAt === undefined) return payload;
    if (kind === 'RefreshToken' && now() - consumedAt < refreshGraceMs) return payload;
    return { ...payload, consumed: Math.floor(consumedAt / 1000) };
  };

  /** A grant makes its client's registration used: out of the unused group, living as long as the grant. */
  async function keepClientFor(clientId: string, grantExpiresAt: number) {
    const client = await store.get('Client', clientId);
    if (client === undefined) return; // a client ID metadata document: not stored
    if (client.uid !== UNUSED_CLIENT && (client.expiresAt ?? Infinity) >= grantExpiresAt) return;
    await store.put('Client', clientId, client.payload, { expiresAt: Math.max(client.expiresAt ?? 0, grantExpiresAt) });
  }

  /**
   * A record an earlier version stored under the issued value itself (its payload's `jti` is that
   * value) is moved under the hash at its first use, consumption kept, so an upgrade signs nobody out.
   * Records never used again stay until they expire (at most REFRESH_TOKEN_TTL).
   */
  async function migrate(kind: string, id: string): Promise<StoredRecord | undefined> {
    if (PUBLIC_ID_KINDS.has(kind)) return undefined;
    const legacy = await store.get(kind, id);
    if (legacy === undefined || legacy.payload.jti !== id) return undefined;
    const key = storedId(kind, id);
    const { grantId, uid, accountId, expiresAt, consumedAt } = legacy;
    await store.put(kind, key, withoutSecrets(kind, id, legacy.payload), { grantId, uid, accountId, expiresAt });
    if (consumedAt !== undefined) await store.consume(kind, key, consumedAt);
    await store.delete(kind, id);
    return store.get(kind, key);
  }

  return class StoreAdapter {
    constructor(readonly name: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const registration = this.name === 'Client';
      const ttl = expiresIn ?? (registration ? unusedClientTtlSeconds : defaultTtlSeconds);
      const expiresAt = now() + ttl * 1000;
      await store.put(this.name, storedId(this.name, id), withoutSecrets(this.name, id, payload), {
        grantId: text(payload.grantId),
        uid: uidOf(this.name, payload),
        accountId: text(payload.accountId),
        expiresAt,
      });
      if (registration) await store.deleteOldest('Client', UNUSED_CLIENT, maxUnusedClients);
      if (PENDING_KINDS.has(this.name)) await store.deleteOldest(this.name, PENDING, maxPendingSignIns);
      const clientId = text(payload.clientId);
      if (this.name === 'Grant' && clientId !== undefined) await keepClientFor(clientId, expiresAt);
    }

    async find(id: string): Promise<Payload | undefined> {
      const record = (await store.get(this.name, storedId(this.name, id))) ?? (await migrate(this.name, id));
      if (record === undefined) return undefined;
      const payload = PUBLIC_ID_KINDS.has(this.name) ? record.payload : swap(record.payload, ID_MARK, id);
      return withConsumption(this.name, payload, record.consumedAt);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      // A pending record's uid column is its group, not a key of its own.
      if (PENDING_KINDS.has(this.name)) return undefined;
      const record = await store.getByUid(this.name, uid);
      if (record === undefined) return undefined;
      // The id is not known here: leave `jti` out rather than hand back the mark.
      const { jti, ...payload } = record.payload;
      return withConsumption(this.name, jti === ID_MARK ? payload : record.payload, record.consumedAt);
    }

    // The device flow is off: no record is ever looked up by user code.
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await store.consume(this.name, storedId(this.name, id), now());
    }

    async destroy(id: string): Promise<void> {
      await store.delete(this.name, storedId(this.name, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.deleteGrant(grantId);
    }
  };
}
