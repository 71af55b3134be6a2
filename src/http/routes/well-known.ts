// RFC 9728 protected resource metadata: tells an MCP client which authorization server issues tokens
// for this server, and under which resource identifier (RFC 8707) to ask for them.
import type { Handler } from 'hono';
import { SERVER_PATHS } from '../../server-paths.js';

export interface ProtectedResourceMetadataOptions {
  /** Canonical resource URL of the MCP endpoint, e.g. `https://docs.example.com/mcp` (PUBLIC_URL + '/mcp'). */
  resource: string;
  /** Issuers that mint tokens for this resource (`OAUTH_ISSUER`). Default none (static tokens only). */
  authorizationServers?: readonly string[];
  /** Scopes a client should request (`OAUTH_REQUIRED_SCOPES`). Omitted from the document when empty. */
  scopesSupported?: readonly string[];
  /** Human-readable name (RFC 9728 §2 `resource_name`). Default 'corpus-mcp'. */
  resourceName?: string;
}

/**
 * RFC 9728 §3.1: the metadata URL of a resource inserts `/.well-known/oauth-protected-resource`
 * between the host and the path: `https://host/mcp` → `https://host/.well-known/oauth-protected-resource/mcp`.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${SERVER_PATHS.protectedResourceMetadata}${path}${url.search}`;
}

/**
 * The paths on this server under which the metadata is served: the RFC 9728 path-suffixed one for the
 * MCP endpoint (what the WWW-Authenticate challenge points to), and the bare one, which clients of the
 * 2025-03-26 era and some connectors probe at the root.
 */
export function protectedResourceMetadataPaths(resource: string): string[] {
  const paths = new Set([new URL(protectedResourceMetadataUrl(resource)).pathname, SERVER_PATHS.protectedResourceMetadata]);
  return [...paths];
}

export function protectedResourceMetadataRoute(options: ProtectedResourceMetadataOptions): Handler {
  const { resource, authorizationServers = [], scopesSupported = [], resourceName = 'corpus-mcp' } = options;
  if (!resource || !URL.canParse(resource)) throw new TypeError(`protectedResourceMetadataRoute: resource ${JSON.stringify(resource)} is not an absolute URL`);

  const document = Object.freeze({
    // RFC 9728 §3.3: must be identical to the resource identifier the metadata URL was built from.
    resource,
    ...(authorizationServers.length > 0 ? { authorization_servers: [...authorizationServers] } : {}),
    ...(scopesSupported.length > 0 ? { scopes_supported: [...scopesSupported] } : {}),
    // RFC 6750 §2.1 only: tokens in a form body or the query string are not accepted.
    bearer_methods_supported: ['header'],
    resource_name: resourceName,
  });

  return function protectedResourceMetadata(c) {
    // Public information; browser-based MCP clients read it cross-origin.
    return c.json(document, 200, { 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=300' });
  };
}
