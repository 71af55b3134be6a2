// The typed, validated settings loadConfig returns.
import type { ToolLimits } from '../mcp/tools/tool-limits.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

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
