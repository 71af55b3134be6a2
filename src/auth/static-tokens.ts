import { createHash, timingSafeEqual } from 'node:crypto';
import { CodedError } from '../coded-error.js';
import { B64TOKEN } from './bearer-header.js';
import type { Principal } from './principal.js';

/**
 * Shortest static token accepted, in characters. 32 hex characters is 128 bits: far beyond guessing
 * online, and beyond brute-forcing the 48-bit principal id offline (see principalIdForToken).
 */
export const MIN_STATIC_TOKEN_LENGTH = 32;

/** A static token (or the metrics token beside them) that cannot be used; the message names it, never quotes it. */
export class StaticTokenConfigError extends CodedError<'invalid_static_token'> {
  constructor(message: string) {
    super('invalid_static_token', message);
  }
}

export interface StaticTokens {
  /** The principal for `token`, or undefined. Takes the same time whichever token (if any) matches. */
  match(token: string): Principal | undefined;
  readonly size: number;
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * A stable, non-revealing principal id for a static token: `token:` + the first 12 hex digits (48
 * bits) of SHA-256 over a domain-separated form of the token. The id appears in logs and metrics; it
 * cannot be turned back into the token because tokens are at least MIN_STATIC_TOKEN_LENGTH characters
 * (128 bits if random), so the 48 bits shown leave 80+ unknown. A short or dictionary-word token would
 * be guessable from its id, which is one reason such tokens are refused at boot.
 */
export function principalIdForToken(token: string): string {
  return 'token:' + sha256('corpus-mcp/principal-id\0' + token).toString('hex').slice(0, 12);
}

/**
 * What is wrong with each unusable token, one message per bad token, naming it with `name(index)`
 * (e.g. "AUTH_TOKENS entry 2", "AUTH_TOKENS_FILE line 7") and never quoting it. Empty when all are
 * usable. Shared by config validation and the factories so the rule lives in one place.
 */
export function staticTokenProblems(
  tokens: readonly string[],
  name: (index: number) => string,
  minLength = MIN_STATIC_TOKEN_LENGTH,
): string[] {
  const problems: string[] = [];
  tokens.forEach((token, index) => {
    if (token.length < minLength) {
      problems.push(
        `${name(index)} is ${token.length} characters; use at least ${minLength} random characters (e.g. \`openssl rand -hex 32\`)`,
      );
    } else if (!B64TOKEN.test(token)) {
      // A token that is not a b64token could never arrive in an Authorization header.
      problems.push(
        `${name(index)} contains characters a bearer token cannot carry; use only letters, digits and - . _ ~ + / (e.g. \`openssl rand -hex 32\`)`,
      );
    }
  });
  return problems;
}

/**
 * Builds the matcher for static bearer tokens (`AUTH_TOKENS`, `AUTH_TOKENS_FILE`, `METRICS_TOKEN`).
 * Validates at construction so a bad token fails at boot; messages name the entry by position
 * (`label` entry 2), never by value.
 *
 * Comparison is constant-time: the presented token and every configured token are hashed to 32 bytes
 * (so lengths never differ, which timingSafeEqual would otherwise reveal) and compared with
 * crypto.timingSafeEqual, always visiting every configured token without an early exit.
 */
export function createStaticTokens(
  tokens: readonly string[],
  { label = 'static token', minLength = MIN_STATIC_TOKEN_LENGTH }: { label?: string; minLength?: number } = {},
): StaticTokens {
  const problems = staticTokenProblems(tokens, (index) => `${label} entry ${index + 1}`, minLength);
  if (problems.length > 0) throw new StaticTokenConfigError(problems.join('; '));

  const unique = [...new Set(tokens)];
  const entries = unique.map((token) => ({
    digest: sha256(token),
    principal: Object.freeze({ id: principalIdForToken(token), kind: 'static' as const, scopes: [] as string[] }),
  }));

  return {
    size: entries.length,
    match(token) {
      const presented = sha256(token);
      let found: (typeof entries)[number] | undefined;
      for (const entry of entries) {
        // No early exit: every entry is compared whatever the outcome.
        const equal = timingSafeEqual(presented, entry.digest);
        if (equal) found = entry;
      }
      return found === undefined ? undefined : { ...found.principal, scopes: [] };
    },
  };
}
