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
  clockToleranceSeconds?: number;
}

/**
 * Verifies access tokens issued by the built-in authorization server: an RFC 9068 `at+jwt`, ES256,
 * signed by the key derived from AUTH_SECRET, for this issuer and this resource, and whose grant still
 * exists — so `npm run auth -- revoke` and a refresh-token replay take effect on the next request.
 */
export function createIssuedTokenVerifier({ issuer, audience, key, store, clockToleranceSeconds = 30 }: IssuedTokenVerifierOptions) {
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
