// The only reader of the environment. Every setting is validated here, once, at boot; a bad value
// fails the start with one message that lists every problem, so an operator fixes them in one go.
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
import { staticTokenProblems } from './auth/static-tokens.js';
import { availableCpus } from './available-cpus.js';
import { DEFAULT_SEARCH_OPTIONS, overlapTooLong, SEARCH_OPTION_RANGES } from './search/search-options.js';
import { MIN_SESSION_SECRET_CHARS } from './http/session-token.js';
import { MAX_EMBEDDING_DIMENSIONS } from './providers/embeddings-client.js';
import { DEFAULT_TOOL_LIMITS, TOOL_LIMIT_RANGES } from './mcp/tools/tool-limits.js';
import type { ToolLimits } from './mcp/tools/tool-limits.js';


const DEFAULT_CORPUS_DIR = './corpus';

/**
 * Defaults of the settings that the HTTP layer also takes as options (createApp, the socket limits,
 * the drain), so a server built without loadConfig (tests, benchmarks) runs with production's bounds.
 * Each field's variable, unit and range are on Config.
 */
export const SERVER_DEFAULTS = Object.freeze({
  maxSessions: 1000,
  sessionIdleTtlSeconds: 1800,
  maxSessionsPerPrincipal: 32,
  drainTimeoutMs: 10_000,
  maxBodyBytes: 1_048_576,
  requestTimeoutMs: 30_000,
  maxConcurrentPerSession: 16,
  // Two sessions' worth (2 × maxConcurrentPerSession) at once, over all of a principal's requests.
  maxConcurrentPerPrincipal: 32,
  // With authentication off, per client address: four principals' worth, since a hosted client
  // (Claude) sends all its users' requests from a handful of addresses, and behind a proxy every
  // client shares the proxy's.
  maxConcurrentPerAddress: 128,
  // subscriptions/listen streams open at once: as many as sessions per principal (a client holds
  // one per connection), and per client address with authentication off; one idle this long ends.
  maxListenStreamsPerPrincipal: 32,
  maxListenStreamsPerAddress: 256,
  listenIdleTtlSeconds: 600,
  writeTimeoutMs: 30_000,
  sessionMaxAgeSeconds: 86_400,
});

/**
 * Longest a shutdown waits, after the drain, for a save of the chunk vector cache under way (about a
 * second at 200 MB). A platform's kill timeout must exceed DRAIN_TIMEOUT_MS plus this; a save cut
 * short keeps the previous file.
 */
export const VECTOR_SAVE_WAIT_MS = 3000;

