// Entry point: start checking INDEX_FILE in a worker thread, read the configuration, load the server
// and listen at once so /healthz answers, then have the index service produce the index (from
// INDEX_FILE when it matches, else built in a child process; refusing to run without documents),
// reload it on SIGHUP and, with CORPUS_WATCH, on file changes, and close cleanly on SIGTERM/SIGINT.
// The server's only file that touches the console (the command-line tools print their own output).
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { ServerType } from '@hono/node-server';
import pkg from '../package.json' with { type: 'json' };
import { snapshotPathsFromEnvironment } from './config/early-paths.js';
import type { Config } from './config/config.js';
import type { AssembledServer, AssembleOptions } from './http/assemble.js';
import { fileIdentities } from './corpus/file-identity.js';
import { startCheckThread } from './index-service/snapshot-check-thread.js';
import { realPath } from './real-path.js';
import type { Store } from './store/store.js';

// The snapshot check starts first, from the paths the environment names, before anything heavier than
// this file's imports loads: on a large corpus its walk is the longest stretch of a boot. Its job
// follows once the configuration is loaded (below), and it is used only if that job has these paths.
const earlyPaths = snapshotPathsFromEnvironment();
const startedCheck =
  earlyPaths === undefined ? undefined : startCheckThread({ corpusRoot: earlyPaths.corpusRoot, indexFile: earlyPaths.indexFile, excludedFiles: fileIdentities([earlyPaths.tokensFile]) });

