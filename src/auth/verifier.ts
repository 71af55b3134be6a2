import { AuthError } from './auth-error.js';
import { parseBearerHeader } from './bearer-header.js';
import { createOAuthVerifier } from './oauth-verifier.js';
import type { OAuthVerifierOptions } from './oauth-verifier.js';
import type { Principal } from './principal.js';
import { createStaticTokens } from './static-tokens.js';

export interface VerifierOptions {
  /** Static bearer tokens (`AUTH_TOKENS`, `AUTH_TOKENS_FILE`), each at least 32 characters. Default none. */
  staticTokens?: readonly string[];
  /** OAuth resource-server settings; omit to accept static tokens only. */
  oauth?: OAuthVerifierOptions;
  /** Tokens of the built-in authorization server (LOGIN_PROVIDER), verified with local keys. */
  issued?: { verify(token: string): Promise<Principal> };
}

export interface Verifier {
  /**
   * Checks the value of a request's Authorization header and returns who made the request.
   * Throws AuthError (see auth-error.ts for the codes). Call on every request: nothing is cached
   * per client, so a revoked static token or an expired JWT is refused at once.
   */
  verify(authorizationHeader: string | undefined): Promise<Principal>;
  /** The scopes OAuth tokens must carry, for the challenge's `scope=` parameter. */
  readonly requiredScopes: readonly string[];
}

/**
 * Both ways in, usable together: a token is first compared (in constant time) with the static tokens,
 * then, if OAuth is configured, verified as a JWT. Static tokens are full-access: required scopes
 * apply to OAuth tokens only. Throws at construction (at boot) when the options are unusable.
 */
export function createVerifier({ staticTokens = [], oauth, issued }: VerifierOptions): Verifier {
  const statics = createStaticTokens(staticTokens, { label: 'AUTH_TOKENS' });
  const oauthVerifier = oauth === undefined ? undefined : createOAuthVerifier(oauth);
  if (statics.size === 0 && oauthVerifier === undefined && issued === undefined) {
    throw new TypeError('createVerifier needs at least one static token or an OAuth issuer (or the built-in authorization server)');
  }
  const requiredScopes = Object.freeze([...(oauth?.requiredScopes ?? [])]);

  return {
    requiredScopes,
    async verify(authorizationHeader) {
      const token = parseBearerHeader(authorizationHeader);
      const principal = statics.match(token);
      if (principal !== undefined) return principal;
      if (issued !== undefined) return issued.verify(token);
      if (oauthVerifier !== undefined) return oauthVerifier.verify(token);
      throw new AuthError('invalid_token', 'the bearer token is not one of the configured AUTH_TOKENS');
    },
  };
}