/** So that on a large machine one query does not wake every core: measured gains are for 2 threads (docs/BENCHMARKS.md). */
const MAX_DEFAULT_SCAN_THREADS = 4;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Typed, validated settings. Units are in the names; each field's comment gives its variable, range and default. */
export interface Config {
  /** Folder of documents to serve (resolved by the caller against the working directory). */
  corpusDir: string;
  /** Interface to bind. Default 127.0.0.1 (loopback only). */
  host: string;
  /** TCP port, 0–65535 (0 picks a free port). Default 8080. */
  port: number;
  /**
   * METRICS_PORT: a second listener on HOST serving only GET /metrics, 0–65535 (0 picks a free port),
   * not PORT. Default none: /metrics is then on PORT, and off loopback only when METRICS_TOKEN is set.
   */
  metricsPort: number | undefined;
  /** Origin under which clients reach the server, no trailing slash. Default `http://HOST:PORT`. */
  publicUrl: string;
  /** Sessions kept at once; the least recently used is closed beyond this. Default 1000. */
  maxSessions: number;
  /** Seconds of inactivity after which a session is closed. Default 1800. */
  sessionIdleTtlSeconds: number;
  /**
   * MAX_SESSIONS_PER_PRINCIPAL: sessions one authenticated principal may hold, 1–1000000; beyond it
   * that principal's own least recently used session is closed. Default 32 (at most MAX_SESSIONS).
   */
  maxSessionsPerPrincipal: number;
  /** Longest chunk in words, 20–5000; undefined leaves the search engine's default (180). */
  chunkWords: number | undefined;
  /** Words shared by consecutive chunks, at most half of chunkWords; undefined leaves the default (40). */
  chunkOverlapWords: number | undefined;
  /** BM25 term-frequency saturation, 0–10; undefined leaves the search engine's default. */
  bm25K1: number | undefined;
  /** BM25 length normalisation, 0–1; undefined leaves the search engine's default. */
  bm25B: number | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Whether query text may appear in logs. Default false. */
  logQueries: boolean;
  /**
   * DRAIN_TIMEOUT_MS: the whole drain on SIGTERM/SIGINT, 100–600000 ms: at most half of it listening
   * while requests still arrive, then requests in flight are awaited and, past it, cut off. Default 10000.
   */
  drainTimeoutMs: number;
  /** MAX_BODY_BYTES: largest request body on /mcp, 1024–67108864 bytes; larger ones get 413. Default 1048576 (1 MiB). */
  maxBodyBytes: number;
  /**
   * REQUEST_TIMEOUT_MS: 1000–600000. One value for two bounds, both "how long one request may take":
   * receiving a whole request (headers and body; slower clients get 408 and are disconnected; see
   * http/server-options.ts, where headers alone get at most 10 s) and how long a tool call waits for
   * the index before it is answered with an error (createApp's `indexWaitMs`). Default 30000.
   */
  requestTimeoutMs: number;
  /** MAX_CONCURRENT_PER_SESSION: requests one legacy session may have in progress (a batch counts as its members), 1–1000; more get 429. Default 16. */
  maxConcurrentPerSession: number;
  /**
   * MAX_CONCURRENT_PER_PRINCIPAL: requests one authenticated principal may have in progress in this
   * process, over all its legacy sessions and modern requests together (a batch counts as its
   * members; open GET and listen streams do not count), 1–100000; more get 429. With authentication
   * off, requests are bounded per client address instead (MAX_CONCURRENT_PER_ADDRESS). Default 32.
   */
  maxConcurrentPerPrincipal: number;
  /**
   * MAX_CONCURRENT_PER_ADDRESS: with authentication off, requests one client address (the socket's,
   * IPv6 by its /64; forwarding headers are not read) may have in progress over both eras,
   * 1–100000; more get 429. Default 128.
   */
  maxConcurrentPerAddress: number;
  /**
   * MAX_LISTEN_STREAMS_PER_PRINCIPAL and, with authentication off, MAX_LISTEN_STREAMS_PER_ADDRESS:
   * 2026-07-28 subscriptions/listen streams open at once, 1–100000; one more gets 429. They are not
   * requests in progress. Defaults 32 and 256.
   */
  maxListenStreamsPerPrincipal: number;
  maxListenStreamsPerAddress: number;
  /** LISTEN_IDLE_TTL: seconds without an event after which a listen stream is ended gracefully, 1–604800. Default 600. */
  listenIdleTtlSeconds: number;
  /**
   * MAX_CONNECTIONS: open TCP connections on PORT, 1–1000000; the server closes further ones as soon
   * as they are accepted. Default MAX_SESSIONS + 500 (1500): room for every session's GET stream and
   * for the requests in progress beside them.
   */
  maxConnections: number;
  /**
   * WRITE_TIMEOUT_MS: longest the server holds answer bytes a client does not take, 1000–600000: when
   * a connection has unsent bytes and none of them leave for this long, it is closed. Default 30000.
   */
  writeTimeoutMs: number;
  /**
   * What one tool call may ask for: MAX_QUERY_CHARS, MAX_TOP_K, MAX_DOCUMENT_CHARS (get_document
   * max_chars, and the resources/read cut), MAX_PAGE_SIZE (list_documents limit and resources/list
   * page). Ranges and defaults are the tools' own: ToolLimits, in src/mcp/tools/tool-limits.ts.
   */
  toolLimits: ToolLimits;
  /** Who may call /mcp and /metrics. See AuthConfig. */
  auth: AuthConfig;
  /**
   * INDEX_FILE: path of the index snapshot. At boot it is used when it matches the corpus, the
   * index options and this version; otherwise the index is built and the file (re)written
   * atomically. Default none (always build, write nothing).
   */
  indexFile: string | undefined;
  /** CORPUS_WATCH: rebuild the index when files under CORPUS_DIR change (SIGHUP always does). Default false. */
  corpusWatch: boolean;
  /** CORPUS_WATCH_DEBOUNCE_MS: quiet time after the last change before a watch rebuild starts, 50–60000. Default 500. */
  corpusWatchDebounceMs: number;
  /**
   * MAX_HEAP_MB: cap on V8's old-generation heap in MiB, 64–65536, applied at launch by
   * src/node-args.ts (what `npm start` runs). Default derived from the memory the container or the
   * machine allows (src/heap-limit.ts).
   */
  maxHeapMb: number | undefined;
  /** How legacy-era MCP sessions are kept. See SessionConfig. */
  sessions: SessionConfig;
  /**
   * DATABASE_URL: a postgres:// or postgresql:// URL. When set, session revocations (and the
   * authorization server's records) live in that shared PostgreSQL, so every replica sees them.
   * Default none: the embedded store, for one machine.
   */
  databaseUrl: string | undefined;
  /** Optional embeddings and rerank endpoints. See SemanticConfig. */
  semantic: SemanticConfig;
}

