// The Hono side of authentication: run the framework-free verifier on every request to a protected
// route, and turn its AuthError into the response RFC 6750 / RFC 9728 prescribe — in one function,
// authErrorResponse, so every refusal (MCP endpoint, metrics, session ownership) looks the same.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { MiddlewareHandler } from 'hono';
import { AuthError } from '../../auth/auth-error.js';
import type { Principal } from '../../auth/principal.js';
import type { Verifier } from '../../auth/verifier.js';
import { silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import { protectedResourceMetadataUrl } from '../routes/well-known.js';
import { bindRequestLog } from './request-id.js';

export type AuthVariables = {
  /** Who made the request; unset on open routes and when auth is off. */
  principal: Principal;
  /** The same, in the MCP SDK's shape, for `transport.handleRequest(req, { authInfo })`. */
  authInfo: AuthInfo;
};

export interface ChallengeOptions {
  /** Absolute URL of the RFC 9728 metadata, sent as `resource_metadata`. Omitted when undefined (metrics). */
  resourceMetadataUrl?: string;
  /** Scopes the resource requires, sent as `scope` on 401 and 403. Default none. */
  requiredScopes?: readonly string[];
  /** `realm` parameter, for endpoints outside the OAuth resource (metrics). Default none. */
  realm?: string;
}

// RFC 6750 §3: error_description is limited to %x20-21 / %x23-5B / %x5D-7E, i.e. printable ASCII
// without `"` and `\`, so it can sit in a quoted-string without escaping.
function descriptionParam(text: string): string {
  return text.replace(/"/g, "'").replace(/\\/g, '/').replace(/[^\x20-\x7e]/g, '?');
}

const STATUS = { missing_token: 401, invalid_token: 401, invalid_request: 400, insufficient_scope: 403 } as const;

/**
 * The one mapping from AuthError to HTTP response:
 * - missing_token → 401, `WWW-Authenticate: Bearer resource_metadata="…"[, scope="…"]` (or
 *   `Bearer realm="…"` where no OAuth exists), no error code (RFC 6750 §3.1: a client that sent no
 *   credentials is told how to get some, not that it erred);
 * - invalid_request → 400 and invalid_token → 401 with `error`, `error_description`, `resource_metadata`;
 * - insufficient_scope → 403 with `error="insufficient_scope"` and the `scope` needed (RFC 6750 §3.1);
 * - temporarily_unavailable → 503 with Retry-After and no challenge: the token was not judged.
 * Bodies are JSON `{ error, error_description }`; nothing is cached.
 */
export function authErrorResponse(error: AuthError, options: ChallengeOptions = {}): Response {
  const { resourceMetadataUrl, requiredScopes = [], realm } = options;
  const headers = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });

  if (error.code === 'temporarily_unavailable') {
    headers.set('retry-after', '10');
    const body = { error: 'temporarily_unavailable', error_description: 'the access token cannot be checked right now because the authorization server is unreachable; retry shortly' };
    return new Response(JSON.stringify(body), { status: 503, headers });
  }

  const scopes = error.code === 'insufficient_scope' ? (error.requiredScopes ?? requiredScopes) : requiredScopes;
  const params: string[] = [];
  if (realm !== undefined) params.push(`realm="${descriptionParam(realm)}"`);
  if (error.code !== 'missing_token') {
    params.push(`error="${error.code}"`, `error_description="${descriptionParam(error.message)}"`);
  }
  if (scopes.length > 0) params.push(`scope="${descriptionParam(scopes.join(' '))}"`);
  if (resourceMetadataUrl !== undefined) params.push(`resource_metadata="${resourceMetadataUrl}"`);
  headers.set('www-authenticate', params.length > 0 ? `Bearer ${params.join(', ')}` : 'Bearer');

  const body = { error: error.code === 'missing_token' ? 'unauthorized' : error.code, error_description: error.message };
  return new Response(JSON.stringify(body), { status: STATUS[error.code], headers });
}

