// /mcp: the MCP endpoint (src/mcp/mcp-endpoint.ts) mounted as one fetch-style handler, behind what the
// HTTP layer owns: the Host/Origin check, a short page for a browser's GET, the caller's middleware
// (drain refusal), authentication and the body limit. The handler is told who asked and from which
// address, and says which era it routed the request to, for the access log.
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { MiddlewareHandler } from 'hono';
import type { McpFetchHandler } from '../../mcp/endpoint/mcp-request.js';
import { jsonRpcErrorBody, SERVER_ERROR } from '../../mcp/json-rpc-error.js';
import { mcpResourceUrl, SERVER_PATHS } from '../../server-paths.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from '../client-address.js';
import { browserPage } from '../middleware/browser-page.js';
import { hostCheck } from '../middleware/host-check.js';

export interface McpRoutesOptions {
  /** The endpoint (createMcpEndpoint's `fetch`). */
  handler: McpFetchHandler;
  /** Origin clients use, e.g. "https://docs.example.com"; its host is allowed by the Host check. */
  publicUrl: string;
  /** Largest request body accepted, in bytes, ≥ 1; larger ones get 413. */
  maxBodyBytes: number;
  /** Mounted after the Host check and before authentication (e.g. refuse new sessions while draining). Default none. */
  before?: readonly MiddlewareHandler[];
  /**
   * Must answer 401/403 itself or set `principal` and `authInfo` on the context. Omit to serve
   * without authentication (then only a loopback HOST is safe).
   */
  authenticate?: MiddlewareHandler | undefined;
}

export function mcpRoutes({ handler, publicUrl, maxBodyBytes, before = [], authenticate }: McpRoutesOptions): Hono<AppEnv> {
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) throw new RangeError(`mcpRoutes: maxBodyBytes must be a whole number ≥ 1, got ${maxBodyBytes}`);
  const path = SERVER_PATHS.mcp;
  const routes = new Hono<AppEnv>();
  // The Host is checked for every route (app.ts); the Origin here.
  routes.use(path, hostCheck({ publicUrl, checks: 'origin' }));
  routes.use(path, browserPage({ mcpUrl: mcpResourceUrl(publicUrl) }));
  for (const m of before) routes.use(path, m);
  if (authenticate) routes.use(path, authenticate);
  // After authentication, so an anonymous caller cannot make the server buffer a body at all. The
  // limit holds for chunked bodies too: they are counted while read.
  routes.use(
    path,
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json(jsonRpcErrorBody(SERVER_ERROR, `Payload Too Large: the request body must not exceed ${maxBodyBytes} bytes`), 413),
    }),
  );
  routes.all(path, (c) =>
    handler(c.req.raw, {
      authInfo: c.get('authInfo'),
      principal: c.get('principal')?.id,
      clientAddress: clientAddress(c),
      routed: (era) => c.set('era', era),
    }),
  );
  return routes;
}