/** Legacy-era (2025) MCP sessions. */
export interface SessionConfig {
  /**
   * MCP_SESSIONS: `on` (default) issues an Mcp-Session-Id on initialize; `off` serves every POST with a
   * fresh server and no session (GET and DELETE answer 405), for load balancers that tolerate no
   * per-process state.
   */
  enabled: boolean;
  /**
   * SESSION_SECRET: ≥ 32 characters. Session ids are encrypted tokens under a key derived from it, so
   * any process holding the same secret can re-create a session it never saw. Default none: a random
   * secret per process (sessions then die with the process), with a warning at boot.
   */
  secret: string | undefined;
  /** SESSION_MAX_AGE: a session's whole life in seconds from its initialize, 60–2592000 (30 days). Default 86400 (24 h). */
  maxAgeSeconds: number;
}

/**
 * Meaning-based search. With neither endpoint set (the default) the server searches by keywords only
 * and nothing here has any effect.
 */
export interface SemanticConfig {
  /**
   * EMBEDDINGS_URL (an OpenAI-compatible base URL; the server calls `POST <url>/embeddings`),
   * EMBEDDINGS_MODEL (required with the URL), EMBEDDINGS_API_KEY (sent as a bearer token; never
   * logged), EMBEDDINGS_DIMENSIONS (1–MAX_EMBEDDING_DIMENSIONS, 8192, for models that can shorten their vectors; default the
   * model's own).
   */
  embeddings: { url: string; model: string; apiKey: string | undefined; dimensions: number | undefined } | undefined;
  /**
   * RERANK_URL (a Cohere-compatible base URL; the server calls `POST <url>/rerank`), RERANK_MODEL
   * (optional: Text Embeddings Inference serves one model), RERANK_API_KEY (never logged). Without
   * it, rerank_results reorders by BM25F (and embeddings when configured).
   */
  rerank: { url: string; model: string | undefined; apiKey: string | undefined } | undefined;
  /**
   * VECTOR_SCAN_THREADS: threads one semantic or hybrid query's vector scan may use, the server's own
   * included, 1–16. Default the CPUs this process may use (a container's CPU quota counted), at most 4. The scan is bound by memory
   * traffic, which a second core nearly doubles (docs/BENCHMARKS.md); 1 keeps every scan on one core.
   */
  scanThreads: number;
}

/**
 * Authentication settings. Static tokens and OAuth can be on together. With none of them configured
 * (`enabled` false) the server only runs on a loopback HOST, unless ALLOW_UNAUTHENTICATED=true.
 */
export interface AuthConfig {
  /** True when AUTH_TOKENS, AUTH_TOKENS_FILE or OAUTH_ISSUER is set: /mcp then requires a bearer token. */
  enabled: boolean;
  /** AUTH_TOKENS: comma-separated static bearer tokens, each ≥ 32 characters. Default none. */
  staticTokens: string[];
  /**
   * AUTH_TOKENS_FILE: path of a file with one token a line. Read by main.ts at boot (see
   * src/auth/token-file.ts), not here, so that loading the config stays a pure function of the
   * environment. Default none.
   */
  tokensFile: string | undefined;
  /** OAuth resource server settings, present when OAUTH_ISSUER is set. */
  oauth:
    | {
        /** OAUTH_ISSUER: expected `iss`, exactly as the authorization server writes it. https, or http on loopback. */
        issuer: string;
        /** OAUTH_JWKS_URL: the issuer's key set; default undefined = discover it from the issuer's metadata. */
        jwksUrl: string | undefined;
        /** OAUTH_AUDIENCE: expected `aud`; default the resource URL (RFC 8707). */
        audience: string;
        /** OAUTH_REQUIRED_SCOPES: comma- or space-separated scopes every token must carry. Default none. */
        requiredScopes: string[];
      }
    | undefined;
  /** The canonical resource URL of the MCP endpoint: PUBLIC_URL + '/mcp'. */
  resource: string;
  /** ALLOW_UNAUTHENTICATED: serve a non-loopback HOST with no auth at all. Default false. */
  allowUnauthenticated: boolean;
  /**
   * ALLOW_HTTP_PUBLIC_URL: accept an http (not https) PUBLIC_URL on a non-loopback host with auth on,
   * for clients on a private network whose traffic is protected otherwise (a TLS-terminating sidecar,
   * a VPN). Default false: bearer tokens must not cross a network in the clear.
   */
  allowHttpPublicUrl: boolean;
  /** METRICS_TOKEN: when set (≥ 32 characters), /metrics requires it as a bearer token. Default none (open). */
  metricsToken: string | undefined;
  /** The built-in authorization server with upstream login, present when LOGIN_PROVIDER is set. */
  login: LoginConfig | undefined;
}

/**
 * The built-in authorization server (LOGIN_PROVIDER): this server becomes the OAuth issuer Claude talks
 * to (issuer = PUBLIC_URL) and delegates the sign-in itself to the team's identity provider.
 */
