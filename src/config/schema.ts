// The environment variables of the server itself, as zod types.
import { z } from 'zod';
import { MAX_EMBEDDING_DIMENSIONS } from '../providers/embeddings-client.js';
import { SEARCH_OPTION_RANGES } from '../search/search-options.js';
import { TOOL_LIMIT_RANGES } from '../mcp/tools/tool-limits.js';
import { LOG_LEVELS } from './config.js';
import { blankToUndefined, boolean, decimal, integer, providerUrl, text, url } from './env-kinds.js';

export const envSchema = z.object({
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
