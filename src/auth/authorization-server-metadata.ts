import { AuthError } from './auth-error.js';
import { fetchJson } from './fetch-json.js';
import type { FetchLike } from './fetch-json.js';

/**
 * The metadata URLs to try for an issuer, in the order the MCP authorization spec (2025-11-25,
 * "Authorization Server Metadata Discovery") prescribes:
 *
 * - issuer with a path (`https://as.example/tenant1`):
 *   1. RFC 8414 path insertion: `https://as.example/.well-known/oauth-authorization-server/tenant1`
 *   2. OpenID Connect with path insertion: `https://as.example/.well-known/openid-configuration/tenant1`
 *   3. OpenID Connect path appending: `https://as.example/tenant1/.well-known/openid-configuration`
 * - issuer without a path: `/.well-known/oauth-authorization-server`, then `/.well-known/openid-configuration`.
 *
 * RFC 8414 §3.1: a terminating "/" of the issuer's path is removed before insertion, so
 * `https://tenant.auth0.com/` has no path component.
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  const origin = url.origin;
  if (path === '') {
    return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  }
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Whether a discovered `jwks_uri` may be used: https, or plain http only when the issuer itself is
 * http (which src/config/ allows for a loopback issuer alone) and on the issuer's own host. The key set
 * decides which signatures are trusted, so it must not travel in the clear where the issuer does not.
 */
function acceptableJwksUri(jwksUri: string, issuer: string): boolean {
  const jwks = new URL(jwksUri);
  if (jwks.protocol === 'https:') return true;
  const iss = new URL(issuer);
  return jwks.protocol === 'http:' && iss.protocol === 'http:' && jwks.hostname === iss.hostname;
}

/**
 * Fetches the issuer's metadata and returns its `jwks_uri`. A document whose `issuer` differs from
 * the configured one is rejected (RFC 8414 §3.3, OpenID Connect Discovery §4.3: it could be an
 * impersonation). Redirects are not followed and bodies are capped (see fetch-json.ts). Throws
 * AuthError `temporarily_unavailable` naming every URL tried and why it failed.
 */
export async function discoverJwksUri(
  issuer: string,
  { fetch: fetchImpl, timeoutMs = 5000 }: { fetch?: FetchLike; timeoutMs?: number } = {},
): Promise<string> {
  const failures: string[] = [];
  for (const url of authorizationServerMetadataUrls(issuer)) {
    let body: unknown;
    try {
      body = await fetchJson(url, { timeoutMs, ...(fetchImpl ? { fetch: fetchImpl } : {}) });
    } catch (error) {
      failures.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const metadata = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (metadata.issuer !== issuer) {
      failures.push(`${url}: its issuer ${JSON.stringify(metadata.issuer)} is not ${JSON.stringify(issuer)}`);
      continue;
    }
    if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) {
      failures.push(`${url}: it has no valid jwks_uri`);
      continue;
    }
    if (!acceptableJwksUri(metadata.jwks_uri, issuer)) {
      failures.push(`${url}: its jwks_uri ${JSON.stringify(metadata.jwks_uri)} is not https`);
      continue;
    }
    return metadata.jwks_uri;
  }
  throw new AuthError(
    'temporarily_unavailable',
    `could not discover the signing keys of OAUTH_ISSUER ${issuer} (${failures.join('; ')}); ` +
      'check that the issuer is reachable, or set OAUTH_JWKS_URL',
  );
}
