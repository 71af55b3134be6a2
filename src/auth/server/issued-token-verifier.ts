import { createLocalJWKSet, errors, jwtVerify } from 'jose';
import type { Store } from '../../store/store.js';
import { AuthError } from '../auth-error.js';
import type { Principal } from '../principal.js';
import type { SigningJwk } from './keys.js';

export interface IssuedTokenVerifierOptions {
  /** The built-in server's issuer (PUBLIC_URL). */
  issuer: string;
  /** PUBLIC_URL + '/mcp'. */
  audience: string;
  /** The public signing key, derived from AUTH_SECRET: verification needs no network call. */
  key: Omit<SigningJwk, 'd'>;
  /** Where grants live: a token whose grant is gone (revoked, or its refresh token replayed) is refused. */
  store: Store;
  /** Whether the token's subject (an account id) may still use the server, by the running allowlist. */
  accountAllowed: (accountId: string) => Promise<boolean>;
  clockToleranceSeconds?: number;
}

/**
 * Verifies access tokens issued by the built-in authorization server: an RFC 9068 `at+jwt`, ES256,
 * signed by the key derived from AUTH_SECRET, for this issuer and this resource, whose grant still
 * exists — so `npm run auth -- revoke` and a refresh-token replay take effect on the next request — and
 * whose account the running allowlist still admits, so removing a person takes effect at once.
 */
export function createIssuedTokenVerifier({ issuer, audience, key, store, accountAllowed, clockToleranceSeconds = 30 }: IssuedTokenVerifierOptions) {
  const keySet = createLocalJWKSet({ keys: [key] });
  return {
    issuer,
    async verify(token: string): Promise<Principal> {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keySet, {
          issuer, audience, algorithms: ['ES256'], typ: 'at+jwt', requiredClaims: ['exp', 'sub'], clockTolerance: clockToleranceSeconds,
        }));
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new AuthError('invalid_token', 'the token expired; refresh it or sign in again');
        if (error instanceof errors.JWTClaimValidationFailed) throw new AuthError('invalid_token', `the token's "${error.claim}" claim is not acceptable (${error.reason})`);
        throw new AuthError('invalid_token', 'the token is not a valid access token of this server');
      }
      const grantId = typeof payload.gid === 'string' ? payload.gid : undefined;
      if (grantId === undefined || (await store.get('Grant', grantId)) === undefined) {
        throw new AuthError('invalid_token', 'access was revoked; sign in again');
      }
      if (!(await accountAllowed(String(payload.sub)))) {
        throw new AuthError('invalid_token', `${String(payload.sub)} is no longer allowed on this server; sign in again with an allowed account`);
      }
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter((s) => s !== '') : [];
      return {
        id: `login:${String(payload.sub)}`,
        kind: 'oauth',
        scopes,
        ...(typeof payload.client_id === 'string' ? { clientId: payload.client_id } : {}),
        ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
      };
    },
  };
}

export type IssuedTokenVerifier = ReturnType<typeof createIssuedTokenVerifier>;
