// The typed, validated settings loadConfig returns. Units are in the names; each field says which
// variable sets it, and schema.ts says what the variable does, its range and its default.
import type { LogLevel } from '../logger.js';
import type { LoginProvider } from './schema.js';

export interface Config {
  /** CORPUS_DIR, resolved by the caller against the working directory. */
  corpusDir: string;
  /** HOST */
  host: string;
  /** PORT */
  port: number;
  /** METRICS_PORT; undefined serves /metrics on PORT. */
  metricsPort: number | undefined;
  /** PUBLIC_URL, or `http://HOST:PORT` on loopback; no trailing slash. */
  publicUrl: string;
  /** MAX_SESSIONS */
  maxSessions: number;
  /** SESSION_IDLE_TTL */
  sessionIdleTtlSeconds: number;
  /** MAX_SESSIONS_PER_PRINCIPAL, at most maxSessions. */
  maxSessionsPerPrincipal: number;
  /** CHUNK_WORDS; undefined leaves the search engine's default. */
  chunkWords: number | undefined;
  /** CHUNK_OVERLAP_WORDS; undefined leaves the search engine's default. */
  chunkOverlapWords: number | undefined;
  /** BM25_K1; undefined leaves the search engine's default. */
  bm25K1: number | undefined;
  /** BM25_B; undefined leaves the search engine's default. */
  bm25B: number | undefined;
  /** LOG_LEVEL */
  logLevel: LogLevel;
  /** LOG_QUERIES */
  logQueries: boolean;
  /** DRAIN_TIMEOUT_MS */
  drainTimeoutMs: number;
  /** MAX_BODY_BYTES */
  maxBodyBytes: number;
  /**
   * REQUEST_TIMEOUT_MS: one value for two bounds, both "how long one request may take": receiving a
   * whole request (http/server-options.ts) and how long a tool call waits for the index (createMcpEndpoint's
   * `indexWaitMs`).
   */
  requestTimeoutMs: number;
  /** MAX_CONCURRENT_PER_SESSION */
  maxConcurrentPerSession: number;
  /** MAX_CONCURRENT_PER_PRINCIPAL */
  maxConcurrentPerPrincipal: number;
  /** MAX_CONCURRENT_PER_ADDRESS, with authentication off. */
  maxConcurrentPerAddress: number;
  /** MAX_LISTEN_STREAMS_PER_PRINCIPAL */
  maxListenStreamsPerPrincipal: number;
  /** MAX_LISTEN_STREAMS_PER_ADDRESS, with authentication off. */
  maxListenStreamsPerAddress: number;
  /** LISTEN_IDLE_TTL */
  listenIdleTtlSeconds: number;
  /** MAX_CONNECTIONS */
  maxConnections: number;
  /** WRITE_TIMEOUT_MS */
  writeTimeoutMs: number;
  /** MAX_QUERY_CHARS, MAX_TOP_K, MAX_DOCUMENT_CHARS, MAX_PAGE_SIZE. */
  toolLimits: ToolLimits;
  /** Who may call /mcp and /metrics. */
  auth: AuthConfig;
  /** INDEX_FILE; undefined always builds and writes nothing. */
  indexFile: string | undefined;
  /** CORPUS_WATCH */
  corpusWatch: boolean;
  /** CORPUS_WATCH_DEBOUNCE_MS */
  corpusWatchDebounceMs: number;
  /** MAX_HEAP_MB, applied at launch by src/node-args.ts; undefined derives it from the memory (src/heap-limit.ts). */
  maxHeapMb: number | undefined;
  /** How 2025-era MCP sessions are kept. */
  sessions: SessionConfig;
  /** DATABASE_URL; undefined keeps state in the embedded store, for one machine. */
  databaseUrl: string | undefined;
  /** Optional embeddings and rerank endpoints. */
  semantic: SemanticConfig;
  /** CORPUS_GIT_*: the repository whose working copy is `corpusDir`; undefined serves the folder as it is. */
  git: GitSourceConfig | undefined;
  /** SOURCE_URL_TEMPLATE, or the one derived from a GitHub or GitLab CORPUS_GIT_URL; undefined gives no `url`s. */
  sourceUrlTemplate: string | undefined;
}

/** A git repository served from a shallow working copy in CORPUS_DIR. */
export interface GitSourceConfig {
  /** CORPUS_GIT_URL: https, ssh, git, file or a local path; never with a password. */
  url: string;
  /** CORPUS_GIT_REF; undefined follows the remote's default branch (its HEAD). */
  ref: string | undefined;
  /** CORPUS_GIT_PATH, normalised, no leading or trailing slash; '' for the whole repository. */
  path: string;
  /** CORPUS_GIT_TOKEN (never logged). */
  token: string | undefined;
  /** CORPUS_GIT_POLL */
  pollSeconds: number;
  /** CORPUS_GIT_WEBHOOK_SECRET; undefined serves no /hooks/git. */
  webhookSecret: string | undefined;
  /** CORPUS_GIT_MAX_MB, in bytes. */
  maxBytes: number;
}

/** What one tool call may ask for. */
export interface ToolLimits {
  /** MAX_QUERY_CHARS: longest search_documents query after trimming, in characters. */
  maxQueryChars: number;
  /** MAX_TOP_K: largest search_documents top_k. */
  maxTopK: number;
  /** MAX_DOCUMENT_CHARS: largest get_document max_chars, in characters. */
  maxDocumentChars: number;
  /** MAX_PAGE_SIZE: largest list_documents limit, and the resources/list page size. */
  maxPageSize: number;
}