async function main(): Promise<void> {
  const configModules = Promise.all([
    import('./available-cpus.js'),
    import('./config/config-error.js'),
    import('./config/load-config.js'),
    import('./config/server-defaults.js'),
    import('./index-service/produce-index.js'),
    import('./index-service/run-in-child.js'),
    import('./index-job-of.js'),
    import('./server-paths.js'),
  ]);
  // The server's modules are fetched and compiled right behind the configuration's, and while the
  // configuration is read and the job sent to the check's thread: the loader reads files meanwhile.
  const serverModules = Promise.all([
    import('@hono/node-server'),
    import('./auth/static-tokens.js'),
    import('./auth/token-file.js'),
    import('./http/assemble.js'),
    import('./index-service/corpus-watcher.js'),
    import('./index-service/index-service.js'),
    import('./semantic/vector-cache-file.js'),
    import('./logger.js'),
    import('./mcp/index-holder.js'),
    import('./semantic/semantic-from-config.js'),
    import('./git-source/git-source.js'),
  ]);
  serverModules.catch(() => undefined); // awaited below; a configuration error exits before
  const [{ availableCpus }, { ConfigError }, { loadConfig }, { VECTOR_SAVE_WAIT_MS }, { checkSnapshotInWorker, produceIndex }, { runInChild }, { indexJobOf }, { mcpResourceUrl }] = await configModules;
  let config: Config;
  try {
    config = loadConfig(undefined, { cpus: availableCpus(), realPath }); // the process's environment
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`corpus-mcp: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const job = await indexJobOf(config);
  const indexFile = job.indexFile;
  // The snapshot is checked in a worker thread (the one started above when it has the job's paths)
  // while this thread loads the server's modules.
  // The checksum is left to the worker unless this thread, once listening, is free for it first.
  let listening = (): void => undefined;
  const mainFree = new Promise<void>((resolve) => (listening = resolve));
  let snapshotCheck = indexFile !== undefined ? checkSnapshotInWorker(job, startedCheck, { mainFree }) : undefined;
  if (indexFile === undefined) startedCheck?.cancel();
  const [
    { serve },
    { StaticTokenConfigError },
    { readTokenFile, TokenFileError },
    { assembleServer, listenOptions },
    { watchCorpus },
    { IndexService },
    { vectorCacheFile, vectorCachePath },
    { createLogger },
    { IndexHolder },
    { semanticServiceFromConfig },
    { GitSource },
  ] = await serverModules;
  // AUTH_TOKENS_FILE is read here rather than in src/config/, which stays a pure function of its arguments.
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

  const heapLimitMb = Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024);
  if (config.maxHeapMb !== undefined && Math.abs(heapLimitMb - config.maxHeapMb) > config.maxHeapMb * 0.2) {
    logger.warn(
      { heap_limit_mb: heapLimitMb, max_heap_mb: config.maxHeapMb },
      'MAX_HEAP_MB is applied at launch: start with `npm start`, or `node $(node dist/src/node-args.js) dist/src/main.js`',
    );
  }

  // Persistent records, opened before anything listens. With DATABASE_URL one PostgreSQL store serves
  // every replica (schema brought up to date at boot, one replica at a time): session revocations and,
  // with LOGIN_PROVIDER, the authorization server's records. Otherwise sign-in keeps its records in
  // the embedded store in AUTH_DATA_DIR.
  let sharedStore: Store | undefined;
  let authStore: Store | undefined;
  let createSignIn: AssembleOptions['createSignIn'];
  try {
    // The stores' drivers (pg, better-sqlite3), like sign-in's oidc-provider and upstream clients, are
    // loaded only when configured: each costs start-up time and memory.
    if (config.databaseUrl !== undefined) {
      const { openPostgresStore } = await import('./store/open-postgres-store.js');
      sharedStore = await openPostgresStore({ databaseUrl: config.databaseUrl });
    }
    if (config.auth.login !== undefined) {
      ({ createSignIn } = await import('./auth/server/sign-in.js'));
      const { openStore } = await import('./store/open-store.js');
      authStore = sharedStore ?? (await openStore({ dataDir: resolve(config.auth.login.dataDir) }));
    }
  } catch (error) {
    console.error(`corpus-mcp: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const store = sharedStore ?? authStore;
  if (store !== undefined) {
    // As often as sign-ins in progress expire (ten minutes), so their records do not wait an hour.
    const sweep = setInterval(() => {
      store.deleteExpired(Date.now()).catch((error: unknown) => logger.warn({ err: error }, 'could not delete expired records from the store'));
    }, 600_000);
    sweep.unref();
  }
  // The listener is bound before the app is assembled: with PORT=0 the system picks the port, and
  // every URL the server derives from its own address (PUBLIC_URL's default, hence the OAuth issuer
  // and resource, the landing page, the /mcp page, the server card) must name the bound one. A
  // request arriving meanwhile waits the moment the assembly takes.
  const serverOptions = listenOptions(config);
  const assembledFetch: { fetch?: AssembledServer['app']['fetch'] } = {};
  let appReady = (): void => undefined;
  const assembledApp = new Promise<void>((resolve) => (appReady = resolve));
  const server: ServerType = serve({
    fetch: (request, env) => assembledFetch.fetch?.(request, env) ?? assembledApp.then(() => assembledFetch.fetch!(request, env)),
    hostname: config.host,
    port: config.port,
    serverOptions,
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    console.error(`corpus-mcp: cannot listen on ${config.host}:${config.port}: ${error.message}`);
    process.exit(1);
  });
  const bound = await new Promise<AddressInfo>((resolve) => server.once('listening', () => resolve(server.address() as AddressInfo)));
  if (config.port === 0) config = loadConfig(undefined, { cpus: availableCpus(), realPath, boundPort: bound.port });

  if (sharedStore) logger.info({}, 'shared store on PostgreSQL: session revocations and sign-in records reach every replica');
  if (config.auth.login !== undefined) {
    logger.info(
      { provider: config.auth.login.provider, data_dir: sharedStore ? undefined : resolve(config.auth.login.dataDir), issuer: config.publicUrl },
      'team sign-in on: this server is its own authorization server',
    );
  }

  const holder = new IndexHolder();
  // With a git source, each build first checks out the commit fetched last (between builds, never
  // under one), and the index it produces carries that commit.
  let git: InstanceType<typeof GitSource> | undefined;
  // Set once the server listens: the git source's first commit starts the index through it.
  let startFirstIndex: () => ReturnType<typeof indexService.start> = () => Promise.reject(new Error('not listening yet'));
  let builtCommit: string | undefined;
  const indexService = new IndexService({
    holder: { set: (corpus) => holder.set({ ...corpus, ...(builtCommit !== undefined ? { commit: builtCommit } : {}) }), fail: (error) => holder.fail(error) },
    job,
    logger,
    // The boot takes the check started above; a reload goes to a build process, which checks the
    // snapshot itself (its memory, reading changed files included, leaves with it).
    run: async (next, onProgress) => {
      if (git !== undefined) builtCommit = await git.checkoutFetched();
      const check = snapshotCheck;
      snapshotCheck = undefined;
      const build = (buildJob: typeof next) => runInChild(buildJob, { onProgress });
      if (check === undefined) return build(next);
      const checked = await check;
      if ('undecided' in checked) logger.info({ reason: checked.undecided }, 'index snapshot left to the build process to check');
      return produceIndex(next, { check: checked, build });
    },
  });
  if (config.git !== undefined) {
    git = new GitSource({
      dir: resolve(config.corpusDir),
      url: config.git.url,
      ref: config.git.ref,
      token: config.git.token,
      pollSeconds: config.git.pollSeconds,
      maxBytes: config.git.maxBytes,
      logger,
      // Passed through to git untouched (PATH, HOME, SSH settings), not read: the settings came from loadConfig.
      // eslint-disable-next-line no-restricted-properties
      baseEnv: process.env,
      reload: (trigger) => (holder.current === undefined ? startFirstIndex() : indexService.reload(trigger)),
    });
    indexService.onReload((record) => {
      if (record.outcome === 'ok') git?.served(holder.current?.commit);
    });
  }
  // Embeddings and rerank: off without an endpoint; wired to the index and its cache file below.
  const semantic = semanticServiceFromConfig(config.semantic, logger);
  // The MCP Apps view, which `npm run build` writes beside the compiled server (dist/view/). Run from
  // sources before a build, there is none, and no tool names a view.
  const viewerHtml = await readFile(new URL('../view/viewer.html', import.meta.url), 'utf8').catch(() => undefined);
  const landingHostJs = await readFile(new URL('../view/landing-host.js', import.meta.url), 'utf8').catch(() => undefined);
  if (viewerHtml === undefined) logger.info({}, 'no MCP Apps view: run npm run build to build dist/view/viewer.html');
  let assembled: ReturnType<typeof assembleServer>;
  try {
    assembled = assembleServer({ config, holder, semantic, indexService, ...(git ? { gitSource: git } : {}), logger, fileTokens, version: pkg.version, ...(viewerHtml !== undefined ? { viewerHtml } : {}), ...(landingHostJs !== undefined ? { landingHostJs } : {}), ...(authStore ? { authStore } : {}), ...(createSignIn ? { createSignIn } : {}), ...(sharedStore ? { sharedStore } : {}) });
  } catch (error) {
    if (error instanceof StaticTokenConfigError) {
      console.error(`corpus-mcp: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  const { app, authentication, attach, attachMetrics, ops } = assembled;
  assembledFetch.fetch = app.fetch;
  appReady();
  // The chunk vectors are cached beside the index snapshot: a restart embeds only new or changed chunks.
  const vectorsFile = indexFile !== undefined && semantic.enabled ? vectorCachePath(indexFile) : undefined;
  if (vectorsFile !== undefined) {
    semantic.useCacheStore(
      vectorCacheFile(
        vectorsFile,
        (reason) => logger.warn({ reason }, 'chunk vector cache not used; embedding every chunk'),
        (file) => logger.info({ file }, 'removed a temporary file a save cut short left behind'),
      ),
    );
  }
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

  // The pid is the one to signal (kill -HUP <pid>): under `npm start` it is not npm's.
  logger.info({ host: bound.address, port: bound.port, pid: process.pid, mcp_url: mcpResourceUrl(config.publicUrl), heap_limit_mb: heapLimitMb }, 'listening');
  listening();
  // The index is checked in a worker or built in a child process: /healthz answers throughout.
  const startIndex = (): ReturnType<typeof indexService.start> =>
    indexService.start().then(
      (record) => {
        // In the background: keyword search answers meanwhile, and a failing endpoint is retried.
        // Each reloaded index is embedded again (cached chunk vectors are reused).
        const current = holder.current;
        if (current !== undefined) void semantic.embedInBackground(current.index);
        holder.onChange((served) => void semantic.embedInBackground(served.index));
        if (config.corpusWatch) startWatching();
        return record;
      },
      (error: Error) => {
        console.error(`corpus-mcp: cannot serve the corpus: ${error.message}`);
        process.exit(1);
      },
    );
  startFirstIndex = startIndex;
  if (git === undefined) void startIndex();
  else {
    // A working copy kept from an earlier run is served at once, then fetched; a fresh one is fetched
    // first, retried with backoff while the remote refuses (/readyz says why), and served once it is.
    const source = git;
    source.prepare().then(
      (head) => {
        if (head === undefined) return source.start();
        void startIndex().then(() => source.start());
      },
      (error: Error) => {
        console.error(`corpus-mcp: cannot use CORPUS_DIR as the git working copy: ${error.message}`);
        process.exit(1);
      },
    );
  }
  if (config.metricsPort !== undefined) {
    const metricsServer = serve({ fetch: ops.metricsApp.fetch, hostname: config.host, port: config.metricsPort, serverOptions }, (info) => {
      logger.info({ host: info.address, port: info.port }, 'metrics listening');
    });
    metricsServer.on('error', (error: NodeJS.ErrnoException) => {
      console.error(`corpus-mcp: cannot listen for metrics on ${config.host}:${config.metricsPort}: ${error.message}`);
      process.exit(1);
    });
    attachMetrics(metricsServer as Server);
  }

  // Drain (http/shutdown.ts): /readyz turns 503, new sessions are refused, the listener stays open
  // until requests stop arriving, in-flight requests finish, sessions close, then exit 0; all within
  // DRAIN_TIMEOUT_MS. A second signal while draining changes nothing.
  attach(server as Server);
  const stop = (signal: string) =>
    void ops.shutdown
      .run(signal)
      // A save of the chunk vector cache under way finishes first.
      .then(() => Promise.race([semantic.whenSaved(), new Promise<void>((resolve) => setTimeout(resolve, VECTOR_SAVE_WAIT_MS).unref())]))
      .then(() => semantic.close())
      .then(() => store?.close())
      .catch((error: unknown) => logger.warn({ err: error }, 'closing the shared store failed'))
      .then(() => process.exit(0));
  process.on('SIGTERM', () => {
    git?.stop();
    stop('SIGTERM');
  });
  process.on('SIGINT', () => stop('SIGINT'));
  // SIGHUP: rebuild from the corpus folder and swap the new index in; the old one serves until then,
  // and keeps serving if the rebuild fails.
  process.on('SIGHUP', () => void indexService.reload('SIGHUP'));

  function startWatching(): void {
    const watcher = watchCorpus({
      root: job.corpusRoot,
      debounceMs: config.corpusWatchDebounceMs,
      logger,
      ignorePaths: [indexFile, vectorsFile].filter((path): path is string => path !== undefined),
      onChange: (events) => {
        logger.info({ events }, 'corpus changed; reloading the index');
        void indexService.reload('watch');
      },
    });
    void watcher.ready.then(() => logger.info({ corpus: job.corpusRoot, debounce_ms: config.corpusWatchDebounceMs }, 'watching the corpus for changes'));
  }
}

main().catch((error: unknown) => {
  console.error('corpus-mcp: failed to start:', error);
  process.exit(1);
});