export interface LoginConfig {
  /** LOGIN_PROVIDER: `oidc` (Google, Entra ID, Okta, Keycloak, Auth0…) or `github`. */
  provider: 'oidc' | 'github';
  /** LOGIN_OIDC_ISSUER, for `oidc`: https, or http on a loopback host. */
  oidcIssuer: string | undefined;
  /** LOGIN_CLIENT_ID / LOGIN_CLIENT_SECRET: the app registered upstream with callback PUBLIC_URL/oauth/callback. */
  clientId: string;
  clientSecret: string;
  /** LOGIN_GITHUB_URL (default https://github.com) and LOGIN_GITHUB_API_URL (default https://api.github.com), for GitHub Enterprise Server. */
  githubUrl: string;
  githubApiUrl: string;
  /** ALLOWED_EMAILS, ALLOWED_EMAIL_DOMAINS, ALLOWED_GITHUB_ORGS: comma-separated; verified emails only. */
  allowedEmails: string[];
  allowedEmailDomains: string[];
  allowedGithubOrgs: string[];
  /** ALLOW_ANY_LOGIN: admit anyone the upstream provider signs in with a verified email. Default false. */
  allowAnyLogin: boolean;
  /** AUTH_SECRET (≥ 32 characters): signing and cookie keys derive from it. */
  secret: string;
  /** AUTH_DATA_DIR: folder of the embedded store. Default ./data. */
  dataDir: string;
  /** ACCESS_TOKEN_TTL: seconds, 60–86400. Default 3600. */
  accessTokenTtlSeconds: number;
  /** REFRESH_TOKEN_TTL: seconds from sign-in (absolute, rotation does not extend it), 3600–31536000. Default 2592000 (30 days). */
  refreshTokenTtlSeconds: number;
  /**
   * REFRESH_TOKEN_GRACE: seconds a rotated refresh token keeps working after its first use, 1–3600.
   * Default 120. Clients such as Claude refresh in parallel and retry, and would be signed out by
   * strictly single-use tokens; a rotated token presented after the window is taken as stolen and
   * its whole grant is revoked. Every replica must use the same value.
   */
  refreshGraceSeconds: number;
}

/** Thrown by `loadConfig`; `problems` has one line per bad variable. */
export class ConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const blankToUndefined = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

const integer = (min: number, max: number) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .int({ error: 'must be a whole number' })
      .min(min, { error: `must be at least ${min}` })
      .max(max, { error: `must be at most ${max}` })
      .optional(),
  );

const decimal = (min: number, max: number, minExclusive = false) =>
  z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: 'must be a number' })
      .refine((n) => Number.isFinite(n), { error: 'must be a finite number' })
      .refine((n) => (minExclusive ? n > min : n >= min), {
        error: minExclusive ? `must be greater than ${min}` : `must be at least ${min}`,
      })
      .refine((n) => n <= max, { error: `must be at most ${max}` })
      .optional(),
  );

const text = z.preprocess(blankToUndefined, z.string().optional());

const boolean = z.preprocess(
  blankToUndefined,
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? undefined : ['true', '1', 'yes'].includes(v))),
);

/** An absolute http(s) URL; `example` shows one in the message that refuses anything else. */
const httpUrl = (example: string) => z.url({ protocol: /^https?$/, error: `must be an absolute http:// or https:// URL, e.g. ${example}` });

const url = z.preprocess(blankToUndefined, httpUrl('https://docs.example.com').optional());

// A provider's base URL is logged and named in tool notes, so it may not carry a secret: the key
// goes in *_API_KEY (sent as a bearer token). A query string would also end up before the path the
// client appends (`<url>/embeddings`).
const providerUrl = z.preprocess(
  blankToUndefined,
  httpUrl('https://api.openai.com/v1')
    .refine((value) => {
      const u = new URL(value);
      return u.username === '' && u.password === '';
    }, 'must not carry a user name or password; put the key in the matching *_API_KEY variable')
    .refine((value) => {
      const u = new URL(value);
      return u.search === '' && u.hash === '';
    }, 'must be a base URL without a query string or fragment (the server appends /embeddings or /rerank); put a key in the matching *_API_KEY variable')
    .optional(),
);

