// The whole HTTP server as configured: operations (request ids, logs, metrics, probes, drain),
// authentication, the MCP endpoint, each built as a mountable part, and the app that mounts them.
// main.ts, the load tool and every end-to-end test's server (test/support/) call this, so what the
// tests observe is what production runs; tests change it only through the configuration and the
// overrides below.
//
// Built in dependency order: the metrics registry first, since sign-in and authentication count into
// it; then authentication, whose guard operations takes; then operations; then the endpoint, which
// operations observes; then the app. Each part only reads what was built before it.
import type { Server, ServerOptions } from 'node:http';
import type { Hono, MiddlewareHandler } from 'hono';
import type { createSignIn, SignInOptions } from '../auth/server/sign-in.js';
import { isLoopbackHost } from '../config/loopback-host.js';
import type { Config } from '../config/config.js';
import { sessionSecretWarning } from '../config/secrets.js';
import type { Store } from '../store/store.js';
import type { AppLogger } from '../logger.js';
import type { IndexHolder } from '../mcp/index-holder.js';
import { createMcpEndpoint } from '../mcp/mcp-endpoint.js';
import type { McpEndpoint, McpEndpointOptions } from '../mcp/mcp-endpoint.js';
import { revocationsInStore } from '../mcp/sessions/session-revocations.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import type { AppEnv } from './app-env.js';
import { createApp } from './app.js';
import { createAuthentication } from './authentication.js';
import type { Authentication, AuthenticationOptions } from './authentication.js';
import { requestScopedLogger } from './middleware/request-id.js';
import { mcpRoutes } from './routes/mcp.js';
import { endpointCardRoutes } from './routes/server-card.js';
import { gitHookRoutes } from './routes/git-hook.js';
import { protectedResourceMetadataUrl } from './routes/well-known.js';
import { httpServerOptions } from './server-options.js';
import { guardSockets } from './socket-guards.js';
import { createMetrics } from './metrics.js';
import { createOperations } from './operations.js';
import type { Operations, OperationsOptions } from './operations.js';
import { mcpResourceUrl } from '../server-paths.js';

export interface AssembleOptions {
  config: Config;
  /** The shared index; the caller builds it and sets it on the holder. */
  holder: IndexHolder;
  logger: AppLogger;
  /** Tokens read from AUTH_TOKENS_FILE at boot. Default none. */
  fileTokens?: readonly string[];
  /** Reported in the MCP initialize result. Default '0.0.0'. */
  version?: string;
  /** Origin clients use; default `config.publicUrl`. Tests pass the URL of their ephemeral port. */
  publicUrl?: string;
  /** Verifier tuning that is not configuration (e.g. a short JWKS cooldown in tests). */
  oauthTuning?: AuthenticationOptions['oauthTuning'];
  /**
   * Embeddings and rerank, built by the caller from `config.semantic` (semanticServiceFromConfig), who
   * also wires it to the index: its cache file and its background embedding of each served index.
   */
  semantic: SemanticService;
  /** The MCP Apps view's HTML (dist/view/viewer.html, read by main.ts); without it no tool names a view. Default none. */
  viewerHtml?: string;
  /** The landing page's host of the view (dist/view/landing-host.js): with the view and no authentication, / offers a search. Default none. */
  landingHostJs?: string;
  /** The service building and reloading the index, when there is one: feeds /readyz and the metrics. */
  indexService?: OperationsOptions['indexService'];
  /** The git source (CORPUS_GIT_URL): /readyz and the metrics show it, and with a webhook secret /hooks/git starts its fetches. */
  gitSource?: OperationsOptions['gitSource'] & { syncNow(trigger: string): unknown };
  /**
   * With LOGIN_PROVIDER: the store (AUTH_DATA_DIR) and `createSignIn` from src/auth/server/sign-in.ts,
   * which the caller imports only then, so a server without team sign-in never loads oidc-provider.
   */
  authStore?: Store;
  createSignIn?: typeof createSignIn;
  /** Sign-in tuning that is not configuration (tests: a short refresh grace window, a CIMD fetch). */
  signInTuning?: SignInOptions['tuning'];
  /**
   * The store every replica shares (PostgreSQL, DATABASE_URL): session revocations are recorded there
   * so that a DELETE on one replica ends the session on all. Default none: this process only.
   */
  sharedStore?: Store;
  /** Endpoint options that config cannot express (e.g. an idle TTL in milliseconds for tests). Applied last. */
  overrides?: Partial<Omit<McpEndpointOptions, 'holder'>>;
  /**
   * Stands in for the configured authentication of /mcp (tests: a middleware that sets the principal
   * itself); the endpoint then counts as authenticated. Default the configuration's.
   */
  authenticate?: MiddlewareHandler;
}

