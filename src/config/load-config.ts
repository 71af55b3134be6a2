// The only reader of the environment. Every setting is validated here, once, at boot; a bad value
// fails the start with one message that lists every problem, so an operator fixes them in one go.
import { isAbsolute, relative, resolve } from 'node:path';
import { availableCpus } from '../available-cpus.js';
import { DEFAULT_TOOL_LIMITS } from '../mcp/tools/tool-limits.js';
import { DEFAULT_SEARCH_OPTIONS, overlapTooLong } from '../search/search-options.js';
import { readAuth } from './auth.js';
import type { Config } from './config.js';
import { ConfigError } from './config-error.js';
import { readLogin } from './login.js';
import { isLoopbackHost } from './loopback-host.js';
import { issueProblems } from './messages.js';
import { envSchema } from './schema.js';
import { SERVER_DEFAULTS } from './server-defaults.js';
import { secretProblems } from './secrets.js';
import { semanticProblems } from './semantic.js';

const DEFAULT_CORPUS_DIR = './corpus';


/** So that on a large machine one query does not wake every core: measured gains are for 2 threads (docs/BENCHMARKS.md). */
const MAX_DEFAULT_SCAN_THREADS = 4;

/** `http://HOST:PORT`, bracketing an IPv6 literal. */
function defaultPublicUrl(host: string, port: number): string {
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${hostPart}:${port}`;
}

/**
 * Reads and validates the settings. Throws `ConfigError` naming every bad variable and its value.
 * Blank variables count as unset.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>> = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const { auth: parsedAuth, problems: authOnlyProblems } = readAuth(env);
  const { login, problems: loginProblems } = readLogin(env);
  const authProblems = [...authOnlyProblems, ...loginProblems];
  const auth = parsedAuth === undefined ? undefined : { ...parsedAuth, enabled: parsedAuth.enabled || login !== undefined, login };
  if (login !== undefined && parsedAuth?.oauth !== undefined) {
    authProblems.push(
      `LOGIN_PROVIDER=${JSON.stringify(login.provider)}: cannot be combined with OAUTH_ISSUER; choose the built-in sign-in (LOGIN_PROVIDER) or an external authorization server (OAUTH_ISSUER)`,
    );
  }
  if (login !== undefined && parsedAuth?.allowUnauthenticated === true) {
    authProblems.push('ALLOW_UNAUTHENTICATED="true": contradicts LOGIN_PROVIDER; remove one or the other');
  }
  if (!parsed.success) {
    const problems = issueProblems(parsed.error.issues, env);
    throw new ConfigError([...problems, ...authProblems, ...secretProblems(env)]);
  }
  const e = parsed.data;
  const problems: string[] = [...authProblems, ...secretProblems(env), ...semanticProblems(env, e)];
  const chunkWords = e.CHUNK_WORDS ?? DEFAULT_SEARCH_OPTIONS.chunkWords;
  if (e.CHUNK_OVERLAP_WORDS !== undefined && overlapTooLong(chunkWords, e.CHUNK_OVERLAP_WORDS)) {
    problems.push(
      `CHUNK_OVERLAP_WORDS=${JSON.stringify(env.CHUNK_OVERLAP_WORDS)}: must be at most half of CHUNK_WORDS (${chunkWords})`,
    );
  }
  const host = e.HOST ?? '127.0.0.1';
  // Secure default: without auth, only this machine may connect.
  if (auth !== undefined && !auth.enabled && !auth.allowUnauthenticated && !isLoopbackHost(host)) {
    problems.push(
      `HOST=${JSON.stringify(host)}: is not a loopback address and no authentication is configured, so anyone who can reach it could read the documents. ` +
        'Set AUTH_TOKENS (e.g. AUTH_TOKENS=$(openssl rand -hex 32)), AUTH_TOKENS_FILE, or OAUTH_ISSUER (with PUBLIC_URL); ' +
        'or set ALLOW_UNAUTHENTICATED=true for a deliberately public server; or bind HOST=127.0.0.1',
    );
  }
  // Off loopback the server cannot know the name clients use: the Host check, the OAuth audience,
  // the challenge's resource_metadata and the landing page are all derived from PUBLIC_URL.
  if (e.PUBLIC_URL === undefined && !isLoopbackHost(host)) {
    problems.push(
      `HOST=${JSON.stringify(host)}: is not a loopback address, so it needs PUBLIC_URL, the URL clients use (e.g. https://docs.example.com): ` +
        'the Host check, the token audience and the protected resource metadata are derived from it',
    );
  }
  if (
    auth?.enabled && !auth.allowHttpPublicUrl && !isLoopbackHost(host) && e.PUBLIC_URL !== undefined &&
    new URL(e.PUBLIC_URL).protocol === 'http:' && !isLoopbackHost(new URL(e.PUBLIC_URL).hostname)
  ) {
    problems.push(
      `PUBLIC_URL=${JSON.stringify(e.PUBLIC_URL)}: must be an https:// URL when authentication is on, or bearer tokens cross the network in the clear; ` +
        'terminate TLS in front of the server, or set ALLOW_HTTP_PUBLIC_URL=true if the network path is protected otherwise',
    );
  }
  if (auth?.tokensFile !== undefined) {
    const inside = relative(resolve(e.CORPUS_DIR ?? DEFAULT_CORPUS_DIR), resolve(auth.tokensFile));
    if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
      problems.push(`AUTH_TOKENS_FILE=${JSON.stringify(auth.tokensFile)}: is inside CORPUS_DIR, so it would be indexed and served; keep it outside`);
    }
  }
  if (login !== undefined) {
    const issuer = e.PUBLIC_URL === undefined ? undefined : new URL(e.PUBLIC_URL);
    if (issuer === undefined && !isLoopbackHost(host)) {
      problems.push(`LOGIN_PROVIDER=${JSON.stringify(login.provider)}: needs PUBLIC_URL, the https origin clients use (e.g. https://docs.example.com): it is the issuer of the tokens`);
    } else if (issuer !== undefined && issuer.protocol !== 'https:' && !isLoopbackHost(issuer.hostname)) {
      problems.push(`PUBLIC_URL=${JSON.stringify(e.PUBLIC_URL)}: must be https with LOGIN_PROVIDER (it is the OAuth issuer; http is accepted only for a loopback host)`);
    } else if (issuer !== undefined && (issuer.pathname.replace(/\/+$/, '') !== '' || issuer.search !== '')) {
      problems.push(`PUBLIC_URL=${JSON.stringify(e.PUBLIC_URL)}: must be a bare origin with LOGIN_PROVIDER (e.g. https://docs.example.com): the issuer and /authorize, /token sit at its root`);
    }
  }
  const port = e.PORT ?? 8080;
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === port) {
    problems.push(`METRICS_PORT=${JSON.stringify(env.METRICS_PORT)}: must differ from PORT (${port}); the metrics listener is a port of its own`);
  }
  if (problems.length > 0 || auth === undefined) throw new ConfigError(problems);

  const publicUrl = (e.PUBLIC_URL ?? defaultPublicUrl(host, port)).replace(/\/+$/, '');
  const maxSessions = e.MAX_SESSIONS ?? SERVER_DEFAULTS.maxSessions;
  const resource = `${publicUrl}/mcp`;
  return {
    corpusDir: e.CORPUS_DIR ?? DEFAULT_CORPUS_DIR,
    host,
    port,
    metricsPort: e.METRICS_PORT,
    publicUrl,
    maxSessions,
    sessionIdleTtlSeconds: e.SESSION_IDLE_TTL ?? SERVER_DEFAULTS.sessionIdleTtlSeconds,
    maxSessionsPerPrincipal: Math.min(e.MAX_SESSIONS_PER_PRINCIPAL ?? SERVER_DEFAULTS.maxSessionsPerPrincipal, maxSessions),
    chunkWords: e.CHUNK_WORDS,
    chunkOverlapWords: e.CHUNK_OVERLAP_WORDS,
    bm25K1: e.BM25_K1,
    bm25B: e.BM25_B,
    logLevel: e.LOG_LEVEL ?? 'info',
    logQueries: e.LOG_QUERIES ?? false,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS ?? SERVER_DEFAULTS.drainTimeoutMs,
    maxBodyBytes: e.MAX_BODY_BYTES ?? SERVER_DEFAULTS.maxBodyBytes,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS ?? SERVER_DEFAULTS.requestTimeoutMs,
    maxConcurrentPerSession: e.MAX_CONCURRENT_PER_SESSION ?? SERVER_DEFAULTS.maxConcurrentPerSession,
    maxConcurrentPerPrincipal: e.MAX_CONCURRENT_PER_PRINCIPAL ?? SERVER_DEFAULTS.maxConcurrentPerPrincipal,
    maxConcurrentPerAddress: e.MAX_CONCURRENT_PER_ADDRESS ?? SERVER_DEFAULTS.maxConcurrentPerAddress,
    maxListenStreamsPerPrincipal: e.MAX_LISTEN_STREAMS_PER_PRINCIPAL ?? SERVER_DEFAULTS.maxListenStreamsPerPrincipal,
    maxListenStreamsPerAddress: e.MAX_LISTEN_STREAMS_PER_ADDRESS ?? SERVER_DEFAULTS.maxListenStreamsPerAddress,
    listenIdleTtlSeconds: e.LISTEN_IDLE_TTL ?? SERVER_DEFAULTS.listenIdleTtlSeconds,
    maxConnections: e.MAX_CONNECTIONS ?? maxSessions + 500,
    writeTimeoutMs: e.WRITE_TIMEOUT_MS ?? SERVER_DEFAULTS.writeTimeoutMs,
    toolLimits: {
      maxQueryChars: e.MAX_QUERY_CHARS ?? DEFAULT_TOOL_LIMITS.maxQueryChars,
      maxTopK: e.MAX_TOP_K ?? DEFAULT_TOOL_LIMITS.maxTopK,
      maxDocumentChars: e.MAX_DOCUMENT_CHARS ?? DEFAULT_TOOL_LIMITS.maxDocumentChars,
      maxPageSize: e.MAX_PAGE_SIZE ?? DEFAULT_TOOL_LIMITS.maxPageSize,
    },
    sessions: {
      enabled: (e.MCP_SESSIONS ?? 'on') === 'on',
      secret: env.SESSION_SECRET?.trim() || undefined,
      maxAgeSeconds: e.SESSION_MAX_AGE ?? SERVER_DEFAULTS.sessionMaxAgeSeconds,
    },
    databaseUrl: env.DATABASE_URL?.trim() || undefined,
    semantic: {
      embeddings:
        e.EMBEDDINGS_URL === undefined
          ? undefined
          : { url: e.EMBEDDINGS_URL, model: e.EMBEDDINGS_MODEL ?? '', apiKey: env.EMBEDDINGS_API_KEY?.trim() || undefined, dimensions: e.EMBEDDINGS_DIMENSIONS },
      rerank: e.RERANK_URL === undefined ? undefined : { url: e.RERANK_URL, model: e.RERANK_MODEL, apiKey: env.RERANK_API_KEY?.trim() || undefined },
      scanThreads: e.VECTOR_SCAN_THREADS ?? Math.min(availableCpus(), MAX_DEFAULT_SCAN_THREADS),
    },
    indexFile: e.INDEX_FILE?.trim(),
    corpusWatch: e.CORPUS_WATCH ?? false,
    corpusWatchDebounceMs: e.CORPUS_WATCH_DEBOUNCE_MS ?? 500,
    maxHeapMb: e.MAX_HEAP_MB,
    auth: {
      ...auth,
      resource,
      oauth: auth.oauth === undefined ? undefined : { ...auth.oauth, audience: auth.oauth.audience ?? resource },
    },
  };
}