const envSchema = z.object({
  CORPUS_DIR: text,
  HOST: text,
  PORT: integer(0, 65535),
  METRICS_PORT: integer(0, 65535),
  PUBLIC_URL: url,
  MAX_SESSIONS: integer(1, 1_000_000),
  SESSION_IDLE_TTL: integer(1, 7 * 24 * 3600),
  MAX_SESSIONS_PER_PRINCIPAL: integer(1, 1_000_000),
  // The search engine's own ranges, so a value the environment accepts is one the engine accepts.
  CHUNK_WORDS: integer(SEARCH_OPTION_RANGES.chunkWords.min, SEARCH_OPTION_RANGES.chunkWords.max),
  CHUNK_OVERLAP_WORDS: integer(SEARCH_OPTION_RANGES.overlapWords.min, SEARCH_OPTION_RANGES.overlapWords.max),
  BM25_K1: decimal(SEARCH_OPTION_RANGES.k1.min, SEARCH_OPTION_RANGES.k1.max),
  BM25_B: decimal(SEARCH_OPTION_RANGES.b.min, SEARCH_OPTION_RANGES.b.max),
  LOG_LEVEL: z.preprocess(
    (v) => (typeof blankToUndefined(v) === 'string' ? String(v).toLowerCase() : undefined),
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional(),
  ),
  LOG_QUERIES: boolean,
  DRAIN_TIMEOUT_MS: integer(100, 600_000),
  MAX_BODY_BYTES: integer(1024, 64 * 1024 * 1024),
  REQUEST_TIMEOUT_MS: integer(1000, 600_000),
  MAX_CONCURRENT_PER_SESSION: integer(1, 1000),
  MAX_CONCURRENT_PER_PRINCIPAL: integer(1, 100_000),
  MAX_CONCURRENT_PER_ADDRESS: integer(1, 100_000),
  MAX_LISTEN_STREAMS_PER_PRINCIPAL: integer(1, 100_000),
  MAX_LISTEN_STREAMS_PER_ADDRESS: integer(1, 100_000),
  LISTEN_IDLE_TTL: integer(1, 7 * 24 * 3600),
  MAX_CONNECTIONS: integer(1, 1_000_000),
  WRITE_TIMEOUT_MS: integer(1000, 600_000),
  // The tools' own ranges, so a limit the environment accepts is one the tools accept.
  MAX_QUERY_CHARS: integer(...TOOL_LIMIT_RANGES.maxQueryChars),
  MAX_TOP_K: integer(...TOOL_LIMIT_RANGES.maxTopK),
  MAX_DOCUMENT_CHARS: integer(...TOOL_LIMIT_RANGES.maxDocumentChars),
  MAX_PAGE_SIZE: integer(...TOOL_LIMIT_RANGES.maxPageSize),
  MCP_SESSIONS: z.preprocess(
    (v) => (typeof blankToUndefined(v) === 'string' ? String(v).toLowerCase() : undefined),
    z.enum(['on', 'off'], { error: 'must be on or off' }).optional(),
  ),
  SESSION_MAX_AGE: integer(60, 30 * 24 * 3600),
  EMBEDDINGS_URL: providerUrl,
  EMBEDDINGS_MODEL: text,
  EMBEDDINGS_DIMENSIONS: integer(1, MAX_EMBEDDING_DIMENSIONS),
  VECTOR_SCAN_THREADS: integer(1, 16),
  RERANK_URL: providerUrl,
  RERANK_MODEL: text,
  // Boot check only: accept an http EMBEDDINGS_URL or RERANK_URL on a non-loopback host while its
  // *_API_KEY is set. Default false: the key must not cross a network in the clear.
  ALLOW_HTTP_PROVIDER_URL: boolean,
  INDEX_FILE: text,
  CORPUS_WATCH: boolean,
  CORPUS_WATCH_DEBOUNCE_MS: integer(50, 60_000),
  MAX_HEAP_MB: integer(64, 65_536),
});

/**
 * The embeddings and rerank settings that only make sense together; API keys are secrets, read from
 * the raw environment and never quoted in a message.
 */
function semanticProblems(env: Readonly<Record<string, string | undefined>>, e: z.output<typeof envSchema>): string[] {
  const problems: string[] = [];
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL === undefined) {
    problems.push(`EMBEDDINGS_MODEL="": is required with EMBEDDINGS_URL; set the model name the endpoint serves, e.g. text-embedding-3-small`);
  }
  if (e.EMBEDDINGS_URL === undefined) {
    for (const name of ['EMBEDDINGS_MODEL', 'EMBEDDINGS_DIMENSIONS', 'VECTOR_SCAN_THREADS'] as const) {
      if (set(name)) problems.push(`${name}=${JSON.stringify(env[name])}: has no effect without EMBEDDINGS_URL; set EMBEDDINGS_URL to an OpenAI-compatible base URL`);
    }
    if (set('EMBEDDINGS_API_KEY')) problems.push('EMBEDDINGS_API_KEY (value hidden): has no effect without EMBEDDINGS_URL');
  }
  // A provider key is a bearer token too: over http it crosses every network between here and the
  // endpoint in the clear. This link is not the one ALLOW_HTTP_PUBLIC_URL vouches for.
  for (const [urlName, keyName] of [['EMBEDDINGS_URL', 'EMBEDDINGS_API_KEY'], ['RERANK_URL', 'RERANK_API_KEY']] as const) {
    const value = e[urlName];
    if (value === undefined || !set(keyName) || e.ALLOW_HTTP_PROVIDER_URL === true) continue;
    const u = new URL(value);
    if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
      problems.push(
        `${urlName}=${JSON.stringify(value)}: is http on a host that is not loopback while ${keyName} is set, so the key would cross the network in the clear; ` +
          'use an https:// URL, or set ALLOW_HTTP_PROVIDER_URL=true if the network path to the endpoint is protected otherwise (a private network, a VPN, a TLS sidecar)',
      );
    }
  }
  if (e.RERANK_URL === undefined) {
    if (set('RERANK_MODEL')) problems.push(`RERANK_MODEL=${JSON.stringify(env.RERANK_MODEL)}: has no effect without RERANK_URL; set RERANK_URL to a Cohere-compatible base URL`);
    if (set('RERANK_API_KEY')) problems.push('RERANK_API_KEY (value hidden): has no effect without RERANK_URL');
  }
  return problems;
}

