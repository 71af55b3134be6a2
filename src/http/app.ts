// The Hono application: which middleware runs in which order, and which routes exist. Everything it
// needs is passed in, so tests, benchmarks and main build the same app.
//
// Order, outermost first:
//   options.middleware (request ids, metrics, …)  — every route
//   small body limit (16 KiB)                      — every route but /mcp, before anything reads a body
//   /healthz, /readyz                               — open: probes run before any auth or host check
//   /.well-known/mcp/server-card.json               — open
//   options.routes (/, /metrics)                    — open, or guarded by their own middleware
//   /mcp: host check → browser page (a GET from a browser) → options.beforeMcp (drain refusal) →
//         options.authenticate → body limit → the MCP handler,
//         which routes each request to its protocol era (legacy sessions on SDK 1.x, modern on SDK v2)
import { Hono } from 'hono';
import { SERVER_DEFAULTS } from '../config/server-defaults.js';
import { bodyLimit } from 'hono/body-limit';
import type { MiddlewareHandler } from 'hono';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { IndexHolder } from '../mcp/index-holder.js';
import { createLegacyServerFactory } from '../mcp/legacy-server.js';
import { createMcpService } from '../mcp/mcp-service.js';
import type { McpEra, ToolCallEvent } from '../mcp/mcp-service.js';
import { createModernServerFactory } from '../mcp/modern-server.js';
import type { ToolLimits } from '../mcp/tools/tool-limits.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { AppEnv } from './app-env.js';
import { jsonRpcErrorBody, SERVER_ERROR } from './json-rpc-error.js';
import { hostCheck } from './middleware/host-check.js';
import { browserPage } from './middleware/browser-page.js';
import { smallBodyLimit } from './middleware/small-body-limit.js';
import { healthRoutes } from './routes/health.js';
import { serverCardRoutes } from './routes/server-card.js';
import type { ServerCardAuthorization } from './routes/server-card.js';
import { SERVED_PROTOCOL_VERSIONS } from '../mcp/protocol-versions.js';
import { SERVER_IDENTITY } from '../mcp/server-identity.js';
import type { IndexStatus } from '../index-service/index-service.js';
import { mcpHandler } from './routes/mcp.js';
import type { ListenStreamLimits } from './routes/mcp.js';
import { randomBytes } from 'node:crypto';
import { createDurableSessions } from './durable-sessions.js';
import type { SessionRefusal } from './durable-sessions.js';
import { createSessionRevocations } from './session-revocations.js';
import type { SharedRevocations } from './session-revocations.js';
import { createSessionTokens } from './session-token.js';
import { StoreError } from '../store/store.js';
import { SessionRegistry } from './sessions.js';
import type { SessionEvent } from './sessions.js';
import { mcpResourceUrl, SERVER_PATHS } from '../server-paths.js';

