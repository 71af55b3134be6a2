import { AuthError } from './auth-error.js';

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
export const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Extracts the bearer token from an Authorization header value.
 *
 * - No header, an empty one, or another scheme (`Basic …`) → `missing_token`: RFC 6750 §3.1 says a
 *   request lacking bearer credentials gets a challenge with no error code.
 * - `Bearer` with no token, or a token that is not a b64token (spaces, commas from repeated headers,
 *   quotes) → `invalid_request` (RFC 6750 §3.1: malformed request → 400).
 *
 * The scheme name is case-insensitive (RFC 9110 §11.1).
 */
export function parseBearerHeader(header: string | undefined): string {
  const value = header?.trim() ?? '';
  if (value === '') throw new AuthError('missing_token', 'no Authorization header: send "Authorization: Bearer <token>"');
  const match = /^(\S+)(?:[ \t]+(.*))?$/s.exec(value);
  const scheme = match?.[1] ?? '';
  if (scheme.toLowerCase() !== 'bearer') {
    throw new AuthError(
      'missing_token',
      `unsupported authentication scheme "${scheme.slice(0, 20)}": send "Authorization: Bearer <token>"`,
    );
  }
  const token = match?.[2]?.trim() ?? '';
  if (token === '') throw new AuthError('invalid_request', 'the Authorization header says Bearer but carries no token');
  if (!B64TOKEN.test(token)) {
    throw new AuthError(
      'invalid_request',
      'the bearer token is malformed: send exactly one "Authorization: Bearer <token>" header whose token has no spaces, commas or quotes',
    );
  }
  return token;
}
