// Gives every request an id, a logger bound to it, and one summary line when it ends. The logger
// travels in an AsyncLocalStorage so code that never sees the Hono context (tool handlers reached
// through the MCP transport) still writes lines carrying the same request id.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { sessionLogId } from '../../logger.js';
import type { AppLogger, Logger } from '../../logger.js';
import { sentDirectly, sentStatus } from './sent-status.js';
import { PROBE_PATHS, SERVER_PATHS } from '../../server-paths.js';

/** What a request carries while it runs. `logger` is re-bound as more becomes known (principal, session). */
export interface RequestContext {
  readonly requestId: string;
  logger: AppLogger;
}

export type RequestIdVariables = { requestId: string };

const storage = new AsyncLocalStorage<RequestContext>();

/** The context of the request whose work is running now, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/**
 * Adds fields to every later log line of the current request, e.g. `{ principal: 'token:3f9a…' }`
 * once auth has run. Never pass a credential: the principal id exists so that a token need not be.
 */
export function bindRequestLog(fields: Record<string, unknown>): void {
  const context = storage.getStore();
  if (context) context.logger = context.logger.child(fields);
}

/**
 * A logger for code built once per process (the MCP server factory, the session registry) that
 * writes through the current request's logger when there is one, so its lines carry the request id
 * and principal, and through `fallback` otherwise (timers, boot, shutdown).
 */
export function requestScopedLogger(fallback: Logger): Logger {
  const pick = (): Logger => storage.getStore()?.logger ?? fallback;
  return {
    debug: (fields, message) => pick().debug(fields, message),
    info: (fields, message) => pick().info(fields, message),
    warn: (fields, message) => pick().warn(fields, message),
    error: (fields, message) => pick().error(fields, message),
  };
}

/** Paths longer than this are cut in the request log. */
const MAX_LOGGED_PATH = 200;
// MCP 2025-11-25 transports: a session id is visible ASCII (0x21–0x7E); ours are far below 1024 characters.
const SESSION_ID_SHAPE = /^[\x21-\x7e]{1,1024}$/;

/** Upper bound on an accepted incoming id; longer ones are replaced, not truncated. */
export const MAX_REQUEST_ID_LENGTH = 128;
const SANE_ID = /^[A-Za-z0-9._:@/+=-]+$/;

/** An incoming id is honoured only if short and made of characters that cannot forge log structure. */
export function isSaneRequestId(value: string | undefined): value is string {
  return value !== undefined && value.length > 0 && value.length <= MAX_REQUEST_ID_LENGTH && SANE_ID.test(value);
}

export interface RequestIdOptions {
  logger: AppLogger;
  /** Header read and echoed. Default 'x-request-id'. */
  headerName?: string;
  /** Makes a fresh id when the incoming one is absent or not sane. Default `crypto.randomUUID`. */
  generate?: () => string;
  /**
   * Paths polled by machines (probes, scrapers): their successful requests are logged at debug, not
   * info, so a health check every few seconds does not drown the log. Default /healthz, /readyz, /metrics.
   */
  quietPaths?: readonly string[];
  /** The MCP protocol era the request was routed to, if it reached the MCP route. Default: none. */
  eraOf?: (c: Parameters<MiddlewareHandler>[0]) => string | undefined;
}

export function requestId(options: RequestIdOptions): MiddlewareHandler<{ Variables: RequestIdVariables }> {
  const { logger, headerName = 'x-request-id', generate = randomUUID, eraOf } = options;
  const quiet = new Set(options.quietPaths ?? [...PROBE_PATHS, SERVER_PATHS.metrics]);
  if (!headerName) throw new TypeError('requestId: headerName must be a non-empty header name');

  return async function requestIdMiddleware(c, next) {
    const incoming = c.req.header(headerName);
    const fromClient = isSaneRequestId(incoming);
    const id = fromClient ? incoming : generate();
    const inboundSession = c.req.header('mcp-session-id');
    const context: RequestContext = { requestId: id, logger: logger.child({ request_id: id }) };
    c.set('requestId', id);
    const start = performance.now();
    await storage.run(context, async () => {
      let status = 500;
      try {
        await next();
        status = await sentStatus(c);
      } finally {
        // A handler that wrote the Node response itself (the authorization server) set the header there;
        // touching c.res would make Hono rebuild the response and write it a second time.
        if (!sentDirectly(c)) c.header(headerName, id);
        const sessionId = inboundSession ?? c.res.headers.get('mcp-session-id') ?? undefined;
        const fields: Record<string, unknown> = {
          method: c.req.method,
          // Anyone may send any path: logged bounded, the route pattern says what it matched.
          path: c.req.path.length > MAX_LOGGED_PATH ? `${c.req.path.slice(0, MAX_LOGGED_PATH)}…` : c.req.path,
          route: routePath(c),
          status,
          duration_ms: Math.round((performance.now() - start) * 100) / 100,
        };
        // A session id the client sent is logged only when it has the shape of one (MCP: visible
        // ASCII) and the request got past authentication and the Host check: an anonymous caller
        // must not be able to fill the log with ids of its choosing.
        const refused = status === 401 || status === 403;
        if (sessionId && (sessionId !== inboundSession || (!refused && SESSION_ID_SHAPE.test(sessionId)))) {
          fields.session_id = sessionLogId(sessionId);
        }
        // An id the client chose: useful to correlate, but not to be trusted as unique.
        if (fromClient) fields.request_id_from_client = true;
        const era = eraOf?.(c);
        if (era) fields.era = era;
        // A probe answering 503 is expected while starting or draining: worth a warning, not an error.
        const level = quiet.has(c.req.path) ? (status < 400 ? 'debug' : 'warn') : status >= 500 ? 'error' : 'info';
        context.logger[level](fields, 'request completed');
      }
    });
  };
}
