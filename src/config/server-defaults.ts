// The schema's defaults that code built without loadConfig takes (the MCP endpoint, the socket limits, the
// drain, the tools), so that a server made by tests or benchmarks runs with production's bounds.
// Each field's variable, unit and range are in schema.ts.
import type { ToolLimits } from './config.js';
import type { Ranged } from './env-kinds.js';
import { SERVER_VARIABLES as V } from './schema.js';

export const SERVER_DEFAULTS = Object.freeze({
  maxSessions: V.MAX_SESSIONS.default,
  sessionIdleTtlSeconds: V.SESSION_IDLE_TTL.default,
  maxSessionsPerPrincipal: V.MAX_SESSIONS_PER_PRINCIPAL.default,
  drainTimeoutMs: V.DRAIN_TIMEOUT_MS.default,
  maxBodyBytes: V.MAX_BODY_BYTES.default,
  requestTimeoutMs: V.REQUEST_TIMEOUT_MS.default,
  maxConcurrentPerSession: V.MAX_CONCURRENT_PER_SESSION.default,
  maxConcurrentPerPrincipal: V.MAX_CONCURRENT_PER_PRINCIPAL.default,
  maxConcurrentPerAddress: V.MAX_CONCURRENT_PER_ADDRESS.default,
  maxListenStreamsPerPrincipal: V.MAX_LISTEN_STREAMS_PER_PRINCIPAL.default,
  maxListenStreamsPerAddress: V.MAX_LISTEN_STREAMS_PER_ADDRESS.default,
  listenIdleTtlSeconds: V.LISTEN_IDLE_TTL.default,
  writeTimeoutMs: V.WRITE_TIMEOUT_MS.default,
  sessionMaxAgeSeconds: V.SESSION_MAX_AGE.default,
});

/** What one tool call may ask for by default, and each limit's range, whole numbers inclusive. */
export const TOOL_LIMIT_DEFAULTS: Readonly<ToolLimits> = Object.freeze({
  maxQueryChars: V.MAX_QUERY_CHARS.default,
  maxTopK: V.MAX_TOP_K.default,
  maxDocumentChars: V.MAX_DOCUMENT_CHARS.default,
  maxPageSize: V.MAX_PAGE_SIZE.default,
});

const range = ({ range: { min, max } }: Ranged<unknown>): readonly [min: number, max: number] => [min, max];

export const TOOL_LIMIT_RANGES: Readonly<Record<keyof ToolLimits, readonly [min: number, max: number]>> = Object.freeze({
  maxQueryChars: range(V.MAX_QUERY_CHARS),
  maxTopK: range(V.MAX_TOP_K),
  maxDocumentChars: range(V.MAX_DOCUMENT_CHARS),
  maxPageSize: range(V.MAX_PAGE_SIZE),
});

/**
 * Longest a shutdown waits, after the drain, for a save of the chunk vector cache under way (about a
 * second at 200 MB). A platform's kill timeout must exceed DRAIN_TIMEOUT_MS plus this; a save cut
 * short keeps the previous file.
 */
export const VECTOR_SAVE_WAIT_MS = 3000;
