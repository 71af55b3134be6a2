// Every environment variable the server reads, once: its kind (type, range, default) and what it
// does, for the people who set it. docs/CONFIGURATION.md is generated from this file
// (`npm run docs:config`), and the code reading a value takes its default from here.
// Adding a setting is adding an entry here, in the group where an operator looks for it (its record
// decides which reader parses it: load-config.ts, auth.ts or login.ts), then using the parsed value
// there, and `npm run docs:config`.
import { LOG_LEVELS } from '../logger.js';
import { DEFAULT_CORPUS_DIR } from './early-paths.js';
import { MAX_EMBEDDING_DIMENSIONS } from '../providers/embeddings-client.js';
import { DEFAULT_SEARCH_OPTIONS, SEARCH_OPTION_RANGES } from '../search/search-options.js';
import { MAX_TOP_K } from '../search/top-k.js';
import { boolean, decimal, integer, oneOf, providerUrl, secret, text, url } from './env-kinds.js';
import type { Kind } from './env-kinds.js';

/** The sections of docs/CONFIGURATION.md, in order. */
export const GROUPS = [
  'Corpus and network',
  'Sessions',
  'Limits',
  'Tool limits',
  'Search',
  'Semantic search',
  'Snapshots and reload',
  'Git source',
  'Logging',
  'Authentication',
  'Team sign-in',
] as const;
export type Group = (typeof GROUPS)[number];

/** What each section of docs/CONFIGURATION.md is about, in a sentence. */
export const GROUP_ABOUT: Readonly<Record<Group, string>> = {
  'Corpus and network': 'What is served, and where.',
  Sessions: 'How 2025-era MCP sessions (`Mcp-Session-Id`) are kept, and how replicas share them.',
  Limits: 'What one client may hold or ask of the server at once, and how long the server waits. Why the defaults fit together: [SECURITY.md](SECURITY.md#how-the-defaults-fit-together).',
  'Tool limits': 'What one tool call may ask for. Each keeps a single answer cheap to compute and well under the token cap of a client such as Claude Code.',
  Search: 'How documents are cut into chunks and ranked by BM25. A snapshot (`INDEX_FILE`) made with other values is rebuilt, not served.',
  'Semantic search': 'Optional embeddings and rerank endpoints. With neither set the server searches by keywords only, and the settings that need one are refused.',
  'Snapshots and reload': 'Keeping the index across restarts, and rebuilding it when the corpus changes.',
  'Git source': 'Serving a git repository that stays fresh: a shallow clone of one ref in `CORPUS_DIR`, fetched every `CORPUS_GIT_POLL` seconds or on a signed push webhook. A failed fetch keeps the last good commit serving. See [OPERATIONS.md](OPERATIONS.md#git-source).',
  Logging: 'Structured logs on stdout.',
  Authentication: 'Who may call `/mcp` and `/metrics`: static tokens and tokens of your own identity provider. See [AUTHENTICATION.md](AUTHENTICATION.md).',
  'Team sign-in': 'The built-in authorization server: clients sign in with your team\'s accounts. See [AUTHENTICATION.md](AUTHENTICATION.md).',
};

/** What docs/CONFIGURATION.md says of a variable beside its kind. */
export interface VariableDoc {
  readonly group: Group;
  /** What it does, in Markdown, for the operator. Ranges and defaults are shown beside it, not in it. */
  readonly description: string;
  /** The default in words, when it is derived rather than a constant (a constant is `default`). */
  readonly shownDefault?: string;
  /** The variable without which this one has no effect, and is refused at boot so that a typo shows. */
  readonly requires?: string;
}

export type Variable<T = unknown> = Kind<T> & VariableDoc;

const variable = <K extends Kind<unknown>>(group: Group, kind: K, description: string, more: Pick<VariableDoc, 'shownDefault' | 'requires'> = {}): K & VariableDoc => ({
  ...kind,
  group,
  description,
  ...more,
});

