// Self-contained MCP session ids. The Mcp-Session-Id handed to a client is an encrypted, authenticated
// token (a compact JWE: direct A256GCM under a key derived from SESSION_SECRET) that carries what the
// session needs to be rebuilt anywhere: who opened it, the protocol version it negotiated, the
// client's info and capabilities, when it was issued and when it expires. Any process holding the
// same secret can therefore re-create a session it never saw, and nobody without the secret can make
// or alter one. Encryption rather than a bare MAC keeps the principal and the client's details out of
// any log or proxy that records headers.
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, errors as joseErrors, jwtDecrypt } from 'jose';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';
import { CodedError } from '../../coded-error.js';
import { MIN_SESSION_SECRET_CHARS } from '../../config/schema.js';

/**
 * Largest JSON, in characters, kept of the client's info and of its capabilities. Beyond it only
 * the essentials are kept (name, version, title; the capability names), so a client announcing
 * icons or large experimental capabilities cannot push the id past what proxies accept in a header.
 * The server never reads more than the capability names.
 */
const MAX_CLAIM_JSON_CHARS = 1024;

/** What a session id says about its session. Times are whole seconds since the epoch. */
export interface SessionClaims {
  /** Id of the principal that opened the session; undefined when authentication is off. */
  principal: string | undefined;
  /** The protocol version the session negotiated in its initialize. */
  protocolVersion: string;
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  issuedAt: number;
  expiresAt: number;
}

export type SessionTokenFailure = 'malformed' | 'invalid' | 'expired';

/** Why an id was refused, for logs and metrics; the client is only ever told "not found". */
export class SessionTokenError extends CodedError<SessionTokenFailure> {}

export interface SessionTokensOptions {
  /** The shared secret, ≥ MIN_SESSION_SECRET_CHARS characters. Every replica must hold the same one. */
  secret: string;
  /** A session's whole life in seconds from its initialize, ≥ 1 (SESSION_MAX_AGE). */
  maxAgeSeconds: number;
  /** Clock in milliseconds, for tests. Default Date.now. */
  now?: () => number;
}

export interface SessionTokens {
  readonly maxAgeSeconds: number;
  /** A new session id for these claims, issued now and expiring maxAgeSeconds later (expiresAt, in seconds). */
  issue(claims: Pick<SessionClaims, 'principal' | 'protocolVersion' | 'clientInfo' | 'capabilities'>): Promise<{ id: string; expiresAt: number }>;
  /** The claims of a session id; throws SessionTokenError if it is not one of ours, was altered, or has expired. */
  open(id: string): Promise<SessionClaims>;
}

/** Compact JWE: five base64url parts, the second empty for direct encryption. */
const JWE_SHAPE = /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Longest id we try to open; anything longer is not one we issued. */
const MAX_ID_CHARS = 8192;
const HEADER = { alg: 'dir', enc: 'A256GCM', typ: 'mcp-session+jwt' } as const;

function bounded<T extends object>(value: T, essentials: (value: T) => T): T {
  return JSON.stringify(value).length <= MAX_CLAIM_JSON_CHARS ? value : essentials(value);
}

const essentialInfo = (info: Implementation): Implementation => ({
  name: String(info.name).slice(0, 200),
  version: String(info.version).slice(0, 100),
  ...(typeof info.title === 'string' ? { title: info.title.slice(0, 200) } : {}),
});

const capabilityNames = (capabilities: ClientCapabilities): ClientCapabilities =>
  Object.fromEntries(
    Object.keys(capabilities)
      .slice(0, 32)
      .map((name) => [name.slice(0, 64), {}]),
  ) as ClientCapabilities;

export function createSessionTokens({ secret, maxAgeSeconds, now = Date.now }: SessionTokensOptions): SessionTokens {
  if (typeof secret !== 'string' || secret.length < MIN_SESSION_SECRET_CHARS) {
    throw new RangeError(`createSessionTokens: the secret must be at least ${MIN_SESSION_SECRET_CHARS} characters, got ${typeof secret === 'string' ? secret.length : typeof secret}`);
  }
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 1) throw new RangeError(`createSessionTokens: maxAgeSeconds must be a whole number ≥ 1, got ${maxAgeSeconds}`);
  // A key of its own for session ids, so the same secret reused elsewhere can never mint one.
  const key = new Uint8Array(hkdfSync('sha256', secret, 'corpus-mcp', 'mcp session id v1', 32));
  const seconds = () => Math.floor(now() / 1000);

  return {
    maxAgeSeconds,
    async issue({ principal, protocolVersion, clientInfo, capabilities }) {
      const issuedAt = seconds();
      const expiresAt = issuedAt + maxAgeSeconds;
      const id = await new EncryptJWT({
        ...(principal !== undefined ? { sub: principal } : {}),
        pv: protocolVersion,
        ci: bounded(clientInfo, essentialInfo),
        cc: bounded(capabilities, capabilityNames),
      })
        .setProtectedHeader(HEADER)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .encrypt(key);
      return { id, expiresAt };
    },
    async open(id) {
      if (id.length > MAX_ID_CHARS || !JWE_SHAPE.test(id)) throw new SessionTokenError('malformed', 'not a session id this server issues');
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtDecrypt(id, key, {
          keyManagementAlgorithms: ['dir'],
          contentEncryptionAlgorithms: ['A256GCM'],
          typ: HEADER.typ,
          requiredClaims: ['iat', 'exp'],
          currentDate: new Date(now()),
        }));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw new SessionTokenError('expired', 'the session has passed its maximum age');
        throw new SessionTokenError('invalid', 'the session id does not decrypt under this secret or was altered');
      }
      const { sub, pv, ci, cc, iat, exp } = payload;
      const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
      if ((sub !== undefined && typeof sub !== 'string') || typeof pv !== 'string' || !isObject(ci) || !isObject(cc) || typeof iat !== 'number' || typeof exp !== 'number') {
        throw new SessionTokenError('invalid', 'the session id lacks a claim the session needs');
      }
      // jose checks exp against the clock; a token claiming a longer life than this server grants
      // (a secret shared with a differently configured replica) is held to the local maximum.
      if (seconds() >= iat + maxAgeSeconds) throw new SessionTokenError('expired', 'the session has passed its maximum age');
      return { principal: sub, protocolVersion: pv, clientInfo: ci as Implementation, capabilities: cc as ClientCapabilities, issuedAt: iat, expiresAt: Math.min(exp, iat + maxAgeSeconds) };
    },
  };
}