export interface AppOptions {
  /** The shared index; tool calls wait until it is built, /readyz reports 503 until then. */
  index: IndexHolder;
  /** Origin clients use, e.g. "https://docs.example.com"; its host is allowed by the Host check. */
  publicUrl: string;
  /** Sessions kept at once, ≥ 1. Default MAX_SESSIONS's (SERVER_DEFAULTS, from src/config/schema.ts), as are the defaults below. */
  maxSessions?: number;
  /** Idle time after which a session is closed, in milliseconds. Default SESSION_IDLE_TTL's. */
  sessionIdleTtlMs?: number;
  /** Sessions one authenticated principal may hold, ≥ 1 (at most maxSessions); beyond it its own idlest is closed. Default MAX_SESSIONS_PER_PRINCIPAL's. */
  maxSessionsPerPrincipal?: number;
  /** false: no sessions at all, a fresh server per POST, GET and DELETE answer 405 (MCP_SESSIONS=off). Default true. */
  sessionsEnabled?: boolean;
  /**
   * Secret of the self-contained session ids, ≥ 32 characters; processes sharing it re-create each
   * other's sessions. Default a random one for this process (its sessions die with it).
   */
  sessionSecret?: string;
  /** A session's whole life from its initialize, in seconds, ≥ 1. Default SESSION_MAX_AGE's. */
  sessionMaxAgeSeconds?: number;
  /** Where ended sessions are recorded for every replica (the shared store). Default none: this process only. */
  sharedRevocations?: SharedRevocations;
  /** Largest request body accepted on /mcp, in bytes, ≥ 1; larger ones get 413. Default MAX_BODY_BYTES's. */
  maxBodyBytes?: number;
  /** JSON-RPC requests one legacy session may have in progress, ≥ 1 (a batch counts as its members); more get 429. Default MAX_CONCURRENT_PER_SESSION's. */
  maxConcurrentPerSession?: number;
  /**
   * JSON-RPC requests one principal may have in progress over all its sessions and modern requests,
   * ≥ 1; more get 429. See mcpHandler. Default MAX_CONCURRENT_PER_PRINCIPAL's.
   */
  maxConcurrentPerPrincipal?: number;
  /** With authentication off, the same bound per client address, ≥ 1. Default MAX_CONCURRENT_PER_ADDRESS's. */
  maxConcurrentPerAddress?: number;
  /** Bounds on modern subscriptions/listen streams (see ListenStreamLimits). Defaults MAX_LISTEN_STREAMS_PER_PRINCIPAL's, MAX_LISTEN_STREAMS_PER_ADDRESS's and LISTEN_IDLE_TTL's. */
  listenStreams?: Partial<ListenStreamLimits>;
  /** Longest a tool call waits for the index before it is answered with an error, in milliseconds. Default REQUEST_TIMEOUT_MS's (assemble passes that setting). */
  indexWaitMs?: number;
  /** Bounds on what one tool call may ask for (query length, top_k, max_chars, page size). Default DEFAULT_TOOL_LIMITS. */
  toolLimits?: Partial<ToolLimits>;
  /** Reported in the MCP initialize and server/discover results. Default { name: 'corpus-mcp', version: '0.0.0' }. */
  serverInfo?: { name: string; version: string };
  logger?: Logger;
  /** Whether search queries may be logged. Default false. */
  logQueries?: boolean;
  /** Mounted before every route (request ids, HTTP metrics). Default none. */
  middleware?: readonly MiddlewareHandler[];
  /** Mounted on /mcp after the Host check and before authentication (e.g. refuse new sessions while draining). */
  beforeMcp?: readonly MiddlewareHandler[];
  /**
   * Authentication for /mcp: must answer 401/403 itself or set `principal` and `authInfo` on the
   * context. Omit to serve without authentication (then only a loopback HOST is safe).
   */
  authenticate?: MiddlewareHandler;
  /**
   * What the server card says a client needs to call /mcp. Default bearer when `authenticate` is set,
   * else none; assemble.ts says oauth2 where an authorization server issues the tokens.
   */
  cardAuthorization?: ServerCardAuthorization;
  /** Further open routes (landing page, /metrics), mounted after the health routes. Default none. */
  routes?: Hono;
  /** Extra reason for /readyz to answer 503 (e.g. draining). */
  notReadyReason?: () => string | undefined;
  /** Generation and last reload of the index, shown by /readyz. Default none (not shown). */
  indexStatus?: (() => IndexStatus) | undefined;
  /** Session created / evicted / expired / deleted / shutdown. Must not throw. */
  onSessionEvent?: (event: SessionEvent) => void;
  /** After every tools/call. Must not throw. */
  onToolCall?: (event: ToolCallEvent) => void;
  /** A request named a session of another principal (answered 404). Must not throw. */
  onForeignSession?: () => void;
  /** A request reached the MCP handler and was routed to this era. Must not throw. */
  onRequestEra?: (era: McpEra) => void;
  /** A request's session id was refused (answered 404), or its session re-created. Must not throw. */
  onSessionLookup?: (outcome: SessionRefusal | 'restored') => void;
  /** Embeddings and rerank endpoints; /readyz reports its state. Default none (keyword search only). */
  semantic?: SemanticService;
}

export interface CorpusApp {
  app: Hono<AppEnv>;
  sessions: SessionRegistry;
  /** Closes every session and modern exchange (ends their SSE streams). The HTTP server is the caller's to close. */
  close(): Promise<void>;
}

