// The MCP endpoint, whole: the era-neutral service, both eras' servers and transports, the legacy
// session registry with its durable ids and revocations, era routing and the in-flight budgets. It is
// handed to the HTTP layer as one fetch-style handler (as SDK v2's `createMcpHandler` is mounted by
// `@modelcontextprotocol/hono`), which knows nothing of sessions or eras. Reports what it does through
// one events object (mcp-events.ts).
import { randomBytes } from 'node:crypto';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { SERVER_DEFAULTS } from '../config/server-defaults.js';
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import { eraRouter } from './endpoint/era-router.js';
import { legacyRequests } from './endpoint/legacy-requests.js';
import type { McpFetchHandler } from './endpoint/mcp-request.js';
import { createRequestBudgets } from './endpoint/request-budgets.js';
import type { ListenStreamLimits } from './endpoint/request-budgets.js';
import type { IndexHolder } from './index-holder.js';
import { createLegacyServerFactory } from './legacy-server.js';
import { McpEvents } from './mcp-events.js';
import { createMcpService } from './mcp-service.js';
import type { McpService } from './mcp-service.js';
import { createModernServerFactory } from './modern-server.js';
import { createDurableSessions } from './sessions/durable-sessions.js';
import { createSessionRevocations } from './sessions/session-revocations.js';
import type { SharedRevocations } from './sessions/session-revocations.js';
import { createSessionTokens } from './sessions/session-token.js';
import { SessionRegistry } from './sessions/session-registry.js';
import type { SourceLinks } from './tools/source-url.js';
import type { ToolLimits } from './tools/tool-limits.js';

export interface McpEndpointOptions {
  /** The shared index; tool calls wait until it is built. */
  holder: IndexHolder;
  /** Whether requests are authenticated: modern answers are cacheable by anyone only when anyone may ask. Default false. */
  authenticated?: boolean;
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
  /** Largest request body the modern handler accepts, in bytes, ≥ 1 (the HTTP layer's limit answers 413 first). Default MAX_BODY_BYTES's. */
  maxBodyBytes?: number;
  /** JSON-RPC requests one legacy session may have in progress, ≥ 1 (a batch counts as its members); more get 429. Default MAX_CONCURRENT_PER_SESSION's. */
  maxConcurrentPerSession?: number;
  /** JSON-RPC requests one principal may have in progress over all its sessions and modern requests, ≥ 1; more get 429 (see request-budgets.ts). Default MAX_CONCURRENT_PER_PRINCIPAL's. */
  maxConcurrentPerPrincipal?: number;
  /** With authentication off, the same bound per client address, ≥ 1. Default MAX_CONCURRENT_PER_ADDRESS's. */
  maxConcurrentPerAddress?: number;
  /** Bounds on modern subscriptions/listen streams (see ListenStreamLimits). Defaults MAX_LISTEN_STREAMS_PER_PRINCIPAL's, MAX_LISTEN_STREAMS_PER_ADDRESS's and LISTEN_IDLE_TTL's. */
  listenStreams?: Partial<ListenStreamLimits>;
  /** Longest a tool call waits for the index before it is answered with an error, in milliseconds. Default REQUEST_TIMEOUT_MS's. */
  indexWaitMs?: number;
  /** Bounds on what one tool call may ask for (query length, top_k, max_chars, page size). Default DEFAULT_TOOL_LIMITS. */
  toolLimits?: Partial<ToolLimits>;
  /** Reported in the MCP initialize and server/discover results. Default { name: 'corpus-mcp', version: '0.0.0' }. */
  serverInfo?: { name: string; version: string };
  logger?: Logger;
  /** Whether search queries may be logged. Default false. */
  logQueries?: boolean;
  /** Embeddings and rerank endpoints. Default none (keyword search only). */
  semantic?: SemanticService;
  /** How hits, chunks and documents get a `url` (SOURCE_URL_TEMPLATE, CORPUS_GIT_PATH). Default: front matter urls only. */
  sourceLinks?: SourceLinks;
  /** The MCP Apps view's HTML, served as ui://corpus-mcp/viewer (see viewer-resource.ts). Default none: no view. */
  viewerHtml?: string;
  /** Where sessions, tool calls, session lookups and routed requests are reported. Default a fresh one (see `events`). */
  events?: McpEvents;
}

