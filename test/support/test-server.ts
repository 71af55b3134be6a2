// Starts the server as main composes it (assembleServer: operations, authentication, the MCP endpoint,
// socket guards, the configuration's mapping) on an ephemeral loopback port, over a corpus written to
// a temp folder (or the bundled one), for end-to-end tests and scripts. What a test sets is either
// environment (through loadConfig) or one of assembleServer's overrides. The index is built the way
// main builds it, either at once or when the test says so (to observe readiness).
import type { Server, ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Hono, MiddlewareHandler } from 'hono';
import { loadConfig } from '../../src/config/load-config.js';
import { loadCorpus } from '../../src/corpus/load-corpus.js';
import { assembleServer, listenOptions } from '../../src/http/assemble.js';
import type { AssembledServer } from '../../src/http/assemble.js';
import type { AppEnv } from '../../src/http/app-env.js';
import { createLogger } from '../../src/logger.js';
import type { AppLogger } from '../../src/logger.js';
import { IndexHolder } from '../../src/mcp/index-holder.js';
import type { McpEndpointOptions } from '../../src/mcp/mcp-endpoint.js';
import type { McpEventListener } from '../../src/mcp/mcp-events.js';
import type { SessionRegistry } from '../../src/mcp/sessions/session-registry.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { semanticServiceFromConfig } from '../../src/semantic/semantic-from-config.js';
import { SAMPLE_FILES, writeTempCorpus } from './sample-corpus.js';

/** The app as the tests reach into it: the Hono app, the live legacy sessions, and closing them all. */
export interface CorpusApp {
  app: Hono<AppEnv>;
  sessions: SessionRegistry;
  close(): Promise<void>;
}

/** What a test may set: endpoint options are assembleServer's overrides, applied over the configuration's. */
export interface TestServerOptions extends Partial<Omit<McpEndpointOptions, 'holder' | 'authenticated' | 'logger'>> {
  /** Environment read by loadConfig, as main reads process.env. Default none (every default). */
  env?: Record<string, string>;
  /** Stands in for the configured authentication of /mcp (e.g. a middleware that sets the principal). Default the configuration's. */
  authenticate?: MiddlewareHandler;
  /** The process logger. Default silent. */
  logger?: AppLogger;
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
  /** Origin clients use. Default the ephemeral port's. */
  publicUrl?: string;
  /** Passed to http.createServer (socket timeouts). Default the configuration's, as main's. */
  serverOptions?: ServerOptions;
  /** The MCP Apps view (test/support/viewer-html.ts), served and named by the tools. Default none. */
  viewerHtml?: string;
  /** The landing page's host of the view: with viewerHtml and no authentication, / offers a search. Default none. */
  landingHostJs?: string;
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
  /** The composition itself: operations (metrics, drain), authentication, the endpoint. */
  assembled: AssembledServer;
  buildIndex(): void;
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const {
    files = SAMPLE_FILES,
    corpusDir: givenDir,
    buildIndex: buildNow = true,
    publicUrl,
    serverOptions,
    env = {},
    authenticate,
    logger = createLogger({ level: 'silent' }),
    onSessionEvent,
    onToolCall,
    onRequestEra,
    onSessionLookup,
    semantic: givenSemantic,
    viewerHtml,
    landingHostJs,
    ...overrides
  } = options;
  const temp = await writeTempCorpus(givenDir ? {} : files);
  const { workDir } = temp;
  const corpusDir = givenDir ?? temp.corpusDir;
  const config = loadConfig({ CORPUS_DIR: corpusDir, ...env });
  const corpus = await loadCorpus(corpusDir);
  const holder = new IndexHolder();
  const buildIndex = () => holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
  const semantic = givenSemantic ?? semanticServiceFromConfig(config.semantic, logger);

  // The public URL is only known once the port is, so the server is assembled once listening. The
  // Node bindings (the socket, hence the client address) are passed on as `serve` gives them.
  const built: { server?: AssembledServer } = {};
  const fetch = (request: Request, bindings: unknown) => built.server!.app.fetch(request, bindings);
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = serve({ fetch, hostname: '127.0.0.1', port: 0, serverOptions: serverOptions ?? listenOptions(config) }, () => resolve(listening as Server));
    listening.on('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const assembled = assembleServer({
    config,
    holder,
    logger,
    semantic,
    publicUrl: publicUrl ?? url,
    ...(authenticate ? { authenticate } : {}),
    ...(viewerHtml !== undefined ? { viewerHtml } : {}),
    ...(landingHostJs !== undefined ? { landingHostJs } : {}),
    overrides,
  });
  built.server = assembled;
  // Counted so a test can wait until its requests are held by the unbuilt index, not for a while; from
  // here on, so that the composition's own wait (operations' index gauges) is not counted.
  let waitingForIndex = 0;
  const wait = holder.wait.bind(holder);
  holder.wait = () => {
    waitingForIndex += 1;
    return wait();
  };
  const { events } = assembled.mcp;
  if (onSessionEvent) events.on('session', onSessionEvent);
  if (onToolCall) events.on('toolCall', onToolCall);
  if (onRequestEra) events.on('request', onRequestEra);
  if (onSessionLookup) events.on('sessionLookup', onSessionLookup);
  assembled.attach(server);
  const { mcp } = assembled;
  const app: CorpusApp = { app: assembled.app, sessions: mcp.sessions, close: () => mcp.close() };
  if (buildNow) buildIndex();
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
    app,
    assembled,
    buildIndex,
    async close() {
      await app.close();
      if (givenSemantic === undefined) semantic.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Force-close idle keep-alive and SSE sockets so close() returns promptly.
        server.closeAllConnections();
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