export const LOGIN_PROVIDERS = ['oidc', 'github'] as const;
export type LoginProvider = (typeof LOGIN_PROVIDERS)[number];
/** SESSION_SECRET's shortest length: the session-id key derives from it. */
export const MIN_SESSION_SECRET_CHARS = 32;
/** AUTH_SECRET's shortest length: the sign-in's signing and cookie keys derive from it. */
export const MIN_AUTH_SECRET_CHARS = 32;
/** MAX_CONNECTIONS's default is MAX_SESSIONS plus this: room for the requests in progress beside every session's stream. */
export const CONNECTIONS_BEYOND_SESSIONS = 500;
export const EMBEDDINGS_PROVIDERS = ['http', 'local'] as const;
/** Why this model: see the description of EMBEDDINGS_MODEL. */
export const DEFAULT_LOCAL_EMBEDDINGS_MODEL = 'Xenova/bge-small-en-v1.5';
export const DEFAULT_LOCAL_RERANK_MODEL = 'Xenova/ms-marco-MiniLM-L-6-v2';
export const DEFAULT_MODELS_URL = 'https://huggingface.co';
/** A local model's threads by default: one core left to the server, and no more than a small model gains from. */
export const MAX_DEFAULT_MODEL_THREADS = 4;
/** So that on a large machine one query does not wake every core: measured gains are for 2 threads (docs/BENCHMARKS.md). */
export const MAX_DEFAULT_SCAN_THREADS = 4;

const DAY = 86_400;

