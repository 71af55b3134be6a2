// Everything an operator watches or triggers, assembled in one place and handed to createApp as
// options: request ids and JSON request logs, HTTP and MCP metrics, /metrics and the landing page,
// the drain on shutdown. main.ts and the end-to-end tests build it the same way, so what the tests
// observe is what production runs.
import type { Server } from 'node:http';
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { SERVER_DEFAULTS } from '../config/server-defaults.js';
import type { AppLogger, Logger } from '../logger.js';
import type { IndexService, IndexStatus } from '../index-service/index-service.js';
import type { IndexHolder } from '../mcp/index-holder.js';
import type { McpEra, ToolCallEvent } from '../mcp/mcp-service.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import type { CorpusApp } from './app.js';
import { createMetrics } from './metrics.js';
import type { Metrics } from './metrics.js';
import { refuseNewSessionsWhileDraining } from './middleware/draining.js';
import { httpMetrics } from './middleware/metrics.js';
import { requestId, requestScopedLogger } from './middleware/request-id.js';
import { landingRoute } from './routes/landing.js';
import { metricsRoute } from './routes/metrics.js';
import type { SessionEvent } from './sessions.js';
import { createShutdown } from './shutdown.js';
import type { Shutdown } from './shutdown.js';
import { SERVER_PATHS } from '../server-paths.js';

export interface OperationsOptions {
  /** The process logger; request lines are children of it. */
  logger: AppLogger;
  /** Origin clients use, no trailing slash; shown on the landing page. */
  publicUrl: string;
  /** The shared index: its size feeds the landing page and the index gauges once built. */
  index: IndexHolder;
  /** Upper bound on the shutdown drain, in milliseconds, > 0. Default DRAIN_TIMEOUT_MS's (SERVER_DEFAULTS). */
  drainTimeoutMs?: number;
  /** Default: a fresh registry with process metrics. Pass one to share it with other code. */
  metrics?: Metrics;
  /** Mounted in front of GET /metrics, e.g. the METRICS_TOKEN check. Default none (open). */
  metricsGuard?: MiddlewareHandler;
  /**
   * Whether the app's own port serves /metrics. Default true. When false, /metrics is only on
   * `metricsApp`, for a listener of its own (METRICS_PORT), or nowhere.
   */
  publicMetrics?: boolean;
  /** Whether /mcp requires credentials; the landing page then shows how to pass them. Default false. */
  authRequired?: boolean;
  /** How credentials are had, for the landing page: OAuth sign-in, static tokens. Default neither. */
  access?: { oauth: boolean; staticTokens: boolean };
  /** Embeddings state, exported as the corpus_mcp_semantic_state gauge. Default none (off). */
  semantic?: SemanticService;
  /** The service that builds and reloads the index: its reloads feed the metrics and /readyz. Default none. */
  indexService?: Pick<IndexService, 'status' | 'onReload'>;
}

/** The subset of createApp's options operations fills in. */
export interface OperationsAppOptions {
  logger: Logger;
  middleware: MiddlewareHandler[];
  beforeMcp: MiddlewareHandler[];
  routes: Hono;
  notReadyReason: () => string | undefined;
  indexStatus: (() => IndexStatus) | undefined;
  onSessionEvent: (event: SessionEvent) => void;
  onToolCall: (event: ToolCallEvent) => void;
  onRequestEra: (era: McpEra) => void;
}

export interface Operations {
  readonly metrics: Metrics;
  /** GET /metrics alone (guarded like the public one), for a listener of its own on METRICS_PORT. */
  readonly metricsApp: Hono;
  readonly shutdown: Shutdown;
  /** Spread into createApp's options. */
  readonly appOptions: OperationsAppOptions;
  /** Once the app is built and the server listens: live session gauge, drain target. */
  attach(server: Server, app: CorpusApp): void;
}

export function createOperations(options: OperationsOptions): Operations {
  const { logger, publicUrl, index, drainTimeoutMs = SERVER_DEFAULTS.drainTimeoutMs, metricsGuard, authRequired = false, access, indexService, publicMetrics = true } = options;
  const metrics = options.metrics ?? createMetrics();
  const { semantic } = options;
  if (semantic !== undefined) metrics.observeSemanticState(() => semantic.state.state);
  const shutdown = createShutdown({ logger, drainTimeoutMs });

  index.wait().then(
    ({ index: built }) => metrics.setIndexStats(built.stats),
    () => {}, // a failed build is main's to report; the gauges stay at "not ready"
  );
  index.onChange(({ index: swapped }) => metrics.setIndexStats(swapped.stats));
  indexService?.onReload((reload) => metrics.recordIndexReload(reload));
  if (indexService) metrics.observeIndexBuild(() => indexService.status().progress);

  const routes = new Hono();
  routes.get('/', landingRoute({ publicUrl, authRequired, ...access, stats: () => index.current?.index.stats }));
  const metricsApp = new Hono();
  if (metricsGuard) metricsApp.use(SERVER_PATHS.metrics, metricsGuard);
  metricsApp.get(SERVER_PATHS.metrics, metricsRoute({ metrics }));
  if (publicMetrics) routes.route('/', metricsApp);

  const onSessionEvent = (event: SessionEvent) => {
    if (event.type === 'created') metrics.recordSessionCreated();
    else metrics.recordSessionEnded(event.type);
  };
  const onToolCall = (event: ToolCallEvent) => {
    metrics.recordToolCall({
      tool: event.tool,
      outcome: event.outcome,
      era: event.era,
      durationSeconds: event.durationMs / 1000,
      ...(event.resultCount !== undefined && event.outcome === 'ok' ? { resultCount: event.resultCount } : {}),
      ...(event.semanticFallback ? { semanticFallback: true } : {}),
    });
  };

  return {
    metrics,
    metricsApp,
    shutdown,
    appOptions: {
      logger: requestScopedLogger(logger),
      middleware: [requestId({ logger, eraOf: (c) => c.get('era') }), httpMetrics({ metrics })],
      beforeMcp: [refuseNewSessionsWhileDraining({ isDraining: () => shutdown.draining })],
      routes,
      notReadyReason: () => (shutdown.draining ? 'the server is shutting down' : undefined),
      indexStatus: indexService ? () => indexService.status() : undefined,
      onSessionEvent,
      onToolCall,
      onRequestEra: (era) => metrics.recordMcpRequest(era),
    },
    attach(server, app) {
      metrics.observeActiveSessions(() => app.sessions.size);
      shutdown.attach({ server, closeSessions: () => app.close() });
    },
  };
}
