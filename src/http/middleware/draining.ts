// While the server drains, requests that would open a new MCP session are refused with 503 and a
// JSON-RPC error, so the client retries against another instance (Retry-After says when). Requests
// on existing sessions pass: they are the in-flight work the drain waits for. So do modern
// (2026-07-28) requests: they open no session, each is complete in itself and ends within the drain,
// so answering them loses nothing, while refusing them would fail a client that a load balancer
// had not yet steered away.
import { LEGACY_PROTOCOL_VERSIONS } from '../../mcp/protocol-versions.js';
import type { MiddlewareHandler } from 'hono';

/**
 * Whether a POST without Mcp-Session-Id may open a legacy session. Modern requests must name their
 * revision in MCP-Protocol-Version (the SDK refuses them otherwise); a 2025 initialize sends none, or
 * a 2025 version. Decided on the header alone, so the body is not read before authentication.
 */
function mayOpenSession(protocolVersionHeader: string | undefined): boolean {
  return protocolVersionHeader === undefined || LEGACY_PROTOCOL_VERSIONS.includes(protocolVersionHeader);
}

/** JSON-RPC server-defined error code used for "server is shutting down". */
export const SHUTTING_DOWN_CODE = -32000;

export interface RefuseWhileDrainingOptions {
  isDraining: () => boolean;
  /** Seconds suggested to the client before retrying, >= 0. Default 5. */
  retryAfterSeconds?: number;
}

export function refuseNewSessionsWhileDraining(options: RefuseWhileDrainingOptions): MiddlewareHandler {
  const { isDraining, retryAfterSeconds = 5 } = options;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 0) {
    throw new RangeError(`refuseNewSessionsWhileDraining: retryAfterSeconds must be a whole number >= 0, got ${retryAfterSeconds}`);
  }

  return async function refuseWhileDraining(c, next) {
    if (isDraining() && c.req.method === 'POST' && !c.req.header('mcp-session-id') && mayOpenSession(c.req.header('mcp-protocol-version'))) {
      return c.json(
        {
          jsonrpc: '2.0',
          error: { code: SHUTTING_DOWN_CODE, message: 'server is shutting down and accepts no new sessions; retry shortly' },
          id: null,
        },
        503,
        { 'retry-after': String(retryAfterSeconds) },
      );
    }
    return next();
  };
}