/** Read together by loadConfig. */
export const SERVER_VARIABLES = {
  CORPUS_DIR: variable('Corpus and network', text(DEFAULT_CORPUS_DIR), 'Folder of documents to serve, relative to the working directory.'),
  HOST: variable('Corpus and network', text('127.0.0.1'), 'Interface to bind. The default accepts connections from this machine only; any other `HOST` needs `PUBLIC_URL`, and authentication or `ALLOW_UNAUTHENTICATED=true`.'),
  PORT: variable('Corpus and network', integer(0, 65535, 8080), 'TCP port; 0 picks a free one.'),
  PUBLIC_URL: variable('Corpus and network', url(),
    'Origin clients use to reach the server, e.g. `https://docs.example.com`. Its host name is allowed by the Host/Origin check, and the OAuth audience and `resource_metadata` derive from it, ' +
      'so a non-loopback `HOST` (e.g. `0.0.0.0`) without it is refused at boot. With authentication on, it must be https unless its host is loopback or `ALLOW_HTTP_PUBLIC_URL=true`; with `LOGIN_PROVIDER`, a bare https origin.',
    { shownDefault: '`http://HOST:PORT` on a loopback `HOST`; required on any other' }),
  METRICS_PORT: variable('Corpus and network', integer(0, 65535),
    'A second listener on `HOST` that serves only `GET /metrics` (not `PORT`; 0 picks a free one). When set, the public port does not serve `/metrics`. Unset, `/metrics` is on `PORT`, and off loopback only with `METRICS_TOKEN`. ' +
      'It needs no token unless `METRICS_TOKEN` is set, and binds `HOST` like `PORT`: off loopback, firewall it to the scraper\'s network or set `METRICS_TOKEN`. `MAX_CONNECTIONS` and `WRITE_TIMEOUT_MS` apply to it too (counted apart).'),

  MCP_SESSIONS: variable('Sessions', oneOf(['on', 'off'], { fallback: 'on', error: 'must be on or off' }),
    '`on` issues an `Mcp-Session-Id` on a 2025-era `initialize`. `off`: no sessions at all; every POST is served by a fresh server, GET and DELETE answer 405. For load balancers that tolerate no per-process state.'),
  MAX_SESSIONS: variable('Sessions', integer(1, 1_000_000, 1000), 'Sessions kept at once in this process; beyond it the least recently used session is closed.'),
  MAX_SESSIONS_PER_PRINCIPAL: variable('Sessions', integer(1, 1_000_000, 32),
    'Sessions one authenticated principal may hold (at most `MAX_SESSIONS`); beyond it that principal\'s own least recently used session is closed. Why 32: [SECURITY.md](SECURITY.md#how-the-defaults-fit-together).'),
  SESSION_IDLE_TTL: variable('Sessions', integer(1, 7 * DAY, 1800),
    'Seconds without a request after which a session is closed in this process. Harmless: the session\'s next request re-creates it from its id.'),
  SESSION_MAX_AGE: variable('Sessions', integer(60, 30 * DAY, DAY), 'A session\'s whole life in seconds from its `initialize`; then it answers 404 and the client initialises again.'),
  SESSION_SECRET: variable('Sessions', secret(),
    `At least ${MIN_SESSION_SECRET_CHARS} characters. Session ids are encrypted tokens under a key derived from it, so every process holding the same secret serves every session (restarts, deploys, replicas). ` +
      'Unset, a random secret is made at boot and sessions end with the process (a warning says so off loopback or with DATABASE_URL). Generate one with `openssl rand -hex 32`.',
    { shownDefault: 'random per process' }),
  DATABASE_URL: variable('Sessions', secret(),
    'A `postgres://` or `postgresql://` URL of a PostgreSQL every replica reaches. Session revocations (and, with `LOGIN_PROVIDER`, the sign-in records) live there, so a DELETE on one replica ends the session on all; ' +
      'the schema is created at boot. Unreachable at boot: the server refuses to start; unreachable later: requests on sessions get 503 to retry. Unset: ended sessions are remembered in this process only (until it restarts), and sign-in records go to the embedded store in `AUTH_DATA_DIR`, for one machine. Never quoted in a message (it may hold a password).'),

  DRAIN_TIMEOUT_MS: variable('Limits', integer(100, 600_000, 10_000),
    'On SIGTERM or SIGINT, the whole drain in milliseconds: at most half of it listening while requests still arrive, then requests in flight are awaited and, past it, cut off.'),
  MAX_BODY_BYTES: variable('Limits', integer(1024, 64 * 1024 * 1024, 1_048_576), 'Largest request body on `/mcp`, in bytes; larger ones get 413.'),
  REQUEST_TIMEOUT_MS: variable('Limits', integer(1000, 600_000, 30_000),
    'Milliseconds to receive a whole request, headers and body (slower clients get 408 and are disconnected; headers alone get at most 10 s), and the longest a tool call waits for the index before it is answered with an error.'),
  MAX_CONCURRENT_PER_SESSION: variable('Limits', integer(1, 1000, 16),
    'Requests one 2025-era session may have in progress (a batch counts as its members); more get 429 with `Retry-After`.'),
  MAX_CONCURRENT_PER_PRINCIPAL: variable('Limits', integer(1, 100_000, 32),
    'Requests one authenticated principal may have in progress in this process, over all its sessions and 2026-era requests together (a batch counts as its members; open GET and listen streams do not); ' +
      'more get 429 with `Retry-After`. Two sessions\' worth by default.'),
  MAX_CONCURRENT_PER_ADDRESS: variable('Limits', integer(1, 100_000, 128),
    'With authentication off, requests one client address may have in progress over both eras (the socket\'s address, IPv6 by its /64; forwarding headers are not read); more get 429. ' +
      'Four principals\' worth by default, since a hosted client sends all its users\' requests from a handful of addresses, and behind a proxy every client shares the proxy\'s.'),
  MAX_LISTEN_STREAMS_PER_PRINCIPAL: variable('Limits', integer(1, 100_000, 32),
    '2026-era `subscriptions/listen` streams one authenticated principal may hold open at once (a client holds one per connection); one more gets 429. They are not requests in progress.'),
  MAX_LISTEN_STREAMS_PER_ADDRESS: variable('Limits', integer(1, 100_000, 256), 'With authentication off, `subscriptions/listen` streams one client address may hold open at once; one more gets 429.'),
  LISTEN_IDLE_TTL: variable('Limits', integer(1, 7 * DAY, 600), 'Seconds without an event after which a listen stream is ended gracefully.'),
  MAX_CONNECTIONS: variable('Limits', integer(1, 1_000_000),
    'Open TCP connections on `PORT` (and apart on `METRICS_PORT`); one past it is closed as soon as it is accepted. The default leaves room for every session\'s GET stream and for the requests in progress beside them.',
    { shownDefault: `\`MAX_SESSIONS\` + ${CONNECTIONS_BEYOND_SESSIONS}` }),
  WRITE_TIMEOUT_MS: variable('Limits', integer(1000, 600_000, 30_000),
    'A connection whose answer bytes wait unread this many milliseconds, none of them leaving, is closed; a client that keeps reading, however slowly, is not cut.'),
  MAX_HEAP_MB: variable('Limits', integer(64, 65_536),
    'Cap on V8\'s heap in MiB, applied at launch by `npm start` (`node $(node dist/src/node-args.js) dist/src/main.js`); the index itself is held outside the heap. ' +
      'In the Docker image Node sizes the heap from the container\'s memory limit itself; set `NODE_OPTIONS=--max-old-space-size=<MiB>` there to override.',
    { shownDefault: 'a quarter of the container\'s memory limit (cgroup) or of the machine\'s memory, from 128 to 1024' }),

  MAX_QUERY_CHARS: variable('Tool limits', integer(1, 100_000, 1000), 'Longest `search_documents` query, in characters after trimming.'),
  MAX_TOP_K: variable('Tool limits', integer(1, MAX_TOP_K, 50), 'Largest `top_k` of `search_documents`.'),
  MAX_DOCUMENT_CHARS: variable('Tool limits', integer(100, 1_000_000, 100_000),
    'Largest `get_document` `max_chars`, and the cut of `resources/read`, in characters; the default is about 25,000 tokens, what a client such as Claude Code accepts for a tool result.'),
  MAX_PAGE_SIZE: variable('Tool limits', integer(1, 10_000, 100), 'Largest `list_documents` `limit`, and the `resources/list` page.'),

  // The search engine's own ranges and defaults, so a value the environment accepts is one the engine accepts.
  CHUNK_WORDS: variable('Search', integer(SEARCH_OPTION_RANGES.chunkWords.min, SEARCH_OPTION_RANGES.chunkWords.max), 'Longest chunk, in words.',
    { shownDefault: `\`${DEFAULT_SEARCH_OPTIONS.chunkWords}\`` }),
  CHUNK_OVERLAP_WORDS: variable('Search', integer(SEARCH_OPTION_RANGES.overlapWords.min, SEARCH_OPTION_RANGES.overlapWords.max),
    'Words consecutive chunks of a section share; at most half of `CHUNK_WORDS`.', { shownDefault: `\`${DEFAULT_SEARCH_OPTIONS.overlapWords}\`` }),
  BM25_K1: variable('Search', decimal(SEARCH_OPTION_RANGES.k1.min, SEARCH_OPTION_RANGES.k1.max), 'BM25 term-frequency saturation: how fast repeats of a term stop adding score.',
    { shownDefault: `\`${DEFAULT_SEARCH_OPTIONS.k1}\`` }),
  BM25_B: variable('Search', decimal(SEARCH_OPTION_RANGES.b.min, SEARCH_OPTION_RANGES.b.max), 'BM25 length normalisation, from 0 (none) to 1 (full).',
    { shownDefault: `\`${DEFAULT_SEARCH_OPTIONS.b}\`` }),

  EMBEDDINGS_URL: variable('Semantic search', providerUrl(),
    'OpenAI-compatible base URL; the server calls `POST <url>/embeddings`. Turns on semantic and hybrid search; unset, the server searches by keywords only. ' +
      'A URL with a user name, password or query string is refused: the key goes in `EMBEDDINGS_API_KEY`.'),
  EMBEDDINGS_PROVIDER: variable('Semantic search', oneOf(EMBEDDINGS_PROVIDERS, { trim: true }),
    '`local` runs the embedding model in this process, from `MODELS_DIR` (no endpoint, no key): semantic and hybrid search on, hybrid the default. Needs the model runtime, an optional dependency (`npm ci` installs it, `npm ci --omit=optional` leaves it out). ' +
      '`http` (or unset, with `EMBEDDINGS_URL`) calls the endpoint.',
    { shownDefault: '`http` when `EMBEDDINGS_URL` is set, else off' }),
  EMBEDDINGS_MODEL: variable('Semantic search', text(),
    'With `EMBEDDINGS_URL`, the model name the endpoint serves, e.g. `text-embedding-3-small` (required). With `EMBEDDINGS_PROVIDER=local`, a Hugging Face model id with ONNX weights, ' +
      `default \`${DEFAULT_LOCAL_EMBEDDINGS_MODEL}\`: a small English retrieval model (33M parameters, 384 dimensions, 133 MB) whose published SciFact nDCG@10, 0.713, is above BM25's.`),
  EMBEDDINGS_DIMENSIONS: variable('Semantic search', integer(1, MAX_EMBEDDING_DIMENSIONS),
    'Vector length, for models that can shorten theirs, e.g. 512 for `text-embedding-3-small`; shorter vectors search faster (BENCHMARKS.md).',
    { shownDefault: 'the model\'s', requires: 'EMBEDDINGS_URL' }),
  VECTOR_SCAN_THREADS: variable('Semantic search', integer(1, 16),
    'Threads one semantic or hybrid query\'s vector scan may use, the server\'s own included. The scan is bound by memory traffic, which a second core relieves: 35k chunks × 1536 dimensions in 2.1 ms instead of 3.1 (BENCHMARKS.md). ' +
      'Each extra thread costs 3–12 MiB of RSS. `1` keeps every scan on the main thread. A helper that fails or answers a scan more than 2 s late is retired with a warning in the log, and its share runs on the main thread.',
    { shownDefault: `the CPUs this process may use (a container's CPU quota counted), at most ${MAX_DEFAULT_SCAN_THREADS}`, requires: 'EMBEDDINGS_URL' }),
  EMBEDDINGS_API_KEY: variable('Semantic search', secret(), 'Sent to `EMBEDDINGS_URL` as a bearer token; never logged.', { requires: 'EMBEDDINGS_URL' }),
  RERANK_URL: variable('Semantic search', providerUrl(),
    'Cohere-compatible base URL; `rerank_results` calls `POST <url>/rerank`. Unset, `rerank_results` reorders by BM25F (and embeddings when configured). Refused with a user name, password or query string, as `EMBEDDINGS_URL`.'),
  RERANK_PROVIDER: variable('Semantic search', oneOf(EMBEDDINGS_PROVIDERS, { trim: true }),
    '`local` runs a cross-encoder for `rerank_results` in this process, from `MODELS_DIR`, as `EMBEDDINGS_PROVIDER=local` does.',
    { shownDefault: '`http` when `RERANK_URL` is set, else off' }),
  RERANK_MODEL: variable('Semantic search', text(),
    `Rerank model name; optional for single-model servers such as Text Embeddings Inference. With \`RERANK_PROVIDER=local\`, a Hugging Face cross-encoder id with ONNX weights, default \`${DEFAULT_LOCAL_RERANK_MODEL}\` (23M parameters, 91 MB).`),
  RERANK_API_KEY: variable('Semantic search', secret(), 'Sent to `RERANK_URL` as a bearer token; never logged.', { requires: 'RERANK_URL' }),
  MODELS_DIR: variable('Semantic search', text('./models'),
    'Where local models live, relative to the working directory: one folder per model id (`MODELS_DIR/Xenova/bge-small-en-v1.5/`) in the layout of its Hugging Face repository (`config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model.onnx`, `1_Pooling/config.json` where it has one). ' +
      'A model found there loads with no network; `npm run models -- fetch [id…]` fills it ahead.'),
  MODELS_DOWNLOAD: variable('Semantic search', boolean(true),
    'Download a local model missing from `MODELS_DIR` on first use. `false`: never reach the network; a missing model leaves keyword search, with the reason in each semantic search\'s note.'),
  MODELS_URL: variable('Semantic search', url(DEFAULT_MODELS_URL), 'The Hugging Face hub (or a mirror of it) local models are downloaded from.'),
  MODEL_THREADS: variable('Semantic search', integer(1, 64),
    'ONNX Runtime threads each local model may use (its own default takes every core). Fewer leave cores to the server, which answers keyword searches while the corpus is embedded.',
    { shownDefault: `the CPUs this process may use minus one, at least 1 and at most ${MAX_DEFAULT_MODEL_THREADS}` }),
  ALLOW_HTTP_PROVIDER_URL: variable('Semantic search', boolean(false),
    '`true` accepts an http `EMBEDDINGS_URL` or `RERANK_URL` on a host that is not loopback while its `*_API_KEY` is set, for a network path protected otherwise (a private network, a VPN, a TLS sidecar). ' +
      'By default the key must not cross a network in the clear.'),

  INDEX_FILE: variable('Snapshots and reload', text(),
    'Index snapshot file. At boot it is served when it matches the corpus (every file\'s path, size and text digest), the index options and this version; otherwise the index is built and the file rewritten atomically. ' +
      'A truncated, corrupt (SHA-256), foreign or mismatched file is logged with the reason and rebuilt, never served. Unset: the index is always built and nothing is written.'),
  CORPUS_WATCH: variable('Snapshots and reload', boolean(false),
    'Rebuild the index when files under `CORPUS_DIR` are added, changed, removed or renamed. SIGHUP rebuilds it either way.'),
  CORPUS_WATCH_DEBOUNCE_MS: variable('Snapshots and reload', integer(50, 60_000, 500), 'Quiet time in milliseconds after the last change before a watch rebuild starts.'),

  CORPUS_GIT_URL: variable('Git source', text(),
    'Repository to serve: `https://…`, `ssh://…`, `git@host:org/repo.git` or a local path. `CORPUS_DIR` becomes its working copy, which the server owns: it must be empty, absent or a working copy the server made. ' +
      'A URL with a password is refused: the token goes in `CORPUS_GIT_TOKEN`.'),
  CORPUS_GIT_REF: variable('Git source', text(), 'Branch or tag to serve.', { shownDefault: 'the remote\'s default branch', requires: 'CORPUS_GIT_URL' }),
  CORPUS_GIT_PATH: variable('Git source', text(), 'Folder inside the repository to serve, e.g. `docs`.', { shownDefault: 'all of it', requires: 'CORPUS_GIT_URL' }),
  CORPUS_GIT_TOKEN: variable('Git source', secret(),
    'Token for a private repository over https (a GitHub or GitLab access token), handed to git by a credential helper through the environment: never in a log, a process\'s arguments, the working copy\'s `.git/config` or a message.',
    { requires: 'CORPUS_GIT_URL' }),
  CORPUS_GIT_POLL: variable('Git source', integer(1, DAY, 60),
    'Seconds between fetches. After a failed fetch the wait doubles, up to 8 times this, and returns to it after the next success.', { requires: 'CORPUS_GIT_URL' }),
  CORPUS_GIT_WEBHOOK_SECRET: variable('Git source', secret(),
    'Turns on `POST /hooks/git`: a push webhook (GitHub, Gitea) signed with `X-Hub-Signature-256` under this secret starts a fetch at once. Unset, the route does not exist.',
    { requires: 'CORPUS_GIT_URL' }),
  CORPUS_GIT_MAX_MB: variable('Git source', integer(1, 1_048_576, 1024),
    'Largest repository checked out, in MiB of files at the commit; a commit over it is refused with its size and the last good one keeps serving.', { requires: 'CORPUS_GIT_URL' }),
  SOURCE_URL_TEMPLATE: variable('Git source', text(),
    'Gives every search hit, chunk and document a `url`, e.g. `https://github.com/acme/handbook/blob/{commit}/{path}#L{line}`: `{commit}` the commit served, `{path}` the path in the repository, `{line}` the passage\'s first line. ' +
      'A document\'s own front matter `url` wins.',
    { shownDefault: 'derived from a GitHub or GitLab `CORPUS_GIT_URL`; else none' }),

  LOG_LEVEL: variable('Logging', oneOf(LOG_LEVELS, { fallback: 'info' }), 'Least severe level written. Logs are JSON lines on stdout.'),
  LOG_QUERIES: variable('Logging', boolean(false), 'Whether search queries are written to the logs.'),
};

