import { CodedError } from '../coded-error.js';

/**
 * Why a request's credentials were not accepted. `code` is machine-readable and maps one-to-one onto
 * an HTTP response in the adapter (src/http/middleware/auth.ts):
 *
 * - `missing_token`: no credentials, or an authentication scheme other than Bearer (RFC 6750 §3.1:
 *   the challenge then carries no error code).
 * - `invalid_request`: an Authorization header that claims Bearer but is malformed (RFC 6750 §3.1 → 400).
 * - `invalid_token`: a bearer token that is unknown, expired, badly signed, or for another resource
 *   or issuer (RFC 6750 §3.1 → 401).
 * - `insufficient_scope`: a valid token lacking a required scope (RFC 6750 §3.1 → 403); carries
 *   `requiredScopes`.
 * - `temporarily_unavailable`: the token could not be checked because the authorization server's
 *   metadata or keys could not be fetched. Not the client's fault, so it must not look like a bad
 *   token (a 401 would send clients into a re-authorisation loop) → 503.
 *
 * Messages name what was wrong and never contain the token itself.
 */
export const AUTH_ERROR_CODES = ['missing_token', 'invalid_request', 'invalid_token', 'insufficient_scope', 'temporarily_unavailable'] as const;
export type AuthErrorCode = (typeof AUTH_ERROR_CODES)[number];

export class AuthError extends CodedError<AuthErrorCode> {
  readonly requiredScopes: readonly string[] | undefined;

  constructor(code: AuthErrorCode, message: string, options?: { requiredScopes?: readonly string[]; cause?: unknown }) {
    super(code, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.requiredScopes = options?.requiredScopes;
  }
}
