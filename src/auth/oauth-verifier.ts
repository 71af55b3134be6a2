import { decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { AuthError } from './auth-error.js';
import type { FetchLike } from './fetch-json.js';
import { createIssuerKeys } from './issuer-keys.js';
import type { IssuerKeysOptions } from './issuer-keys.js';
import type { Principal } from './principal.js';

/**
 * The only signature algorithms accepted: asymmetric ones. Never `none`, and never HMAC (`HS*`),
 * which would let anyone holding the public key — that is, everyone — mint tokens.
 */
export const ALLOWED_JWT_ALGORITHMS = Object.freeze([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA',
] as const);

export interface OAuthVerifierOptions {
  /** Expected `iss`, exactly as the authorization server writes it (`OAUTH_ISSUER`). */
  issuer: string;
  /** Expected `aud` (RFC 8707): this server's canonical resource URL, e.g. `https://host/mcp`. */
  audience: string;
  /** JWKS location (`OAUTH_JWKS_URL`); default: the `jwks_uri` discovered from the issuer's metadata. */
  jwksUrl?: string;
  /** Scopes every token must carry (`OAUTH_REQUIRED_SCOPES`). Default none. */
  requiredScopes?: readonly string[];
  /** Allowed clock skew for `exp`, `nbf` and `iat`, in seconds. Default 30, range 0–300. */
  clockToleranceSeconds?: number;
  /** See IssuerKeysOptions.cooldownMs. Default 30000. */
  jwksCooldownMs?: number;
  /** See IssuerKeysOptions.maxAgeMs. Default 600000. */
  jwksMaxAgeMs?: number;
  /** See IssuerKeysOptions.staleMaxAgeMs. Default 21600000 (6 hours). */
  jwksStaleMaxAgeMs?: number;
  /** See IssuerKeysOptions.failureBackoffMs. Default 30000. */
  failureBackoffMs?: number;
  /** Timeout for metadata and JWKS requests, in milliseconds. Default 5000. */
  timeoutMs?: number;
  /** Fetch used for metadata discovery and the key set. Default: the global fetch. */
  fetch?: FetchLike;
  /** Clock and jitter source of the key cache, for tests. */
  now?: IssuerKeysOptions['now'];
  random?: IssuerKeysOptions['random'];
}

export interface OAuthVerifier {
  /** Verifies a JWT access token → principal; throws AuthError. */
  verify(token: string): Promise<Principal>;
}

function scopesOf(payload: JWTPayload): string[] {
  // RFC 9068 / RFC 8693 `scope`: space-separated string; some IdPs (Okta, Azure) use an `scp` array.
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter((s) => s !== '');
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  if (typeof payload.scp === 'string') return payload.scp.split(' ').filter((s) => s !== '');
  return [];
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `crit` extensions jose implements (RFC 7797's unencoded payload); any other is refused. */
const UNDERSTOOD_CRIT = new Set(['b64']);

/** Turns jose's errors into AuthErrors whose message says what was wrong, never what the token was. */
function toAuthError(error: unknown, options: { issuer: string; audience: string; header: ProtectedHeaderParameters }): AuthError {
  if (error instanceof AuthError) return error;
  // RFC 7515 §4.1.11: jose refuses a `crit` extension it does not understand with JOSENotSupported,
  // an error it also throws for other things, hence the look at the header rather than at its text.
  if (error instanceof errors.JOSENotSupported && options.header.crit?.some((name) => !UNDERSTOOD_CRIT.has(name))) {
    return new AuthError('invalid_token', 'the token\'s header marks an extension as critical ("crit") that this server does not understand');
  }
  if (error instanceof errors.JWTExpired) {
    const exp = error.payload.exp;
    const when = typeof exp === 'number' ? ` at ${new Date(exp * 1000).toISOString()}` : '';
    return new AuthError('invalid_token', `the token expired${when}; obtain a new one`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') {
      return new AuthError(
        'invalid_token',
        `the token's audience is not ${options.audience}; request a token for this resource (RFC 8707 resource=${options.audience})`,
      );
    }
    if (error.claim === 'iss') return new AuthError('invalid_token', `the token was not issued by ${options.issuer}`);
    if (error.reason === 'missing') return new AuthError('invalid_token', `the token has no "${error.claim}" claim`);
    return new AuthError('invalid_token', `the token's "${error.claim}" claim is not acceptable (${error.reason})`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return new AuthError('invalid_token', `the token's signature algorithm is not accepted; accepted: ${ALLOWED_JWT_ALGORITHMS.join(', ')}`);
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return new AuthError('invalid_token', `no key of ${options.issuer} matches the token's key id`);
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return new AuthError('invalid_token', 'the token names no key id and several keys could match');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new AuthError('invalid_token', 'the token signature is invalid');
  }
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid || error instanceof TypeError ||
      (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')) {
    // Network failures, a non-200 or unparseable JWKS: the key set is unavailable, not the token bad.
    return new AuthError('temporarily_unavailable', `could not fetch the signing keys of ${options.issuer}: ${(error as Error).message}`, { cause: error });
  }
  if (error instanceof errors.JOSEError) {
    return new AuthError('invalid_token', 'the token is not a valid signed JWT');
  }
  return new AuthError('temporarily_unavailable', `token verification failed unexpectedly: ${String(error)}`, { cause: error });
}

// RFC 7515 §7.1 compact serialisation: three base64url parts, the signature not empty.
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * What can be judged without the issuer's keys: the token's shape and its header's algorithm. Runs
 * before any network I/O, so junk in an Authorization header never makes the server call the issuer.
 * Returns the header, by which a later failure is explained.
 */
function checkShape(token: string): ProtectedHeaderParameters {
  if (!JWS_COMPACT.test(token)) throw new AuthError('invalid_token', 'the token is not a signed JWT (three base64url parts separated by dots)');
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    throw new AuthError('invalid_token', 'the token is not a signed JWT (its header is not base64url-encoded JSON)');
  }
  const { alg } = header;
  if (typeof alg !== 'string' || !(ALLOWED_JWT_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new AuthError('invalid_token', `the token's signature algorithm is not accepted; accepted: ${ALLOWED_JWT_ALGORITHMS.join(', ')}`);
  }
  return header;
}

/**
 * An OAuth 2.1 resource server's token check: JWT access tokens verified with jose against the
 * issuer's JWKS — signature, issuer, audience (RFC 8707), a required `exp`, an `iat` not in the
 * future, and an allow-list of asymmetric algorithms — then the required scopes. The key set is
 * fetched lazily on the first well-formed token (so the server starts even while the IdP is down) and
 * cached as issuer-keys.ts describes.
 */
export function createOAuthVerifier({
  issuer,
  audience,
  jwksUrl,
  requiredScopes = [],
  clockToleranceSeconds = 30,
  jwksCooldownMs,
  jwksMaxAgeMs,
  jwksStaleMaxAgeMs,
  failureBackoffMs,
  timeoutMs,
  fetch: fetchImpl,
  now,
  random,
}: OAuthVerifierOptions): OAuthVerifier {
  if (!URL.canParse(issuer)) throw new TypeError(`OAuth issuer ${JSON.stringify(issuer)} is not an absolute URL`);
  if (audience === '') throw new TypeError('OAuth audience must not be empty');
  if (jwksUrl !== undefined && !URL.canParse(jwksUrl)) throw new TypeError(`JWKS URL ${JSON.stringify(jwksUrl)} is not an absolute URL`);
  if (!(clockToleranceSeconds >= 0 && clockToleranceSeconds <= 300)) {
    throw new RangeError(`clock tolerance ${clockToleranceSeconds}s is outside 0–300`);
  }
  const defined = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  const keys = createIssuerKeys({
    issuer,
    ...defined({ jwksUrl, cooldownMs: jwksCooldownMs, maxAgeMs: jwksMaxAgeMs, staleMaxAgeMs: jwksStaleMaxAgeMs, failureBackoffMs, timeoutMs, fetch: fetchImpl, now, random }),
  });

  return {
    async verify(token) {
      const header = checkShape(token);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, keys.getKey, {
          issuer,
          audience,
          algorithms: [...ALLOWED_JWT_ALGORITHMS],
          requiredClaims: ['exp'],
          clockTolerance: clockToleranceSeconds,
        }));
      } catch (error) {
        throw toAuthError(error, { issuer, audience, header });
      }
      // jose checks a future `iat` only together with maxTokenAge; a token issued in the future is
      // a clock problem or a forgery either way (RFC 7519 §4.1.6, RFC 8725 §3.10).
      if (typeof payload.iat === 'number' && payload.iat > Math.floor(Date.now() / 1000) + clockToleranceSeconds) {
        throw new AuthError('invalid_token', `the token's "iat" claim is in the future (${new Date(payload.iat * 1000).toISOString()})`);
      }

      const clientId = stringClaim(payload, 'client_id') ?? stringClaim(payload, 'azp');
      const subject = stringClaim(payload, 'sub');
      if (subject === undefined && clientId === undefined) {
        throw new AuthError('invalid_token', 'the token has neither a "sub" nor a "client_id" claim to identify its holder');
      }
      const scopes = scopesOf(payload);
      const missing = requiredScopes.filter((scope) => !scopes.includes(scope));
      if (missing.length > 0) {
        throw new AuthError('insufficient_scope', `the token lacks the scope ${missing.join(' ')}; request a token with scope "${requiredScopes.join(' ')}"`, {
          requiredScopes,
        });
      }
      return {
        // Subjects and client ids in separate namespaces: a client whose id equals a user's `sub` must
        // not share that user's sessions.
        id: subject === undefined ? `oauth:client:${clientId}` : `oauth:sub:${subject}`,
        kind: 'oauth',
        scopes,
        ...(clientId === undefined ? {} : { clientId }),
        ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp } : {}),
      };
    },
  };
}
