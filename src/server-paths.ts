// The paths this server answers on, and the MCP resource URL built from them: one table that config,
// the routes, the middleware and shutdown all read, so a path is spelled once. Neutral ground: config/
// may not import http/, and http/ reads these too.

export const SERVER_PATHS = Object.freeze({
  /** The MCP endpoint (Streamable HTTP and the legacy era). */
  mcp: '/mcp',
  /** Liveness: the process answers. */
  healthz: '/healthz',
  /** Readiness: the index is loaded. */
  readyz: '/readyz',
  /** The git source's push webhook, with CORPUS_GIT_WEBHOOK_SECRET. */
  gitHook: '/hooks/git',
  /** Prometheus metrics. */
  metrics: '/metrics',
  /** RFC 9728 protected resource metadata (the bare form; the MCP one appends its path). */
  protectedResourceMetadata: '/.well-known/oauth-protected-resource',
  /** RFC 8414 authorization server metadata. */
  authorizationServerMetadata: '/.well-known/oauth-authorization-server',
  /** OpenID Connect discovery. */
  openidConfiguration: '/.well-known/openid-configuration',
  /** What directories read about this server. */
  serverCard: '/.well-known/mcp/server-card.json',
});

/** The health probes: answered while draining, and kept out of request logs. */
export const PROBE_PATHS: readonly string[] = Object.freeze([SERVER_PATHS.healthz, SERVER_PATHS.readyz]);

/** The canonical resource URL of the MCP endpoint (RFC 8707): PUBLIC_URL + '/mcp', without a doubled slash. */
export function mcpResourceUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${SERVER_PATHS.mcp}`;
}