// Validated apart from envSchema so that its problems are listed even when other variables are bad.
// AUTH_TOKENS and METRICS_TOKEN are secrets: they are checked by hand so no message ever quotes them.
const authSchema = z.object({
  AUTH_TOKENS: text,
  AUTH_TOKENS_FILE: text,
  OAUTH_ISSUER: url,
  OAUTH_JWKS_URL: url,
  OAUTH_AUDIENCE: text,
  OAUTH_REQUIRED_SCOPES: text,
  ALLOW_UNAUTHENTICATED: boolean,
  ALLOW_HTTP_PUBLIC_URL: boolean,
  METRICS_TOKEN: text,
});

/**
 * SESSION_SECRET and DATABASE_URL are secrets (a database URL may hold a password): checked by hand
 * so that no message ever quotes them.
 */
function secretProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  const secret = env.SESSION_SECRET?.trim();
  if (secret && secret.length < MIN_SESSION_SECRET_CHARS) {
    problems.push(
      `SESSION_SECRET: is ${secret.length} characters, must be at least ${MIN_SESSION_SECRET_CHARS} (e.g. SESSION_SECRET=$(openssl rand -hex 32)); every replica needs the same one`,
    );
  }
  const databaseUrl = env.DATABASE_URL?.trim();
  if (databaseUrl) {
    let protocol: string | undefined;
    try {
      protocol = new URL(databaseUrl).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
      problems.push('DATABASE_URL: must be a postgres:// or postgresql:// URL, e.g. postgres://user:password@db.internal:5432/corpus (value not shown: it may hold a password)');
    }
  }
  return problems;
}

const LOGIN_PROVIDERS = ['oidc', 'github'] as const;
const MIN_AUTH_SECRET_CHARS = 32;
/** AUTH_DATA_DIR's default: the embedded store's folder, relative to the working directory. */
const DEFAULT_AUTH_DATA_DIR = './data';

/** AUTH_DATA_DIR alone, for the operator tool (`npm run auth`), which needs no other setting. */
export function loadAuthDataDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.AUTH_DATA_DIR?.trim() || DEFAULT_AUTH_DATA_DIR;
}

/** DATABASE_URL alone, for the operator tool: with it, the sign-in records live in PostgreSQL. */
export function loadDatabaseUrl(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  return env.DATABASE_URL?.trim() || undefined;
}

const loginSchema = z.object({
  LOGIN_PROVIDER: z.preprocess(
    (v) => (typeof blankToUndefined(v) === 'string' ? String(v).trim().toLowerCase() : undefined),
    z.enum(LOGIN_PROVIDERS, { error: `must be one of ${LOGIN_PROVIDERS.join(', ')}` }).optional(),
  ),
  LOGIN_OIDC_ISSUER: url,
  LOGIN_CLIENT_ID: text,
  LOGIN_GITHUB_URL: url,
  LOGIN_GITHUB_API_URL: url,
  ALLOWED_EMAILS: text,
  ALLOWED_EMAIL_DOMAINS: text,
  ALLOWED_GITHUB_ORGS: text,
  ALLOW_ANY_LOGIN: boolean,
  AUTH_DATA_DIR: text,
  ACCESS_TOKEN_TTL: integer(60, 86_400),
  REFRESH_TOKEN_TTL: integer(3600, 365 * 86_400),
  REFRESH_TOKEN_GRACE: integer(1, 3600),
});

/**
 * LOGIN_PROVIDER and its companions. Secrets (LOGIN_CLIENT_SECRET, AUTH_SECRET) are checked by hand so
 * that no message quotes them.
 */