/** 2025-era MCP sessions. */
export interface SessionConfig {
  /** MCP_SESSIONS=on */
  enabled: boolean;
  /** SESSION_SECRET; undefined makes a random secret per process. */
  secret: string | undefined;
  /** SESSION_MAX_AGE */
  maxAgeSeconds: number;
}

/** Meaning-based search. With neither endpoint set the server searches by keywords only. */
export interface SemanticConfig {
  /** EMBEDDINGS_URL, EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY (never logged), EMBEDDINGS_DIMENSIONS (undefined: the model's own). */
  embeddings: { url: string; model: string; apiKey: string | undefined; dimensions: number | undefined } | undefined;
  /** RERANK_URL, RERANK_MODEL, RERANK_API_KEY (never logged). */
  rerank: { url: string; model: string | undefined; apiKey: string | undefined } | undefined;
  /** VECTOR_SCAN_THREADS, or the CPUs loadConfig was told of, capped. */
  scanThreads: number;
  /** Models run in this process: EMBEDDINGS_PROVIDER=local and RERANK_PROVIDER=local (undefined: not local). */
  local?: LocalModelsConfig;
}

export interface LocalModelsConfig {
  /** EMBEDDINGS_MODEL with EMBEDDINGS_PROVIDER=local; undefined when embeddings are not local. */
  embeddingsModel: string | undefined;
  /** RERANK_MODEL with RERANK_PROVIDER=local. */
  rerankModel: string | undefined;
  /** MODELS_DIR, absolute. */
  modelsDir: string;
  /** MODELS_DOWNLOAD */
  download: boolean;
  /** MODELS_URL */
  hubUrl: string;
  /** MODEL_THREADS, or the CPUs loadConfig was told of minus one, bounded. */
  threads: number;
}

/**
 * Authentication. Static tokens and OAuth can be on together. With none of them configured
 * (`enabled` false) the server only runs on a loopback HOST, unless ALLOW_UNAUTHENTICATED=true.
 */
export interface AuthConfig {
  /** True when AUTH_TOKENS, AUTH_TOKENS_FILE, OAUTH_ISSUER or LOGIN_PROVIDER is set: /mcp then requires a bearer token. */
  enabled: boolean;
  /** AUTH_TOKENS */
  staticTokens: string[];
  /**
   * AUTH_TOKENS_FILE: read by main.ts at boot (see src/auth/token-file.ts), not here, so that loading
   * the config stays a pure function of its arguments.
   */
  tokensFile: string | undefined;
  /** Present when OAUTH_ISSUER is set. */
  oauth:
    | {
        /** OAUTH_ISSUER: expected `iss`, exactly as the authorization server writes it. */
        issuer: string;
        /** OAUTH_JWKS_URL; undefined discovers it from the issuer's metadata. */
        jwksUrl: string | undefined;
        /** OAUTH_AUDIENCE, or the resource URL (RFC 8707). */
        audience: string;
        /** OAUTH_REQUIRED_SCOPES */
        requiredScopes: string[];
      }
    | undefined;
  /** The canonical resource URL of the MCP endpoint: PUBLIC_URL + '/mcp'. */
  resource: string;
  /** ALLOW_UNAUTHENTICATED */
  allowUnauthenticated: boolean;
  /** ALLOW_HTTP_PUBLIC_URL */
  allowHttpPublicUrl: boolean;
  /** METRICS_TOKEN; undefined leaves /metrics open. */
  metricsToken: string | undefined;
  /** Present when LOGIN_PROVIDER is set. */
  login: LoginConfig | undefined;
}

/**
 * The built-in authorization server (LOGIN_PROVIDER): this server becomes the OAuth issuer clients
 * talk to (issuer = PUBLIC_URL) and delegates the sign-in itself to the team's identity provider.
 */
export type LoginConfig = LoginSettings & ({ provider: Extract<LoginProvider, 'oidc'>; /** LOGIN_OIDC_ISSUER */ oidcIssuer: string } | { provider: Extract<LoginProvider, 'github'> });

/** The settings of every LOGIN_PROVIDER (LoginConfig adds the provider's own). */
export interface LoginSettings {
  /** LOGIN_CLIENT_ID */
  clientId: string;
  /** LOGIN_CLIENT_SECRET */
  clientSecret: string;
  /** LOGIN_GITHUB_URL, no trailing slash. */
  githubUrl: string;
  /** LOGIN_GITHUB_API_URL, no trailing slash. */
  githubApiUrl: string;
  /** ALLOWED_EMAILS, lower case. */
  allowedEmails: string[];
  /** ALLOWED_EMAIL_DOMAINS, lower case, without a leading @. */
  allowedEmailDomains: string[];
  /** ALLOWED_GITHUB_ORGS, lower case. */
  allowedGithubOrgs: string[];
  /** REQUIRE_HOSTED_DOMAIN */
  requireHostedDomain: boolean;
  /** ALLOW_ANY_LOGIN */
  allowAnyLogin: boolean;
  /** AUTH_SECRET: signing and cookie keys derive from it. */
  secret: string;
  /** AUTH_DATA_DIR */
  dataDir: string;
  /** ACCESS_TOKEN_TTL */
  accessTokenTtlSeconds: number;
  /** REFRESH_TOKEN_TTL: from sign-in; rotation does not extend it. */
  refreshTokenTtlSeconds: number;
  /** REFRESH_TOKEN_GRACE: every replica must use the same value. */
  refreshGraceSeconds: number;
}
