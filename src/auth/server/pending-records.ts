import type { Store } from '../../store/store.js';

/**
 * The records a sign-in in progress leaves, which anyone can make the server write without signing
 * in: an `Interaction` per `/authorize`, an `UpstreamLogin` per visit to its sign-in page, a
 * `SignInReturn` per refused or failed upstream sign-in, and a `ConsentCsrf` per consent page shown
 * (to a person signed in upstream). Each kind is bounded the way
 * registrations without a grant are: in number (the newest are kept, the oldest removed at each new
 * one, expired or not) and in lifetime (minutes).
 */
export const PENDING_SIGN_IN_KINDS = ['Interaction', 'UpstreamLogin', 'SignInReturn', 'ConsentCsrf'] as const;

/** The `uid` column of a pending record: the group the bound counts (Store.deleteOldest). */
export const PENDING = 'pending-sign-in';

/**
 * How long a sign-in may take, seconds: from `/authorize` through the upstream sign-in and consent.
 * Ten minutes, as GitHub and Google give their own sign-in pages; oidc-provider's default is an hour.
 */
export const PENDING_SIGN_IN_TTL_SECONDS = 10 * 60;

/**
 * How many records of each pending kind are kept, ≥ 1. A person's sign-in is let go before it ends
 * only if this many others start within its ten minutes. At the parameter limits an Interaction is at
 * most about 10 KB, so 10,000 of them about 100 MB (SECURITY.md has the measured figures).
 */
export const MAX_PENDING_SIGN_INS = 10_000;

/** Checks a bound given to a factory, so a bad one fails at boot. */
export function checkMaxPending(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name}: maxPendingSignIns must be a whole number ≥ 1, got ${value}`);
  return value;
}

/** Writes one pending record (`uid` = PENDING) and removes the oldest of its kind past `max`. */
export async function putPending(store: Store, kind: string, id: string, payload: Record<string, unknown>, { expiresAt, max }: { expiresAt: number; max: number }): Promise<void> {
  await store.put(kind, id, payload, { uid: PENDING, expiresAt });
  await store.deleteOldest(kind, PENDING, max);
}
