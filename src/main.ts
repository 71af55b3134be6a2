// Entry point: read the configuration, load the corpus (refusing to start without documents), listen
// at once so /healthz answers, build the index right after, and close cleanly on SIGTERM/SIGINT.
// The only file that touches the console.
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import pkg from '../package.json' with { type: 'json' };
import { StaticTokenConfigError } from './auth/static-tokens.js';
import { readTokenFile, TokenFileError } from './auth/token-file.js';
import { ConfigError, loadConfig } from './config.js';
import type { Config } from './config.js';
import { CorpusError } from './corpus/corpus-error.js';
import { loadCorpus } from './corpus/load-corpus.js';
import { assembleServer } from './http/assemble.js';
import { httpServerOptions } from './http/server-options.js';
import { createLogger } from './logger.js';
import { IndexHolder } from './mcp/index-holder.js';
import { SearchIndex } from './search/search-index.js';
import type { SearchIndexOptions } from './search/search-index.js';

function searchOptionsOf(config: Config): SearchIndexOptions {
  const options: SearchIndexOptions = {};
  if (config.chunkWords !== undefined) options.chunkWords = config.chunkWords;
  if (config.chunkOverlapWords !== undefined) options.overlapWords = config.chunkOverlapWords;
  if (config.bm25K1 !== undefined) options.k1 = config.bm25K1;
  if (config.bm25B !== undefined) options.b = config.bm25B;
  return options;
}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`corpus-mcp: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  // AUTH_TOKENS_FILE is read here rather than in config.ts, which stays a pure function of the environment.
  let fileTokens: string[] = [];
  if (config.auth.tokensFile !== undefined) {
    try {
      fileTokens = await readTokenFile(config.auth.tokensFile);
    } catch (error) {
      if (error instanceof TokenFileError) {
        console.error(`corpus-mcp: ${error.message}`);
        process.exit(2);
      }
      throw error;
    }
  }
  const logger = createLogger({ level: config.logLevel, base: { service: 'corpus-mcp', version: pkg.version } });

  const corpusRoot = resolve(config.corpusDir);
  let corpus: Awaited<ReturnType<typeof loadCorpus>>;
  try {
    corpus = await loadCorpus(corpusRoot);
  } catch (error) {
    if (error instanceof CorpusError) {
      console.error(`corpus-mcp: cannot serve the corpus: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  for (const warning of corpus.warnings ?? []) logger.warn({ path: warning.path }, warning.message);
  logger.info({ corpus: corpusRoot, documents: corpus.documents.length, skipped: corpus.skipped.length }, 'corpus loaded');

  const holder = new IndexHolder();
  let assembled: ReturnType<typeof assembleServer>;
  try {
    assembled = assembleServer({ config, index: holder, logger, fileTokens, version: pkg.version });
  } catch (error) {
    if (error instanceof StaticTokenConfigError) {
      console.error(`corpus-mcp: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const { corpusApp, authentication, attach, ops, semantic } = assembled;
  logger.info(
    {
      auth_required: authentication.required,
      static_tokens: config.auth.staticTokens.length + fileTokens.length,
      oauth_issuer: config.auth.oauth?.issuer,
      oauth_audience: config.auth.oauth?.audience,
      metrics_token: config.auth.metricsToken !== undefined,
    },
    authentication.required ? 'authentication on' : 'authentication off: anyone who can reach this address can read the documents',
  );
  const { app } = corpusApp;

  const serverOptions = httpServerOptions({ requestTimeoutMs: config.requestTimeoutMs });
  const server: ServerType = serve({ fetch: app.fetch, hostname: config.host, port: config.port, serverOptions }, (info) => {
    logger.info({ host: info.address, port: info.port, mcp_url: `${config.publicUrl}/mcp` }, 'listening');
    // Build after the first tick of listening, so /healthz answers while a large corpus is indexed.
    setImmediate(() => {
      try {
        const index = SearchIndex.build(corpus.documents, searchOptionsOf(config));
        holder.set({ index, skipped: corpus.skipped });
        logger.info({ ...index.stats }, 'index built; ready');
        // In the background: keyword search answers meanwhile, and a failing endpoint is retried.
        void semantic.serve(index);
      } catch (error) {
        holder.fail(error instanceof Error ? error : new Error(String(error)));
        console.error(`corpus-mcp: building the index failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(1);
      }
    });
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    console.error(`corpus-mcp: cannot listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });

  // Drain: /readyz turns 503, new sessions are refused, in-flight requests finish (bounded by
  // DRAIN_TIMEOUT_MS), sessions close, then exit 0. A second signal while draining changes nothing.
  attach(server as Server);
  const stop = (signal: string) => void ops.shutdown.run(signal).then(() => process.exit(0));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('corpus-mcp: failed to start:', error);
  process.exit(1);
});