// Read apart from the server's variables so that their problems are listed even when others are bad.
export const AUTH_VARIABLES = {
  AUTH_TOKENS: variable('Authentication', secret(),
    'Comma-separated static bearer tokens, each at least 32 characters (`openssl rand -hex 32`). Any of them lets a client call `/mcp`.'),
  AUTH_TOKENS_FILE: variable('Authentication', text(),
    'A file with one token a line (`#` comments allowed), read once at start. Must lie outside `CORPUS_DIR` (refused at boot otherwise).'),
  OAUTH_ISSUER: variable('Authentication', url(),
    'Your identity provider\'s issuer URL, exactly as it appears in its tokens\' `iss`: the server then accepts that provider\'s JWT access tokens. https (http only for a loopback host). Not with `LOGIN_PROVIDER`.'),
  OAUTH_JWKS_URL: variable('Authentication', url(), 'Where the issuer\'s signing keys are. https (http only for a loopback host).',
    { shownDefault: 'the `jwks_uri` of the issuer\'s RFC 8414 or OpenID metadata', requires: 'OAUTH_ISSUER' }),
  OAUTH_AUDIENCE: variable('Authentication', text(), 'The `aud` tokens must carry (RFC 8707: a token for another resource is refused).',
    { shownDefault: '`PUBLIC_URL` + `/mcp`', requires: 'OAUTH_ISSUER' }),
  OAUTH_REQUIRED_SCOPES: variable('Authentication', text(), 'Scopes every OAuth token must carry, comma- or space-separated; a token without one gets 403 `insufficient_scope`.',
    { requires: 'OAUTH_ISSUER' }),
  ALLOW_UNAUTHENTICATED: variable('Authentication', boolean(false),
    '`true` serves a deliberately public server on a non-loopback `HOST` with no authentication at all. Contradicts every other setting of this group and `LOGIN_PROVIDER`.'),
  ALLOW_HTTP_PUBLIC_URL: variable('Authentication', boolean(false),
    '`true` accepts an `http://` `PUBLIC_URL` with authentication on a non-loopback `HOST`, for clients on a private network protected otherwise (a TLS-terminating sidecar, a VPN). ' +
      'By default bearer tokens must not cross a network in the clear.'),
  METRICS_TOKEN: variable('Authentication', secret(),
    'When set (at least 32 characters), `/metrics` requires `Authorization: Bearer <METRICS_TOKEN>`, and is served on `PORT` even off loopback. Must differ from every MCP token. ' +
      'Unset, `/metrics` is open, and served on `PORT` only with a loopback `HOST` (or on `METRICS_PORT`).'),
};

