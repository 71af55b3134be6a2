// A real listening server assembled exactly as main.ts assembles it (createOperations + createApp),
// over a temp corpus, with its log lines captured as parsed JSON, for the metrics and logging
// end-to-end tests.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../src/config/load-config.js';
import { loadCorpus } from '../src/corpus/load-corpus.js';
import type { CorpusApp } from './support/test-server.js';
import { assembleServer } from '../src/http/assemble.js';
import type { Operations } from '../src/http/operations.js';
import { createLogger } from '../src/logger.js';
import { IndexHolder } from '../src/mcp/index-holder.js';
import { SearchIndex } from '../src/search/search-index.js';
import { semanticServiceFromConfig } from '../src/semantic/semantic-from-config.js';
import type { SemanticTuning } from '../src/semantic/semantic-from-config.js';
import type { SemanticService } from '../src/semantic/semantic-service.js';
import { parseExposition } from './metrics-exposition.js';
import type { Sample } from './metrics-exposition.js';
import { writeCorpusFiles } from './support/sample-corpus.js';

export interface OpsServerOptions {
  /** Static bearer tokens; omit to serve without auth. */
  tokens?: string[];
  /** METRICS_TOKEN; omit to leave /metrics open. */
  metricsToken?: string;
  logQueries?: boolean;
  maxSessions?: number;
  sessionIdleTtlMs?: number;
  /** Further environment for loadConfig, e.g. EMBEDDINGS_URL. */
  env?: Record<string, string>;
  /** Corpus files, path → content. Default the sample corpus. */
  files?: Record<string, string>;
  semanticTuning?: SemanticTuning;
}

export interface OpsServer {
  url: string;
  mcpUrl: URL;
  ops: Operations;
  app: CorpusApp;
  semantic: SemanticService;
  /** The served index. */
  index: SearchIndex;
  /** Every log line written so far, parsed (a line that is not JSON throws). */
  lines(): Array<Record<string, unknown>>;
  /** Everything written to the log, verbatim. */
  rawLog(): string;
  /** GET /metrics, parsed. */
  scrape(headers?: Record<string, string>): Promise<Sample[]>;
  /** An SDK client over Streamable HTTP sending these headers on every request. */
  connect(headers?: Record<string, string>): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  close(): Promise<void>;
}

export async function startOpsServer(options: OpsServerOptions = {}): Promise<OpsServer> {
  const { tokens, metricsToken, logQueries = false, maxSessions, sessionIdleTtlMs, env = {}, files, semanticTuning } = options;
  const workDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-ops-'));
  await writeCorpusFiles(workDir, files);
  const corpus = await loadCorpus(workDir);
  const holder = new IndexHolder();

  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (chunk: string) => void raw.push(chunk) } });

  // The public URL is known once the port is, so the app is built after listening and found through ref.
  const ref: { app?: CorpusApp } = {};
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: (request) => ref.app!.app.fetch(request), hostname: '127.0.0.1', port: 0 }, () => resolve(s as Server));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = loadConfig({
    CORPUS_DIR: workDir,
    LOG_QUERIES: String(logQueries),
    ...(tokens === undefined ? {} : { AUTH_TOKENS: tokens.join(',') }),
    ...(metricsToken === undefined ? {} : { METRICS_TOKEN: metricsToken }),
    ...env,
  });
  const semantic = semanticServiceFromConfig(config.semantic, logger, semanticTuning);
  const { app: honoApp, mcp, ops, attach } = assembleServer({
    config,
    holder,
    logger,
    publicUrl: url,
    semantic,
    overrides: {
      ...(maxSessions === undefined ? {} : { maxSessions, maxSessionsPerPrincipal: maxSessions }),
      ...(sessionIdleTtlMs === undefined ? {} : { sessionIdleTtlMs }),
    },
  });
  const created: CorpusApp = { app: honoApp, sessions: mcp.sessions, close: () => mcp.close() };
  ref.app = created;
  attach(server);
  const index = SearchIndex.build(corpus.documents);
  holder.set({ index, skipped: corpus.skipped });
  await holder.wait();
  void semantic.embedInBackground(index);

  const lines = () =>
    raw
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  return {
    url,
    mcpUrl: new URL(`${url}/mcp`),
    ops,
    app: created,
    semantic,
    index,
    lines,
    rawLog: () => raw.join(''),
    async scrape(headers = {}) {
      const res = await fetch(`${url}/metrics`, { headers });
      if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
      return parseExposition(await res.text());
    },
    async connect(headers = {}) {
      const client = new Client({ name: 'ops-e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers },
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
      });
      await client.connect(transport);
      return { client, transport };
    },
    async close() {
      await semantic.close();
      await created.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
