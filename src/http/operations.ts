// Everything an operator watches or triggers, built in one place as mountable parts: request ids and
// JSON request logs, HTTP and MCP metrics, the probes, /metrics and the landing page, the drain on
// shutdown. main.ts and the end-to-end tests build it the same way, so what the tests observe is what
// production runs.
import type { Server } from 'node:http';
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import { SERVER_DEFAULTS } from '../config/server-defaults.js';
import type { AppLogger, Logger } from '../logger.js';
import type { IndexService } from '../index-service/index-service.js';
import type { GitSource } from '../git-source/git-source.js';
import type { IndexHolder } from '../mcp/index-holder.js';
import type { McpEndpoint } from '../mcp/mcp-endpoint.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import { createMetrics } from './metrics.js';
import type { Metrics } from './metrics.js';
import { refuseNewSessionsWhileDraining } from './middleware/draining.js';
import { hostCheck } from './middleware/host-check.js';
import { httpMetrics } from './middleware/metrics.js';
import { requestId, requestScopedLogger } from './middleware/request-id.js';
import { healthRoutes } from './routes/health.js';
import { landingRoute } from './routes/landing.js';
import type { LandingOptions } from './routes/landing.js';
import { metricsRoute } from './routes/metrics.js';
import { createShutdown } from './shutdown.js';
import type { Shutdown } from './shutdown.js';
import { SERVER_PATHS } from '../server-paths.js';

export interface OperationsOptions {
  /** The process logger; request lines are children of it. */
  logger: AppLogger;
  /** Origin clients use, no trailing slash; shown on the landing page. */
  publicUrl: string;
  /** The shared index: its size feeds the landing page and the index gauges once built, its state /readyz. */
  holder: IndexHolder;
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
  /** Embeddings state, exported as the corpus_mcp_semantic_state gauge and shown by /readyz. Default none (off). */
  semantic?: SemanticService;
  /** The service that builds and reloads the index: its reloads feed the metrics and /readyz. Default none. */
  indexService?: Pick<IndexService, 'status' | 'onReload'>;
  /** The git source, when CORPUS_GIT_URL is set: its commit, fetch time and error feed /readyz and the metrics. */
  gitSource?: Pick<GitSource, 'status'>;
  /** The MCP Apps view and the landing page's host of it: without authentication, / offers a search. Default none. */
  viewer?: LandingOptions['viewer'];
}

export interface Operations {
  readonly metrics: Metrics;
  /**
   * GET /metrics alone (guarded like the public one, METRICS_TOKEN when set) behind the Host check,
   * for a listener of its own on METRICS_PORT.
   */
  readonly metricsApp: Hono;
  readonly shutdown: Shutdown;
  /** The logger request handlers write through (the request's own child when there is one). */
  readonly logger: Logger;
  /** createApp's middleware: request ids and access log, HTTP metrics. */
  readonly middleware: MiddlewareHandler[];
  /** Mounted on /mcp before authentication: refuse new sessions while draining. */
  readonly beforeMcp: MiddlewareHandler[];
  /** /healthz and /readyz (503 while draining). */
  readonly health: Hono;
  /** The landing page, and /metrics when the app's own port serves it. */
  readonly routes: Hono;
  /** Subscribes the metrics to what the MCP endpoint reports. */
  observe(endpoint: McpEndpoint): void;
  /** Once the server listens: the drain's target and the sessions it closes. */
  attach(server: Server, endpoint: McpEndpoint): void;
}

export function createOperations(options: OperationsOptions): Operations {
  const { logger, publicUrl, holder, drainTimeoutMs = SERVER_DEFAULTS.drainTimeoutMs, metricsGuard, authRequired = false, access, indexService, publicMetrics = true, semantic, gitSource, viewer } = options;
  const metrics = options.metrics ?? createMetrics();
  if (semantic !== undefined) {
    metrics.observeSemanticState(() => semantic.state.state);
    metrics.observeSemanticProgress(() => {
      const state = semantic.state;
      return state.state === 'starting' ? state.progress : undefined;
    });
  }
  const shutdown = createShutdown({ logger, drainTimeoutMs });

  holder.wait().then(
    ({ index: built }) => metrics.setIndexStats(built.stats),
    () => {}, // a failed build is main's to report; the gauges stay at "not ready"
  );
  holder.onChange(({ index: swapped }) => metrics.setIndexStats(swapped.stats));
  indexService?.onReload((reload) => metrics.recordIndexReload(reload));
  if (indexService) metrics.observeIndexBuild(() => indexService.status().progress);
  if (gitSource) metrics.observeGitSource(() => gitSource.status());

  // The tools are the endpoint's, known once it is observed.
  let tools: readonly { name: string; title?: string | undefined }[] = [];
  const routes = new Hono();
  routes.get('/', landingRoute({ publicUrl, authRequired, ...access, stats: () => holder.current?.index.stats, tools: () => tools, ...(viewer ? { viewer } : {}) }));
  const metricsRoutes = new Hono();
  if (metricsGuard) metricsRoutes.use(SERVER_PATHS.metrics, metricsGuard);
  metricsRoutes.get(SERVER_PATHS.metrics, metricsRoute({ metrics }));
  if (publicMetrics) routes.route('/', metricsRoutes);
  // The public port's app checks the Host itself (app.ts); the metrics listener is an app of its own.
  const metricsApp = new Hono();
  metricsApp.use(hostCheck({ publicUrl, checks: 'host', addressHostPaths: [SERVER_PATHS.metrics] }));
  metricsApp.route('/', metricsRoutes);

  return {
    metrics,
    metricsApp,
    shutdown,
    logger: requestScopedLogger(logger),
    middleware: [requestId({ logger, eraOf: (c) => c.get('era') }), httpMetrics({ metrics })],
    beforeMcp: [refuseNewSessionsWhileDraining({ isDraining: () => shutdown.draining })],
    health: healthRoutes({
      holder,
      notReadyReason: () => (shutdown.draining ? 'the server is shutting down' : undefined),
      ...(semantic ? { semantic } : {}),
      indexStatus: indexService ? () => indexService.status() : undefined,
      ...(gitSource ? { gitStatus: () => gitSource.status() } : {}),
    }),
    routes,
    observe({ events, sessions, service }) {
      tools = service.listToolsResult.tools;
      metrics.knowTools(tools.map((tool) => tool.name));
      events.on('session', (event) => {
        if (event.type === 'created') metrics.recordSessionCreated();
        else metrics.recordSessionEnded(event.type);
      });
      events.on('toolCall', (event) =>
        metrics.recordToolCall({
          tool: event.tool,
          outcome: event.outcome,
          era: event.era,
          durationSeconds: event.durationMs / 1000,
          ...(event.resultCount !== undefined && event.outcome === 'ok' ? { resultCount: event.resultCount } : {}),
          ...(event.semanticFallback ? { semanticFallback: true } : {}),
        }),
      );
      events.on('request', (era) => metrics.recordMcpRequest(era));
      events.on('sessionLookup', (outcome) => {
        metrics.recordSessionIdOutcome(outcome);
        if (outcome === 'foreign') metrics.recordAuthFailure('session_principal_mismatch');
      });
      metrics.observeActiveSessions(() => sessions.size);
    },
    attach(server, endpoint) {
      shutdown.attach({ server, closeSessions: () => endpoint.close() });
    },
  };
}