// LOGIN_PROVIDER and its companions, read apart for the same reason.
export const LOGIN_VARIABLES = {
  LOGIN_PROVIDER: variable('Team sign-in', oneOf(LOGIN_PROVIDERS, { trim: true }),
    'Turns on the built-in authorization server: this server becomes the OAuth issuer clients such as Claude talk to (issuer = `PUBLIC_URL`) and delegates the sign-in itself to your team\'s identity provider: ' +
      '`oidc` (Google, Entra ID, Okta, Keycloak, Auth0, …) or `github`. See [AUTHENTICATION.md](AUTHENTICATION.md).'),
  LOGIN_OIDC_ISSUER: variable('Team sign-in', url(), 'For `oidc`, required: the provider\'s issuer, e.g. `https://accounts.google.com`. https (http only for a loopback host).',
    { requires: 'LOGIN_PROVIDER' }),
  LOGIN_CLIENT_ID: variable('Team sign-in', text(), 'Required: the client id of the app you register with the provider, with callback URL `PUBLIC_URL` + `/oauth/callback`.', { requires: 'LOGIN_PROVIDER' }),
  LOGIN_CLIENT_SECRET: variable('Team sign-in', secret(), 'Required: that app\'s client secret.', { requires: 'LOGIN_PROVIDER' }),
  LOGIN_GITHUB_URL: variable('Team sign-in', url('https://github.com'), 'For `github` on GitHub Enterprise Server: its web origin. https (http only for a loopback host).', { requires: 'LOGIN_PROVIDER' }),
  LOGIN_GITHUB_API_URL: variable('Team sign-in', url('https://api.github.com'), 'For GitHub Enterprise Server: its API base URL. https (http only for a loopback host).', { requires: 'LOGIN_PROVIDER' }),
  ALLOWED_EMAILS: variable('Team sign-in', text(),
    'Comma-separated email addresses that may sign in. Only verified emails count (`email_verified`, or GitHub\'s verified addresses). ' +
      'At least one of `ALLOWED_EMAILS`, `ALLOWED_EMAIL_DOMAINS` and `ALLOWED_GITHUB_ORGS` is required, or `ALLOW_ANY_LOGIN=true`.',
    { requires: 'LOGIN_PROVIDER' }),
  ALLOWED_EMAIL_DOMAINS: variable('Team sign-in', text(),
    'Comma-separated domains whose verified addresses may sign in, e.g. `example.com`. With `oidc`, the provider is asked only at sign-in: someone it deactivates keeps refreshing for up to `REFRESH_TOKEN_TTL` (30 days); run `npm run auth -- revoke <email>` when someone leaves.',
    { requires: 'LOGIN_PROVIDER' }),
  ALLOWED_GITHUB_ORGS: variable('Team sign-in', text(), 'With `github` only: comma-separated organisations whose members may sign in.', { requires: 'LOGIN_PROVIDER' }),
  REQUIRE_HOSTED_DOMAIN: variable(
    'Team sign-in',
    boolean(false),
    'With `oidc` (Google Workspace): an address admitted through `ALLOWED_EMAIL_DOMAINS` also needs the ID token\'s `hd` claim to be one of those domains, so a personal Google account opened with a work address is refused. Needs `LOGIN_PROVIDER=oidc` and `ALLOWED_EMAIL_DOMAINS`.',
    { requires: 'LOGIN_PROVIDER' },
  ),
  ALLOW_ANY_LOGIN: variable('Team sign-in', boolean(false), '`true` admits anyone the provider signs in with a verified email.', { requires: 'LOGIN_PROVIDER' }),
  AUTH_SECRET: variable('Team sign-in', secret(),
    `Required, at least ${MIN_AUTH_SECRET_CHARS} characters (\`openssl rand -hex 32\`). Signing and cookie keys derive from it: keep it stable, or every token dies; every replica needs the same one.`,
    { requires: 'LOGIN_PROVIDER' }),
  // Not `requires`: a deployment default (the image and fly.toml set it), harmless unused.
  AUTH_DATA_DIR: variable('Team sign-in', text('./data'), 'Folder of the embedded store (`auth.sqlite`) that keeps the sign-in records, relative to the working directory; on Fly and Docker, a volume. Unused with `DATABASE_URL`.'),
  ACCESS_TOKEN_TTL: variable('Team sign-in', integer(60, DAY, 3600), 'Lifetime of an access token, in seconds.', { requires: 'LOGIN_PROVIDER' }),
  REFRESH_TOKEN_TTL: variable('Team sign-in', integer(3600, 365 * DAY, 30 * DAY),
    'Lifetime of a grant\'s refresh tokens in seconds from the sign-in; rotation does not extend it.', { requires: 'LOGIN_PROVIDER' }),
  REFRESH_TOKEN_GRACE: variable('Team sign-in', integer(1, 3600, 120),
    'Seconds a rotated refresh token keeps working after its first use. Clients such as Claude refresh in parallel and retry, and would be signed out by strictly single-use tokens; ' +
      'a rotated token presented after the window is taken as stolen and its whole grant is revoked. The same on every replica.',
    { requires: 'LOGIN_PROVIDER' }),
};

/** Every variable, by name. */
export const VARIABLES: Readonly<Record<string, Variable>> = { ...SERVER_VARIABLES, ...AUTH_VARIABLES, ...LOGIN_VARIABLES };
