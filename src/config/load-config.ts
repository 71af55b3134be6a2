// The only reader of the environment. Every setting is validated here, once, at boot; a bad value
// fails the start with one message that lists every problem, so an operator fixes them in one go.
// A pure function of its arguments: what it needs from the machine (the CPU count) is passed in.
import { DEFAULT_SEARCH_OPTIONS } from '../search/search-options.js';
import { readAuth } from './auth.js';
import { gitConfig, gitProblems } from './git.js';
import type { Config } from './config.js';
import { ConfigError } from './config-error.js';
import { parserOf } from './env-kinds.js';
import type { Env } from './env-kinds.js';
import { readLogin } from './login.js';
import { issueProblems } from './messages.js';
import { clearTextProblems, hostProblems, issuerProblems, metricsPortProblems, overlapProblems, tokensFileProblems } from './rules.js';
import { CONNECTIONS_BEYOND_SESSIONS, SERVER_VARIABLES } from './schema.js';
import { databaseUrlProblems, loadDatabaseUrl, sessionSecretProblems } from './secrets.js';
import { semanticConfig, semanticProblems } from './semantic.js';
import { mcpResourceUrl } from '../server-paths.js';

const serverParser = parserOf(SERVER_VARIABLES);

/** What loadConfig needs to know of the machine it runs on. */
export interface Machine {
  /** CPUs this process may use (src/available-cpus.ts measures it): VECTOR_SCAN_THREADS's default derives from it. */
  cpus: number;
  /**
   * A path with its symbolic links resolved (src/real-path.ts), for the rules that compare where
   * files really are. Default `path.resolve`: links are not seen.
   */
  realPath?: (path: string) => string;
  /**
   * The port the server is bound to, once it is, when PORT=0 let the system choose: the URLs derived
   * from the server's address (PUBLIC_URL's default, the OAuth resource) name it. Default none.
   */
  boundPort?: number;
}

/** `http://HOST:PORT`, bracketing an IPv6 literal. */
function defaultPublicUrl(host: string, port: number): string {
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${hostPart}:${port}`;
}

/**
 * Reads and validates the settings. Throws `ConfigError` naming every bad variable and its value.
 * Blank variables count as unset. `machine` defaults to one CPU, for callers that serve no semantic
 * search (tests, tools); the server passes what it measured.
 */
export function loadConfig(env: Env = process.env, machine: Machine = { cpus: 1 }): Config {
  const parsed = serverParser.safeParse(env);
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
  const sessionSecret = env.SESSION_SECRET?.trim() || undefined;
  const databaseUrl = loadDatabaseUrl(env);
  const secretProblems = [...sessionSecretProblems(sessionSecret), ...databaseUrlProblems(databaseUrl)];
  if (!parsed.success) {
    throw new ConfigError([...issueProblems(parsed.error.issues, env), ...authProblems, ...secretProblems]);
  }
  const e = parsed.data;
  const { HOST: host, PUBLIC_URL: givenPublicUrl } = e;
  const port = e.PORT === 0 && machine.boundPort !== undefined ? machine.boundPort : e.PORT;
  const problems: string[] = [
    ...authProblems,
    ...secretProblems,
    ...semanticProblems(env, e),
    ...gitProblems(env, e),
    ...overlapProblems(env, e.CHUNK_WORDS ?? DEFAULT_SEARCH_OPTIONS.chunkWords, e.CHUNK_OVERLAP_WORDS),
    ...hostProblems(host, givenPublicUrl, auth),
    ...clearTextProblems(host, givenPublicUrl, auth),
    ...tokensFileProblems(auth?.tokensFile, e.CORPUS_DIR, machine.realPath),
    ...(login === undefined ? [] : issuerProblems(login.provider, host, givenPublicUrl)),
    ...metricsPortProblems(env, port, e.METRICS_PORT),
  ];
  if (problems.length > 0 || auth === undefined) throw new ConfigError(problems);

  const publicUrl = (givenPublicUrl ?? defaultPublicUrl(host, port)).replace(/\/+$/, '');
  const maxSessions = e.MAX_SESSIONS;
  const resource = mcpResourceUrl(publicUrl);
  return {
    corpusDir: e.CORPUS_DIR,
    host,
    port,
    metricsPort: e.METRICS_PORT,
    publicUrl,
    maxSessions,
    sessionIdleTtlSeconds: e.SESSION_IDLE_TTL,
    maxSessionsPerPrincipal: Math.min(e.MAX_SESSIONS_PER_PRINCIPAL, maxSessions),
    chunkWords: e.CHUNK_WORDS,
    chunkOverlapWords: e.CHUNK_OVERLAP_WORDS,
    bm25K1: e.BM25_K1,
    bm25B: e.BM25_B,
    logLevel: e.LOG_LEVEL,
    logQueries: e.LOG_QUERIES,
    drainTimeoutMs: e.DRAIN_TIMEOUT_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    maxConcurrentPerSession: e.MAX_CONCURRENT_PER_SESSION,
    maxConcurrentPerPrincipal: e.MAX_CONCURRENT_PER_PRINCIPAL,
    maxConcurrentPerAddress: e.MAX_CONCURRENT_PER_ADDRESS,
    maxListenStreamsPerPrincipal: e.MAX_LISTEN_STREAMS_PER_PRINCIPAL,
    maxListenStreamsPerAddress: e.MAX_LISTEN_STREAMS_PER_ADDRESS,
    listenIdleTtlSeconds: e.LISTEN_IDLE_TTL,
    maxConnections: e.MAX_CONNECTIONS ?? maxSessions + CONNECTIONS_BEYOND_SESSIONS,
    writeTimeoutMs: e.WRITE_TIMEOUT_MS,
    toolLimits: {
      maxQueryChars: e.MAX_QUERY_CHARS,
      maxTopK: e.MAX_TOP_K,
      maxDocumentChars: e.MAX_DOCUMENT_CHARS,
      maxPageSize: e.MAX_PAGE_SIZE,
    },
    sessions: {
      enabled: e.MCP_SESSIONS === 'on',
      secret: sessionSecret,
      maxAgeSeconds: e.SESSION_MAX_AGE,
    },
    databaseUrl,
    semantic: semanticConfig(env, e, machine.cpus),
    ...gitConfig(env, e),
    indexFile: e.INDEX_FILE?.trim(),
    corpusWatch: e.CORPUS_WATCH,
    corpusWatchDebounceMs: e.CORPUS_WATCH_DEBOUNCE_MS,
    maxHeapMb: e.MAX_HEAP_MB,
    auth: {
      ...auth,
      resource,
      oauth: auth.oauth === undefined ? undefined : { ...auth.oauth, audience: auth.oauth.audience ?? resource },
    },
  };
}