export function createApp(options: AppOptions): CorpusApp {
  const {
    index,
    publicUrl,
    maxSessions = SERVER_DEFAULTS.maxSessions,
    sessionIdleTtlMs = SERVER_DEFAULTS.sessionIdleTtlSeconds * 1000,
    maxSessionsPerPrincipal = SERVER_DEFAULTS.maxSessionsPerPrincipal,
    maxBodyBytes = SERVER_DEFAULTS.maxBodyBytes,
    maxConcurrentPerSession = SERVER_DEFAULTS.maxConcurrentPerSession,
    maxConcurrentPerPrincipal = SERVER_DEFAULTS.maxConcurrentPerPrincipal,
    maxConcurrentPerAddress = SERVER_DEFAULTS.maxConcurrentPerAddress,
    listenStreams,
    indexWaitMs = SERVER_DEFAULTS.requestTimeoutMs,
    toolLimits,
    serverInfo,
    logger = silentLogger,
    logQueries = false,
    middleware = [],
    beforeMcp = [],
    authenticate,
    cardAuthorization = authenticate ? { type: 'bearer' } : { type: 'none' },
    notReadyReason,
    indexStatus,
    routes,
    onSessionEvent,
    onToolCall,
    onForeignSession,
    onRequestEra,
    onSessionLookup,
    sessionsEnabled = true,
    sessionSecret = randomBytes(32).toString('base64url'),
    sessionMaxAgeSeconds = SERVER_DEFAULTS.sessionMaxAgeSeconds,
    sharedRevocations,
    semantic,
  } = options;

  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes < 1) throw new RangeError(`createApp: maxBodyBytes must be a whole number ≥ 1, got ${maxBodyBytes}`);
  const sessions = new SessionRegistry({
    maxSessions,
    idleTtlMs: sessionIdleTtlMs,
    maxSessionsPerPrincipal: Math.min(maxSessionsPerPrincipal, maxSessions),
    logger,
    onEvent: onSessionEvent,
  });
  const service = createMcpService({ index, serverInfo, logger, logQueries, onToolCall, indexWaitMs, toolLimits, semantic });
  const createServer = createLegacyServerFactory(service);
  // A reloaded index may list other documents: tell every session. The SDK sends it on the session's
  // GET stream; a session without one has nowhere to receive it and misses nothing it asked for.
  index.onChange(() => {
    for (const session of sessions.all()) {
      session.server.sendResourceListChanged().catch((error: unknown) => logger.debug({ err: error }, 'list_changed not delivered'));
    }
  });
  // Modern answers are cacheable by anyone only when anyone may ask.
  const createModernServer = createModernServerFactory(service, { cacheScope: authenticate ? 'private' : 'public' });
  const modern = createMcpHandler(createModernServer, {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    // Refusals (-32020, -32022, …) are answered to the client; they are worth a debug line, not more.
    onerror: (error) => logger.debug({ err: error, era: 'modern' }, 'modern request refused or failed'),
  });
  // A reload changes the documents: modern clients listening on subscriptions/listen are told.
  const stopAnnouncingReloads = index.onChange(() => modern.notify.resourcesChanged());
  const durable = sessionsEnabled
    ? createDurableSessions({
        sessions,
        createServer,
        tokens: createSessionTokens({ secret: sessionSecret, maxAgeSeconds: sessionMaxAgeSeconds }),
        revocations: createSessionRevocations({ shared: sharedRevocations }),
        logger,
      })
    : undefined;

  const app = new Hono<AppEnv>();
  for (const m of middleware) app.use(m);
  // /mcp has its own, larger limit below, after authentication.
  app.use(smallBodyLimit({ except: [SERVER_PATHS.mcp] }));
  app.route('/', healthRoutes({ index, notReadyReason, semantic, indexStatus }));
  // The server card: public, like the OAuth metadata, and from the very tool table tools/list answers.
  app.route('/', serverCardRoutes({
    publicUrl,
    identity: SERVER_IDENTITY,
    version: service.serverInfo.version,
    protocolVersions: SERVED_PROTOCOL_VERSIONS,
    tools: service.listToolsResult.tools,
    authorization: cardAuthorization,
  }));
  if (routes) app.route('/', routes);

  app.use(SERVER_PATHS.mcp, hostCheck({ publicUrl }));
  app.use(SERVER_PATHS.mcp, browserPage({ mcpUrl: mcpResourceUrl(publicUrl) }));
  for (const m of beforeMcp) app.use(SERVER_PATHS.mcp, m);
  if (authenticate) app.use(SERVER_PATHS.mcp, authenticate);
  // After authentication, so an anonymous caller cannot make the server buffer a body at all. The
  // limit holds for chunked bodies too: they are counted while read.
  app.use(
    SERVER_PATHS.mcp,
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) => c.json(jsonRpcErrorBody(SERVER_ERROR, `Payload Too Large: the request body must not exceed ${maxBodyBytes} bytes`), 413),
    }),
  );
  const listen: ListenStreamLimits = {
    maxPerPrincipal: SERVER_DEFAULTS.maxListenStreamsPerPrincipal,
    maxPerAddress: SERVER_DEFAULTS.maxListenStreamsPerAddress,
    idleMs: SERVER_DEFAULTS.listenIdleTtlSeconds * 1000,
    ...listenStreams,
  };
  app.all(SERVER_PATHS.mcp, mcpHandler({ durable, createServer, modern, logger, maxConcurrentPerSession, maxConcurrentPerPrincipal, maxConcurrentPerAddress, listen, onForeignSession, onRequestEra, onSessionLookup }));

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

  return {
    app,
    sessions,
    close: async () => {
      stopAnnouncingReloads();
      await Promise.all([sessions.closeAll(), modern.close()]);
    },
  };
}