export interface AssembledServer {
  app: Hono<AppEnv>;
  /** The MCP endpoint the app mounts on /mcp: its sessions, events, close(). */
  mcp: McpEndpoint;
  ops: Operations;
  authentication: Authentication;
  /** Once listening: live session gauge, the drain's target, MAX_CONNECTIONS and the write deadline. */
  attach(server: Server): void;
  /** The METRICS_PORT listener once listening: MAX_CONNECTIONS and the write deadline, as the public one. */
  attachMetrics(server: Server): void;
}

function requireSignIn(factory: typeof createSignIn | undefined): typeof createSignIn {
  if (factory === undefined) throw new TypeError('LOGIN_PROVIDER is set: import createSignIn (src/auth/server/sign-in.ts) and pass it');
  return factory;
}

function requireStore(store: Store | undefined): Store {
  if (store === undefined) throw new TypeError('LOGIN_PROVIDER is set: open the store (AUTH_DATA_DIR) and pass it as authStore');
  return store;
}

/** The listening socket's options (http.createServer's) from the configuration. */
export function listenOptions(config: Config): ServerOptions {
  return httpServerOptions({ requestTimeoutMs: config.requestTimeoutMs });
}

/** /hooks/git, only when there is a git source and a webhook secret. */
function gitHook(config: Config, source: AssembleOptions['gitSource']): Hono | undefined {
  const secret = config.git?.webhookSecret;
  if (secret === undefined || source === undefined) return undefined;
  return gitHookRoutes({ secret, sync: (trigger) => void source.syncNow(trigger) });
}

