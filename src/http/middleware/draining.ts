// While the server drains, requests that would open a new MCP session are refused with 503 and a
// JSON-RPC error, so the client retries against another instance (Retry-After says when). Requests
// on existing sessions pass: they are the in-flight work the drain waits for.
import type { MiddlewareHandler } from 'hono';

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
    if (isDraining() && c.req.method === 'POST' && !c.req.header('mcp-session-id')) {
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
