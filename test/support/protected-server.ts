// A real listening corpus-mcp with authentication, assembled from an environment exactly as main.ts
// assembles it (loadConfig → createAuthentication → createOperations → createApp), over the sample
// corpus, with every log line captured so tests can check that no token is ever written.
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/config.js';
import { loadCorpus } from '../../src/corpus/load-corpus.js';
import type { CorpusApp } from './test-server.js';
import { assembleServer } from '../../src/http/assemble.js';
import type { AuthenticationOptions } from '../../src/http/authentication.js';
import { createLogger } from '../../src/logger.js';
import { semanticServiceFromConfig } from '../../src/semantic/semantic-from-config.js';
import { IndexHolder } from '../../src/mcp/index-holder.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { writeCorpusFiles } from './sample-corpus.js';

export interface ProtectedServer {
  /** http://127.0.0.1:<port> — where the tests connect (PUBLIC_URL may differ, as behind a proxy). */
  url: string;
  mcpUrl: URL;
  config: Config;
  app: CorpusApp;
  /** Everything written to the log so far, verbatim. */
  rawLog(): string;
  /** An SDK client over Streamable HTTP sending these headers on every request. */
  connect(headers?: Record<string, string>): Promise<Client>;
  close(): Promise<void>;
}

export async function startProtectedServer(
  env: Record<string, string>,
  options: { oauthTuning?: AuthenticationOptions['oauthTuning']; fileTokens?: string[] } = {},
): Promise<ProtectedServer> {
  const config = loadConfig(env);
  const workDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-auth-'));
  await writeCorpusFiles(workDir);
  const corpus = await loadCorpus(workDir);
  const holder = new IndexHolder();
  const raw: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (chunk: string) => void raw.push(chunk) } });

  const { app: honoApp, mcp, attach } = assembleServer({
    config,
    semantic: semanticServiceFromConfig(config.semantic, logger),
    holder,
    logger,
    fileTokens: options.fileTokens ?? [],
    ...(options.oauthTuning ? { oauthTuning: options.oauthTuning } : {}),
  });
  const app: CorpusApp = { app: honoApp, sessions: mcp.sessions, close: () => mcp.close() };
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s as Server));
  });
  attach(server);
  holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    mcpUrl: new URL(`${url}/mcp`),
    config,
    app,
    rawLog: () => raw.join(''),
    async connect(headers = {}) {
      const client = new Client({ name: 'auth-e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers },
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
      });
      await client.connect(transport);
      return client;
    },
    async close() {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
