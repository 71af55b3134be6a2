// Starts the real app on an ephemeral loopback port, over a corpus written to a temp folder (or the
// bundled one), for end-to-end tests and scripts. The index is built the way main builds it, either at
// once or when the test says so (to observe readiness).
import type { ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadCorpus } from '../../src/corpus/load-corpus.js';
import type { Hono, MiddlewareHandler } from 'hono';
import { createApp } from '../../src/http/app.js';
import type { AppEnv } from '../../src/http/app-env.js';
import { healthRoutes } from '../../src/http/routes/health.js';
import type { HealthRoutesOptions } from '../../src/http/routes/health.js';
import { mcpRoutes } from '../../src/http/routes/mcp.js';
import { endpointCardRoutes } from '../../src/http/routes/server-card.js';
import type { ServerCardAuthorization } from '../../src/http/routes/server-card.js';
import { SERVER_DEFAULTS } from '../../src/config/server-defaults.js';
import { IndexHolder } from '../../src/mcp/index-holder.js';
import { createMcpEndpoint } from '../../src/mcp/mcp-endpoint.js';
import type { McpEndpointOptions } from '../../src/mcp/mcp-endpoint.js';
import type { McpEventListener } from '../../src/mcp/mcp-events.js';
import type { SessionRegistry } from '../../src/mcp/sessions/session-registry.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { SAMPLE_FILES, writeTempCorpus } from './sample-corpus.js';

/** The app as the tests reach into it: the Hono app, the live legacy sessions, and closing them all. */
export interface CorpusApp {
  app: Hono<AppEnv>;
  sessions: SessionRegistry;
  close(): Promise<void>;
}

/** The parts a test may set, mounted the way src/http/assemble.ts mounts them (without config). */
export interface TestServerOptions extends Partial<Omit<McpEndpointOptions, 'holder' | 'authenticated'>>, Pick<HealthRoutesOptions, 'notReadyReason' | 'indexStatus'> {
  /** Mounted before every route (request ids, HTTP metrics). Default none. */
  middleware?: readonly MiddlewareHandler[];
  /** Mounted on /mcp after the Host check and before authentication. Default none. */
  beforeMcp?: readonly MiddlewareHandler[];
  /** Authentication for /mcp; omit to serve without. */
  authenticate?: MiddlewareHandler;
  /** What the server card says a client needs. Default bearer when `authenticate` is set, else none. */
  cardAuthorization?: ServerCardAuthorization;
  /** Further open routes, mounted after the server card. Default none. */
  routes?: Hono;
  /** Listeners of the endpoint's events (src/mcp/mcp-events.ts). */
  onSessionEvent?: McpEventListener<'session'>;
  onToolCall?: McpEventListener<'toolCall'>;
  onRequestEra?: McpEventListener<'request'>;
  onSessionLookup?: McpEventListener<'sessionLookup'>;
  /** Files to write into a fresh temp corpus, path → content. Default SAMPLE_FILES. */
  files?: Record<string, string | Buffer>;
  /** Serve this folder instead (e.g. the bundled corpus). */
  corpusDir?: string;
  /** false: leave the index unbuilt until `buildIndex()` is called. Default true. */
  buildIndex?: boolean;
  publicUrl?: string;
  /** Passed to http.createServer (socket timeouts). Default none. */
  serverOptions?: ServerOptions;
}

export interface TestServer {
  url: string;
  mcpUrl: URL;
  port: number;
  /** The temp folder holding the corpus (and anything a test puts beside it). */
  workDir: string;
  corpusDir: string;
  holder: IndexHolder;
  /** Requests that have begun waiting for the index so far (an unbuilt index holds them). */
  readonly waitingForIndex: number;
  app: CorpusApp;
  buildIndex(): void;
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { files = SAMPLE_FILES, corpusDir: givenDir, buildIndex: buildNow = true, publicUrl, serverOptions, ...appOptions } = options;
  const temp = await writeTempCorpus(givenDir ? {} : files);
  const { workDir } = temp;
  const corpusDir = givenDir ?? temp.corpusDir;
  const corpus = await loadCorpus(corpusDir);
  const holder = new IndexHolder();
  // Counted so a test can wait until its requests are held by the unbuilt index, not for a while.
  let waitingForIndex = 0;
  const wait = holder.wait.bind(holder);
  holder.wait = () => {
    waitingForIndex += 1;
    return wait();
  };
  const buildIndex = () => holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });

  let server: ServerType | undefined;
  let app: CorpusApp | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    // The public URL is only known once the port is; the app is created lazily on first request. The
    // Node bindings (the socket, hence the client address) are passed on as `serve` gives them.
    let created: CorpusApp | undefined;
    const fetch = (request: Request, env: unknown) => created!.app.fetch(request, env);
    server = serve({ fetch, hostname: '127.0.0.1', port: 0, ...(serverOptions ? { serverOptions } : {}) }, (info: AddressInfo) => {
      created = mountApp(holder, publicUrl ?? `http://127.0.0.1:${info.port}`, appOptions);
      app = created;
      resolve(info.port);
    });
    server.on('error', reject);
  });
  if (buildNow) buildIndex();
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    mcpUrl: new URL(`${url}/mcp`),
    port,
    workDir,
    corpusDir,
    holder,
    get waitingForIndex() {
      return waitingForIndex;
    },
    app: app!,
    buildIndex,
    async close() {
      await app!.close();
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        // Force-close idle keep-alive and SSE sockets so close() returns promptly.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await temp.remove();
    },
  };
}

/** An SDK client connected over Streamable HTTP; `close()` ends the session too. */
export async function connectClient(url: URL, name = 'e2e-test'): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, { reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 } });
  await client.connect(transport);
  return { client, transport };
}

/** The endpoint and the app around it, from the test's options. */
function mountApp(holder: IndexHolder, publicUrl: string, options: Omit<TestServerOptions, 'files' | 'corpusDir' | 'buildIndex' | 'publicUrl' | 'serverOptions'>): CorpusApp {
  const { middleware, beforeMcp, authenticate, cardAuthorization, routes, notReadyReason, indexStatus, onSessionEvent, onToolCall, onRequestEra, onSessionLookup, ...endpointOptions } = options;
  const endpoint = createMcpEndpoint({ holder, authenticated: authenticate !== undefined, ...endpointOptions });
  if (onSessionEvent) endpoint.events.on('session', onSessionEvent);
  if (onToolCall) endpoint.events.on('toolCall', onToolCall);
  if (onRequestEra) endpoint.events.on('request', onRequestEra);
  if (onSessionLookup) endpoint.events.on('sessionLookup', onSessionLookup);
  const app = createApp({
    publicUrl,
    ...(middleware ? { middleware } : {}),
    ...(endpointOptions.logger ? { logger: endpointOptions.logger } : {}),
    health: healthRoutes({ holder, notReadyReason, indexStatus, ...(endpointOptions.semantic ? { semantic: endpointOptions.semantic } : {}) }),
    open: [endpointCardRoutes(endpoint.service, { publicUrl, authorization: cardAuthorization ?? (authenticate ? { type: 'bearer' } : { type: 'none' }) }), routes],
    mcp: mcpRoutes({
      handler: endpoint.fetch,
      publicUrl,
      maxBodyBytes: endpointOptions.maxBodyBytes ?? SERVER_DEFAULTS.maxBodyBytes,
      ...(beforeMcp ? { before: beforeMcp } : {}),
      authenticate,
    }),
  });
  return { app, sessions: endpoint.sessions, close: () => endpoint.close() };
}