/**
 * The principal in the MCP SDK's AuthInfo shape. `token` is deliberately empty: the credential stops
 * at this middleware and is never handed to tool handlers or anything else.
 */
export function toAuthInfo(principal: Principal, resource: string): AuthInfo {
  return {
    token: '',
    clientId: principal.clientId ?? principal.id,
    scopes: [...principal.scopes],
    ...(principal.expiresAt === undefined ? {} : { expiresAt: principal.expiresAt }),
    ...(principal.kind === 'oauth' ? { resource: new URL(resource) } : {}),
    extra: { principalId: principal.id, kind: principal.kind },
  };
}

export interface BearerAuthOptions {
  verifier: Verifier;
  /** Canonical resource URL of the MCP endpoint, e.g. `https://docs.example.com/mcp`. */
  resource: string;
  logger?: Logger;
  /** Called with the AuthError code of each refused request (metrics). Must not throw. */
  onRefused?: (reason: string) => void;
  /**
   * At most one error line per this many milliseconds for tokens that could not be checked (the
   * issuer unreachable); the next line says how many were left out. Default 30000.
   */
  errorLogIntervalMs?: number;
  /**
   * Whether an authorization server issues tokens for this resource (OAUTH_ISSUER or the built-in
   * one). Only then do challenges name the RFC 9728 metadata (`resource_metadata`), which sends MCP
   * clients into OAuth discovery and registration; without one (static tokens only) they carry
   * `realm="corpus-mcp"` instead. Default true.
   */
  oauth?: boolean;
}

/** The realm of the challenges of a resource that only static tokens open. */
export const STATIC_TOKEN_REALM = 'corpus-mcp';

/**
 * Requires a valid bearer token in the Authorization header — and only there: `?access_token=` in
 * the query string is never read, so such a request counts as carrying no credentials. Sets
 * `principal` and `authInfo` on the context.
 */
export function bearerAuth(options: BearerAuthOptions): MiddlewareHandler<{ Variables: AuthVariables }> {
  const { verifier, resource, logger = silentLogger, onRefused, errorLogIntervalMs = 30_000, oauth = true } = options;
  if (!verifier) throw new TypeError('bearerAuth: verifier is required');
  if (!resource || !URL.canParse(resource)) throw new TypeError(`bearerAuth: resource ${JSON.stringify(resource)} is not an absolute URL`);
  const challenge: ChallengeOptions = {
    ...(oauth ? { resourceMetadataUrl: protectedResourceMetadataUrl(resource) } : { realm: STATIC_TOKEN_REALM }),
    requiredScopes: verifier.requiredScopes,
  };

  // While the issuer is down every request fails the same way; anyone can send requests, so the
  // error log must not grow with them.
  let lastErrorLogAt = -Infinity;
  let unlogged = 0;
  const logUnavailable = (error: AuthError) => {
    const now = Date.now();
    if (now - lastErrorLogAt < errorLogIntervalMs) {
      unlogged += 1;
      return;
    }
    logger.error({ code: error.code, reason: error.message, ...(unlogged > 0 ? { suppressed: unlogged } : {}) }, 'token could not be verified');
    lastErrorLogAt = now;
    unlogged = 0;
  };

  return async function bearerAuthMiddleware(c, next) {
    let principal: Principal;
    try {
      principal = await verifier.verify(c.req.header('authorization'));
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      if (error.code === 'temporarily_unavailable') {
        logUnavailable(error);
      } else {
        logger.info({ code: error.code, reason: error.message }, 'request refused by authentication');
      }
      try {
        onRefused?.(error.code);
      } catch {
        // metrics must never turn a refusal into a 500
      }
      return authErrorResponse(error, challenge);
    }
    c.set('principal', principal);
    c.set('authInfo', toAuthInfo(principal, resource));
    bindRequestLog({ principal: principal.id });
    await next();
    return undefined;
  };
}