export interface McpEndpoint {
  /** The endpoint as one fetch-style handler. */
  readonly fetch: McpFetchHandler;
  /** The era-neutral service: its tool table feeds the server card. */
  readonly service: McpService;
  /** Live legacy sessions. */
  readonly sessions: SessionRegistry;
  /** What the endpoint reports; subscribe metrics and logs here. */
  readonly events: McpEvents;
  /** Closes every session and modern exchange (ends their SSE streams). */
  close(): Promise<void>;
}

export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const {
    holder,
    authenticated = false,
    maxSessions = SERVER_DEFAULTS.maxSessions,
    sessionIdleTtlMs = SERVER_DEFAULTS.sessionIdleTtlSeconds * 1000,
    maxSessionsPerPrincipal = SERVER_DEFAULTS.maxSessionsPerPrincipal,
    sessionsEnabled = true,
    sessionSecret = randomBytes(32).toString('base64url'),
    sessionMaxAgeSeconds = SERVER_DEFAULTS.sessionMaxAgeSeconds,
    sharedRevocations,
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
    semantic,
    sourceLinks,
    viewerHtml,
  } = options;
  const events = options.events ?? new McpEvents({ logger });
  const sessions = new SessionRegistry({
    maxSessions,
    idleTtlMs: sessionIdleTtlMs,
    maxSessionsPerPrincipal: Math.min(maxSessionsPerPrincipal, maxSessions),
    logger,
    events,
  });
  const service = createMcpService({ holder, serverInfo, logger, logQueries, events, indexWaitMs, toolLimits, semantic, viewerHtml, ...(sourceLinks ? { sourceLinks } : {}) });
  const createServer = createLegacyServerFactory(service);
  // A reloaded index may list other documents: tell every session. The SDK sends it on the session's
  // GET stream; a session without one has nowhere to receive it and misses nothing it asked for.
  const stopTellingSessions = holder.onChange(() => {
    for (const session of sessions.all()) {
      session.server.sendResourceListChanged().catch((error: unknown) => logger.debug({ err: error }, 'list_changed not delivered'));
    }
  });
  const modern = createMcpHandler(createModernServerFactory(service, { cacheScope: authenticated ? 'private' : 'public' }), {
    legacy: 'reject',
    maxRequestBodySize: maxBodyBytes,
    // Refusals (-32020, -32022, …) are answered to the client; they are worth a debug line, not more.
    onerror: (error) => logger.debug({ err: error, era: 'modern' }, 'modern request refused or failed'),
  });
  // A reload changes the documents: modern clients listening on subscriptions/listen are told.
  const stopTellingListeners = holder.onChange(() => modern.notify.resourcesChanged());
  const durable = sessionsEnabled
    ? createDurableSessions({
        sessions,
        createServer,
        tokens: createSessionTokens({ secret: sessionSecret, maxAgeSeconds: sessionMaxAgeSeconds }),
        revocations: createSessionRevocations({ shared: sharedRevocations }),
        logger,
      })
    : 'off';
  const listen: ListenStreamLimits = {
    maxPerPrincipal: SERVER_DEFAULTS.maxListenStreamsPerPrincipal,
    maxPerAddress: SERVER_DEFAULTS.maxListenStreamsPerAddress,
    idleMs: SERVER_DEFAULTS.listenIdleTtlSeconds * 1000,
    ...listenStreams,
  };
  const budgets = createRequestBudgets({ maxConcurrentPerSession, maxConcurrentPerPrincipal, maxConcurrentPerAddress, listen });
  const legacy = legacyRequests({ durable, createServer, budgets, events, logger });
  return {
    fetch: eraRouter({ legacy, modern, budgets, listen, events, logger }),
    service,
    sessions,
    events,
    close: async () => {
      stopTellingSessions();
      stopTellingListeners();
      await Promise.all([sessions.closeAll(), modern.close()]);
    },
  };
}
