import type { Store } from '../../store/store.js';

export interface StoreAdapterOptions {
  /** How long a rotated refresh token still works after its first use, ms (REFRESH_TOKEN_GRACE). */
  refreshGraceMs: number;
  /**
   * Lifetime of a dynamically registered client, seconds. Clients such as Claude register anew on each
   * connection; a registration that never obtains a grant disappears after this. Default 86400.
   */
  unusedClientTtlSeconds?: number;
  now?: () => number;
}

type Payload = Record<string, unknown>;
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * oidc-provider's storage adapter over our Store: one instance per model name (`Client`, `Grant`,
 * `RefreshToken`, …), each record kept under that kind.
 *
 * Refresh-token grace: oidc-provider rotates a refresh token on use and treats a second use of the
 * consumed one as theft (it revokes the whole grant). Clients such as Claude refresh in parallel and
 * retry, so for `refreshGraceMs` after its first use a rotated token is reported as unconsumed and the
 * request succeeds with a fresh token of its own; after the window, the report is `consumed` and
 * oidc-provider revokes the grant. The first-use time comes from the store's atomic consume.
 */
export function createStoreAdapter(store: Store, { refreshGraceMs, unusedClientTtlSeconds = 86_400, now = Date.now }: StoreAdapterOptions) {
  const withConsumption = (kind: string, payload: Payload, consumedAt: number | undefined): Payload => {
    if (consumedAt === undefined) return payload;
    if (kind === 'RefreshToken' && now() - consumedAt < refreshGraceMs) return payload;
    return { ...payload, consumed: Math.floor(consumedAt / 1000) };
  };

  return class StoreAdapter {
    constructor(readonly name: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      if (expiresIn === undefined && this.name === 'Client') expiresIn = unusedClientTtlSeconds;
      await store.put(this.name, id, payload, {
        grantId: text(payload.grantId),
        uid: text(payload.uid),
        accountId: text(payload.accountId),
        expiresAt: typeof expiresIn === 'number' ? now() + expiresIn * 1000 : undefined,
      });
    }

    async find(id: string): Promise<Payload | undefined> {
      const record = await store.get(this.name, id);
      return record === undefined ? undefined : withConsumption(this.name, record.payload, record.consumedAt);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const record = await store.getByUid(this.name, uid);
      return record === undefined ? undefined : withConsumption(this.name, record.payload, record.consumedAt);
    }

    // The device flow is off: no record is ever looked up by user code.
    async findByUserCode(): Promise<undefined> {
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await store.consume(this.name, id, now());
    }

    async destroy(id: string): Promise<void> {
      await store.delete(this.name, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.deleteGrant(grantId);
    }
  };
}
