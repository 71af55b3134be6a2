// Starts the real app on an ephemeral loopback port, over a corpus written to a temp folder (or the
// bundled one), for end-to-end tests and scripts. The index is built the way main builds it, either at
// once or when the test says so (to observe readiness).
import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadCorpus } from '../../src/corpus/load-corpus.js';
import { createApp } from '../../src/http/app.js';
import type { AppOptions, CorpusApp } from '../../src/http/app.js';
import { IndexHolder } from '../../src/mcp/index-holder.js';
import { SearchIndex } from '../../src/search/search-index.js';
import { SAMPLE_FILES, writeCorpusFiles } from './sample-corpus.js';

export interface TestServerOptions extends Partial<Omit<AppOptions, 'index' | 'publicUrl'>> {
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
  app: CorpusApp;
  buildIndex(): void;
  close(): Promise<void>;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { files = SAMPLE_FILES, corpusDir: givenDir, buildIndex: buildNow = true, publicUrl, serverOptions, ...appOptions } = options;
  const workDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-test-'));
  const corpusDir = givenDir ?? join(workDir, 'corpus');
  if (!givenDir) {
    await writeCorpusFiles(corpusDir, files);
  }
  const corpus = await loadCorpus(corpusDir);
  const holder = new IndexHolder();
  const buildIndex = () => holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });

  let server: ServerType | undefined;
  let app: CorpusApp | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    // The public URL is only known once the port is; the app is created lazily on first request. The
    // Node bindings (the socket, hence the client address) are passed on as `serve` gives them.
    let created: CorpusApp | undefined;
    const fetch = (request: Request, env: unknown) => created!.app.fetch(request, env);
    server = serve({ fetch, hostname: '127.0.0.1', port: 0, ...(serverOptions ? { serverOptions } : {}) }, (info: AddressInfo) => {
      created = createApp({ index: holder, publicUrl: publicUrl ?? `http://127.0.0.1:${info.port}`, ...appOptions });
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
    app: app!,
    buildIndex,
    async close() {
      await app!.close();
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        // Force-close idle keep-alive and SSE sockets so close() returns promptly.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await rm(workDir, { recursive: true, force: true });
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

/** Polls `check` until it returns true, failing after `timeoutMs`. For behaviour driven by timers (TTL). */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000, intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