export function assembleServer(options: AssembleOptions): AssembledServer {
  const { config, holder, logger, semantic, fileTokens = [], version = '0.0.0', oauthTuning, overrides = {} } = options;
  const publicUrl = options.publicUrl ?? config.publicUrl;
  const metrics = createMetrics();
  const signIn = config.auth.login === undefined
    ? undefined
    : requireSignIn(options.createSignIn)({
        login: config.auth.login,
        issuer: publicUrl,
        resource: mcpResourceUrl(publicUrl),
        store: requireStore(options.authStore),
        logger,
        onEvent: (event) => metrics.recordSignInEvent(event),
        ...(options.signInTuning ? { tuning: options.signInTuning } : {}),
      });
  const authentication = createAuthentication({
    ...(signIn ? { signIn } : {}),
    auth: config.auth,
    fileTokens,
    logger: requestScopedLogger(logger),
    onRefused: (reason) => metrics.recordAuthFailure(reason),
    ...(oauthTuning ? { oauthTuning } : {}),
  });
  const authenticate = options.authenticate ?? authentication.authenticate;
  const ops = createOperations({
    metrics,
    logger,
    publicUrl,
    holder,
    drainTimeoutMs: config.drainTimeoutMs,
    authRequired: authenticate !== undefined,
    access: {
      oauth: config.auth.login !== undefined || config.auth.oauth !== undefined,
      staticTokens: config.auth.staticTokens.length > 0 || fileTokens.length > 0,
    },
    semantic,
    ...(options.viewerHtml !== undefined && options.landingHostJs !== undefined ? { viewer: { html: options.viewerHtml, hostScript: options.landingHostJs } } : {}),
    ...(options.indexService ? { indexService: options.indexService } : {}),
    ...(options.gitSource ? { gitSource: options.gitSource } : {}),
    // Metrics tell an attacker how their brute force goes and what runs here: off loopback they are
    // on the public port only behind METRICS_TOKEN; METRICS_PORT moves them to a listener of their own.
    publicMetrics: config.metricsPort === undefined && (isLoopbackHost(config.host) || config.auth.metricsToken !== undefined),
    ...(authentication.metricsGuard ? { metricsGuard: authentication.metricsGuard } : {}),
  });
  const secretWarning = sessionSecretWarning(config);
  if (secretWarning !== undefined) logger.warn({}, secretWarning);
  const endpointOptions: McpEndpointOptions = {
    holder,
    authenticated: authenticate !== undefined,
    sessionsEnabled: config.sessions.enabled,
    ...(config.sessions.secret !== undefined ? { sessionSecret: config.sessions.secret } : {}),
    sessionMaxAgeSeconds: config.sessions.maxAgeSeconds,
    ...(options.sharedStore ? { sharedRevocations: revocationsInStore(options.sharedStore) } : {}),
    maxSessions: config.maxSessions,
    sessionIdleTtlMs: config.sessionIdleTtlSeconds * 1000,
    maxSessionsPerPrincipal: config.maxSessionsPerPrincipal,
    maxBodyBytes: config.maxBodyBytes,
    // One setting, two bounds: the socket's request timeout (server-options.ts, in main) and this.
    indexWaitMs: config.requestTimeoutMs,
    maxConcurrentPerSession: config.maxConcurrentPerSession,
    maxConcurrentPerPrincipal: config.maxConcurrentPerPrincipal,
    maxConcurrentPerAddress: config.maxConcurrentPerAddress,
    listenStreams: { maxPerPrincipal: config.maxListenStreamsPerPrincipal, maxPerAddress: config.maxListenStreamsPerAddress, idleMs: config.listenIdleTtlSeconds * 1000 },
    toolLimits: config.toolLimits,
    sourceLinks: { template: config.sourceUrlTemplate, pathPrefix: config.git?.path ?? '' },
    serverInfo: { name: 'corpus-mcp', version },
    logQueries: config.logQueries,
    semantic,
    ...(options.viewerHtml !== undefined ? { viewerHtml: options.viewerHtml } : {}),
    logger: ops.logger,
    ...overrides,
  };
  const mcp = createMcpEndpoint(endpointOptions);
  ops.observe(mcp);
  const app = createApp({
    publicUrl,
    logger: ops.logger,
    middleware: ops.middleware,
    health: ops.health,
    open: [
      // The server card: public, like the OAuth metadata. With an authorization server (external or
      // built in), clients find it from the metadata URL the 401's challenge names; static tokens
      // alone come from the operator.
      endpointCardRoutes(mcp.service, {
        publicUrl,
        authorization:
          config.auth.oauth !== undefined || config.auth.login !== undefined
            ? { type: 'oauth2', protectedResourceMetadata: protectedResourceMetadataUrl(config.auth.resource) }
            : authenticate !== undefined
              ? { type: 'bearer' }
              : { type: 'none' },
      }),
      ops.routes,
      authentication.routes,
      gitHook(config, options.gitSource),
    ],
    mcp: mcpRoutes({ handler: mcp.fetch, publicUrl, maxBodyBytes: endpointOptions.maxBodyBytes ?? config.maxBodyBytes, before: ops.beforeMcp, authenticate }),
  });
  const attach = (server: Server) => {
    ops.attach(server, mcp);
    guardSockets(server, {
      maxConnections: config.maxConnections,
      writeTimeoutMs: config.writeTimeoutMs,
      onRefused: () => metrics.recordConnectionDropped('max_connections'),
      onWriteTimeout: (unsentBytes) => {
        metrics.recordConnectionDropped('write_timeout');
        // One line per connection held for WRITE_TIMEOUT_MS: at most MAX_CONNECTIONS per timeout.
        logger.info({ unsent_bytes: unsentBytes, write_timeout_ms: config.writeTimeoutMs }, 'connection closed: its client did not take the answer in time');
      },
    });
  };
  // The METRICS_PORT listener: the same bounds on its sockets as the public one.
  const attachMetrics = (server: Server) =>
    void guardSockets(server, {
      maxConnections: config.maxConnections,
      writeTimeoutMs: config.writeTimeoutMs,
      onRefused: () => metrics.recordConnectionDropped('max_connections'),
      onWriteTimeout: () => metrics.recordConnectionDropped('write_timeout'),
    });
  return { app, mcp, ops, authentication, attach, attachMetrics };
}