function readLogin(env: Readonly<Record<string, string | undefined>>): { login: LoginConfig | undefined; problems: string[] } {
  const problems: string[] = [];
  const parsed = loginSchema.safeParse(env);
  if (!parsed.success) return { login: undefined, problems: issueProblems(parsed.error.issues, env) };
  const l = parsed.data;
  const clientSecret = env.LOGIN_CLIENT_SECRET?.trim() || undefined;
  const secret = env.AUTH_SECRET?.trim() || undefined;
  if (l.LOGIN_PROVIDER === undefined) {
    for (const name of Object.keys(loginSchema.shape).concat('LOGIN_CLIENT_SECRET', 'AUTH_SECRET')) {
      // AUTH_DATA_DIR is a deployment default (the image and fly.toml set it) and harmless unused.
      if (name === 'LOGIN_PROVIDER' || name === 'AUTH_DATA_DIR' || env[name]?.trim() === undefined || env[name]?.trim() === '') continue;
      const shown = name === 'LOGIN_CLIENT_SECRET' || name === 'AUTH_SECRET' ? '(set)' : JSON.stringify(env[name]);
      problems.push(`${name}=${shown}: has no effect without LOGIN_PROVIDER; set LOGIN_PROVIDER=oidc or LOGIN_PROVIDER=github to turn on team sign-in`);
    }
    return { login: undefined, problems };
  }
  const provider = l.LOGIN_PROVIDER;
  const https = (name: 'LOGIN_OIDC_ISSUER' | 'LOGIN_GITHUB_URL' | 'LOGIN_GITHUB_API_URL') => {
    const value = l[name];
    if (value !== undefined && new URL(value).protocol !== 'https:' && !isLoopbackHost(new URL(value).hostname)) {
      problems.push(`${name}=${JSON.stringify(value)}: must be an https:// URL (http is accepted only for a loopback host)`);
    }
  };
  https('LOGIN_OIDC_ISSUER');
  https('LOGIN_GITHUB_URL');
  https('LOGIN_GITHUB_API_URL');
  if (provider === 'oidc' && l.LOGIN_OIDC_ISSUER === undefined) {
    problems.push('LOGIN_OIDC_ISSUER="": required with LOGIN_PROVIDER=oidc: the issuer URL of your identity provider, e.g. https://accounts.google.com');
  }
  if (provider === 'oidc' && l.ALLOWED_GITHUB_ORGS !== undefined) {
    problems.push(`ALLOWED_GITHUB_ORGS=${JSON.stringify(env.ALLOWED_GITHUB_ORGS)}: only works with LOGIN_PROVIDER=github; use ALLOWED_EMAILS or ALLOWED_EMAIL_DOMAINS`);
  }
  if (l.LOGIN_CLIENT_ID === undefined) {
    problems.push('LOGIN_CLIENT_ID="": required with LOGIN_PROVIDER: the client id of the app you registered with your identity provider');
  }
  if (clientSecret === undefined) {
    problems.push('LOGIN_CLIENT_SECRET (unset): required with LOGIN_PROVIDER: the client secret of the app you registered with your identity provider');
  }
  if (secret === undefined || secret.length < MIN_AUTH_SECRET_CHARS) {
    problems.push(
      `AUTH_SECRET ${secret === undefined ? '(unset)' : `(${secret.length} characters)`}: required with LOGIN_PROVIDER, at least ${MIN_AUTH_SECRET_CHARS} characters; ` +
        'signing keys derive from it, e.g. AUTH_SECRET=$(openssl rand -hex 32)',
    );
  }
  const allowedEmails = splitList(l.ALLOWED_EMAILS, /,/).map((e) => e.toLowerCase());
  const allowedEmailDomains = splitList(l.ALLOWED_EMAIL_DOMAINS, /,/).map((d) => d.toLowerCase().replace(/^@/, ''));
  const allowedGithubOrgs = splitList(l.ALLOWED_GITHUB_ORGS, /,/).map((o) => o.toLowerCase());
  for (const email of allowedEmails) {
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) problems.push(`ALLOWED_EMAILS entry ${JSON.stringify(email)}: is not an email address`);
  }
  const allowAnyLogin = l.ALLOW_ANY_LOGIN ?? false;
  if (!allowAnyLogin && allowedEmails.length + allowedEmailDomains.length + allowedGithubOrgs.length === 0) {
    problems.push(
      'ALLOWED_EMAILS="": say who may sign in with ALLOWED_EMAILS, ALLOWED_EMAIL_DOMAINS' +
        (provider === 'github' ? ' or ALLOWED_GITHUB_ORGS' : '') +
        '; or set ALLOW_ANY_LOGIN=true to admit anyone your identity provider signs in',
    );
  }
  if (problems.length > 0) return { login: undefined, problems };
  return {
    problems,
    login: {
      provider,
      oidcIssuer: l.LOGIN_OIDC_ISSUER,
      clientId: l.LOGIN_CLIENT_ID!,
      clientSecret: clientSecret!,
      githubUrl: (l.LOGIN_GITHUB_URL ?? 'https://github.com').replace(/\/+$/, ''),
      githubApiUrl: (l.LOGIN_GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
      allowedEmails,
      allowedEmailDomains,
      allowedGithubOrgs,
      allowAnyLogin,
      secret: secret!,
      dataDir: l.AUTH_DATA_DIR ?? DEFAULT_AUTH_DATA_DIR,
      accessTokenTtlSeconds: l.ACCESS_TOKEN_TTL ?? 3600,
      refreshTokenTtlSeconds: l.REFRESH_TOKEN_TTL ?? 30 * 86_400,
      refreshGraceSeconds: l.REFRESH_TOKEN_GRACE ?? 120,
    },
  };
}

