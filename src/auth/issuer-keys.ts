// The issuer's signing keys as the verifier sees them: discovered and fetched lazily, cached, and
// shielded from load. jose's createRemoteJWKSet refetches on every token once its cache age has passed
// and a refetch failed; here a failure is remembered for a while (with jitter, so replicas do not
// retry in step), and the last good key set keeps verifying tokens for hours while the issuer is
// unreachable. Whatever clients send, the issuer sees at most one request per backoff period.
import { createLocalJWKSet, errors } from 'jose';
import type { JWTVerifyGetKey } from 'jose';
import { AuthError } from './auth-error.js';
import { discoverJwksUri } from './authorization-server-metadata.js';
import { fetchJson } from './fetch-json.js';
import type { FetchLike } from './fetch-json.js';

export interface IssuerKeysOptions {
  issuer: string;
  /** Key set location; default: the `jwks_uri` discovered from the issuer's metadata. */
  jwksUrl?: string;
  /** Age after which the key set is refetched, in milliseconds. Default 600000 (10 minutes). */
  maxAgeMs?: number;
  /**
   * Minimum time between refetches triggered by an unknown `kid`, in milliseconds. Default 30000. A
   * rotated-in key is picked up on the first token that uses it once this has passed since the last fetch.
   */
  cooldownMs?: number;
  /**
   * How long after its fetch the last good key set is still used when refetching fails, in
   * milliseconds. Default 21600000 (6 hours).
   */
  staleMaxAgeMs?: number;
  /** How long a failed discovery or fetch is remembered before the issuer is asked again, in milliseconds, ±20 % jitter. Default 30000. */
  failureBackoffMs?: number;
  /** Timeout of each metadata or key-set request, in milliseconds. Default 5000. */
  timeoutMs?: number;
  fetch?: FetchLike;
  /** Clock, in milliseconds since the epoch. Default Date.now. */
  now?: () => number;
  /** Uniform in [0, 1), for the jitter. Default Math.random. */
  random?: () => number;
}

export interface IssuerKeys {
  /** For jose's jwtVerify: the key for a token's protected header. Throws AuthError temporarily_unavailable when none can be had. */
  getKey: JWTVerifyGetKey;
}

export function createIssuerKeys(options: IssuerKeysOptions): IssuerKeys {
  const {
    issuer,
    maxAgeMs = 600_000,
    cooldownMs = 30_000,
    staleMaxAgeMs = 6 * 3600_000,
    failureBackoffMs = 30_000,
    timeoutMs = 5000,
    fetch: fetchImpl,
    now = Date.now,
    random = Math.random,
  } = options;
  for (const [name, value] of Object.entries({ maxAgeMs, cooldownMs, staleMaxAgeMs, failureBackoffMs, timeoutMs })) {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`createIssuerKeys: ${name} must be a number ≥ 0, got ${value}`);
  }
  const fetchOptions = { timeoutMs, ...(fetchImpl ? { fetch: fetchImpl } : {}) };

  let jwksUri = options.jwksUrl;
  let local: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = -Infinity;
  let attemptedAt = -Infinity;
  let failure: { error: AuthError; until: number } | undefined;
  let pending: Promise<void> | undefined;

  async function load(): Promise<void> {
    if (jwksUri === undefined) jwksUri = await discoverJwksUri(issuer, fetchOptions);
    let keys: ReturnType<typeof createLocalJWKSet>;
    try {
      keys = createLocalJWKSet((await fetchJson(jwksUri, fetchOptions)) as Parameters<typeof createLocalJWKSet>[0]);
    } catch (error) {
      throw new AuthError('temporarily_unavailable', `could not fetch the signing keys of ${issuer} from ${jwksUri}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    local = keys;
    fetchedAt = now();
  }

  /** One fetch at a time; a failure answers every caller until the backoff has passed, without network I/O. */
  function refresh(): Promise<void> {
    if (failure !== undefined && now() < failure.until) return Promise.reject(failure.error);
    if (pending === undefined) {
      attemptedAt = now();
      pending = load().then(
        () => {
          failure = undefined;
          pending = undefined;
        },
        (error: unknown) => {
          const authError = error instanceof AuthError ? error : new AuthError('temporarily_unavailable', String(error), { cause: error });
          failure = { error: authError, until: now() + failureBackoffMs * (0.8 + 0.4 * random()) };
          pending = undefined;
          throw authError;
        },
      );
    }
    return pending;
  }

  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (local === undefined) {
      await refresh();
    } else if (now() >= fetchedAt + maxAgeMs) {
      try {
        await refresh();
      } catch (error) {
        // Stale but recent enough: keep verifying with the keys that were good.
        if (now() >= fetchedAt + staleMaxAgeMs) throw error;
      }
    }
    const keys = local!;
    try {
      return await keys(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || now() < attemptedAt + cooldownMs) throw error;
      await refresh();
      return local!(header, token);
    }
  };
  return { getKey };
}
