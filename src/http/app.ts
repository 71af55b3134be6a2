// The Hono application: which middleware runs in which order, and which sub-apps are mounted where.
// Each sub-app is built by its owner and handed in mounted form, so tests, benchmarks and main build
// the same app from the same parts.
//
// Order, outermost first:
//   middleware (request ids, metrics, …)  — every route
//   Host check (DNS rebinding)             — every route; an IP address as Host also on /healthz,
//                                            /readyz and /metrics (middleware/host-check.ts)
//   small body limit (16 KiB)              — every route but /mcp, before anything reads a body
//   health (/healthz, /readyz)             — open: probes run before any auth
//   the other open sub-apps in the order given: the server card, the landing page, /metrics (open
//     or guarded by its own middleware), the authorization server (metadata, sign-in)
//   mcp (routes/mcp.ts): Origin check → browser page → drain refusal → authentication → body limit →
//     the MCP endpoint, which routes each request to its protocol era
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import { jsonRpcErrorBody, SERVER_ERROR } from '../mcp/json-rpc-error.js';
import { StoreError } from '../store/store.js';
import { SERVER_PATHS } from '../server-paths.js';
import type { AppEnv } from './app-env.js';
import { hostCheck } from './middleware/host-check.js';
import { smallBodyLimit } from './middleware/small-body-limit.js';

/** Where a platform's checker or a scraper may name the machine by its address (see host-check.ts). */
export const OPERATOR_PATHS: readonly string[] = [SERVER_PATHS.healthz, SERVER_PATHS.readyz, SERVER_PATHS.metrics];

export interface AppParts {
  /** The origin clients use (PUBLIC_URL): its host, and loopback names, pass the Host check. */
  publicUrl: string;
  /** The liveness and readiness probes (routes/health.ts). */
  health: Hono;
  /** /mcp (routes/mcp.ts). */
  mcp: Hono<AppEnv>;
  /** Further open sub-apps, mounted in this order after the probes: server card, landing page, /metrics, authorization server. Default none. */
  open?: readonly (Hono | undefined)[];
  /** Mounted before every route (request ids, HTTP metrics). Default none. */
  middleware?: readonly MiddlewareHandler[];
  logger?: Logger;
}

export function createApp({ publicUrl, health, mcp, open = [], middleware = [], logger = silentLogger }: AppParts): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const m of middleware) app.use(m);
  app.use(hostCheck({ publicUrl, checks: 'host', addressHostPaths: OPERATOR_PATHS }));
  // /mcp has its own, larger limit, after authentication; the push webhook its own too.
  app.use(smallBodyLimit({ except: [SERVER_PATHS.mcp, SERVER_PATHS.gitHook] }));
  app.route('/', health);
  for (const part of open) if (part !== undefined) app.route('/', part);
  app.route('/', mcp);

  app.notFound((c) => c.json({ error: 'not_found', message: `no route for ${c.req.method} ${c.req.path}; the MCP endpoint is ${SERVER_PATHS.mcp}` }, 404));
  app.onError((error, c) => {
    // The client went away while its body was being read (Node rejects the body stream with an
    // ECONNRESET "aborted" error): the client's doing, not a server fault to alert on or count as 5xx.
    if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') {
      logger.debug({ path: c.req.path }, 'client closed the connection before its request body arrived');
      return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: the request body was cut off'), 400);
    }
    // The shared store (session revocations) is unreachable: a passing outage, not a bad session. A
    // 404 would make the client drop a good session; 503 tells it to retry.
    if (error instanceof StoreError) {
      logger.error({ err: error, path: c.req.path }, 'shared store unavailable');
      return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Service Unavailable: the session store cannot be reached; retry shortly'), 503, { 'Retry-After': '2' });
    }
    logger.error({ err: error, path: c.req.path }, 'unhandled error');
    return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Internal server error'), 500);
  });
  return app;
}