/** One line per schema issue, naming the variable and its value (a URL's credentials and query hidden). */
function issueProblems(issues: readonly { path: readonly PropertyKey[]; message: string }[], env: Readonly<Record<string, string | undefined>>): string[] {
  return issues.map((issue) => {
    const name = String(issue.path[0] ?? '?');
    return `${name}=${JSON.stringify(shownValue(env[name] ?? ''))}: ${issue.message}`;
  });
}

/** `value` as a message may quote it: a URL's user name, password and query string replaced by "…". */
function shownValue(value: string): string {
  let u: URL;
  try {
    u = new URL(value.trim());
  } catch {
    return value;
  }
  if (u.username === '' && u.password === '' && u.search === '' && u.hash === '') return value;
  return `${u.protocol}//${u.username !== '' || u.password !== '' ? '…@' : ''}${u.host}${u.pathname}${u.search !== '' || u.hash !== '' ? '?…' : ''}`;
}

/** Whether `host` only accepts connections from this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

const splitList = (value: string | undefined, separator: RegExp) =>
  (value ?? '').split(separator).map((item) => item.trim()).filter((item) => item !== '');

type ParsedAuth = Omit<AuthConfig, 'resource' | 'oauth' | 'login'> & { oauth: Omit<NonNullable<AuthConfig['oauth']>, 'audience'> & { audience: string | undefined } | undefined };

function readAuth(env: Readonly<Record<string, string | undefined>>): { auth: ParsedAuth | undefined; problems: string[] } {
  const parsed = authSchema.safeParse(env);
  // Secrets first, from the raw values, so their problems are listed even when another variable is bad.
  const problems: string[] = [];
  const staticTokens = splitList(env.AUTH_TOKENS, /,/);
  problems.push(...staticTokenProblems(staticTokens, (i) => `AUTH_TOKENS entry ${i + 1}`));
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined) problems.push(...staticTokenProblems([metricsToken], () => 'METRICS_TOKEN'));
  if (!parsed.success) {
    problems.push(...issueProblems(parsed.error.issues, env));
    return { auth: undefined, problems };
  }
  const a = parsed.data;

  // RFC 8414 §2: the issuer is an https URL; plain http is tolerated on loopback for local IdPs.
  for (const name of ['OAUTH_ISSUER', 'OAUTH_JWKS_URL'] as const) {
    const value = a[name];
    if (value !== undefined && new URL(value).protocol !== 'https:' && !isLoopbackHost(new URL(value).hostname)) {
      problems.push(`${name}=${JSON.stringify(value)}: must be an https:// URL (http is accepted only for a loopback host)`);
    }
  }
  if (a.OAUTH_ISSUER === undefined) {
    for (const name of ['OAUTH_JWKS_URL', 'OAUTH_AUDIENCE', 'OAUTH_REQUIRED_SCOPES'] as const) {
      if (a[name] !== undefined) problems.push(`${name}=${JSON.stringify(env[name])}: has no effect without OAUTH_ISSUER; set OAUTH_ISSUER to your identity provider's issuer URL`);
    }
  }
  const enabled = staticTokens.length > 0 || a.AUTH_TOKENS_FILE !== undefined || a.OAUTH_ISSUER !== undefined;
  const allowUnauthenticated = a.ALLOW_UNAUTHENTICATED ?? false;
  if (enabled && allowUnauthenticated) {
    problems.push(
      'ALLOW_UNAUTHENTICATED="true": contradicts the configured authentication (AUTH_TOKENS, AUTH_TOKENS_FILE or OAUTH_ISSUER); remove one or the other',
    );
  }
  return {
    problems,
    auth: {
      enabled,
      staticTokens,
      tokensFile: a.AUTH_TOKENS_FILE?.trim(),
      oauth:
        a.OAUTH_ISSUER === undefined
          ? undefined
          : {
              issuer: a.OAUTH_ISSUER,
              jwksUrl: a.OAUTH_JWKS_URL,
              audience: a.OAUTH_AUDIENCE?.trim(),
              requiredScopes: [...new Set(splitList(a.OAUTH_REQUIRED_SCOPES, /[\s,]+/))],
            },
      allowUnauthenticated,
      allowHttpPublicUrl: a.ALLOW_HTTP_PUBLIC_URL ?? false,
      metricsToken,
    },
  };
}

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
