// Every Prometheus metric the server exposes, on a registry owned by one app instance. No global
// default registry: tests start several apps in one process, and each must count only its own work.
// Label values come from fixed sets only (route patterns, known tool names, enumerated reasons) so
// no query, path, id or token can ever become a label, and cardinality stays bounded.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { MCP_ERAS } from '../mcp/mcp-service.js';
import type { McpEra } from '../mcp/mcp-service.js';
import { TOOLS } from '../mcp/tools/create-tools.js';
import { SESSION_REFUSALS } from './durable-sessions.js';
import type { SessionRefusal } from './durable-sessions.js';

/** The tools the server offers; any other name is counted as 'unknown'. */
export const KNOWN_TOOLS: readonly string[] = TOOLS.map((tool) => tool.name);

/** ok: the tool answered; tool_error: it answered with isError:true; protocol_error: JSON-RPC error. */
export const TOOL_OUTCOMES = ['ok', 'tool_error', 'protocol_error'] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

/** Why a session ended: LRU cap, idle TTL, client DELETE, or server shutdown. */
export const SESSION_END_REASONS = ['evicted', 'expired', 'deleted', 'shutdown'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];

/** Why a request was refused by auth; anything else is counted as 'other'. */
export const AUTH_FAILURE_REASONS = [
  'missing_token',
  'invalid_token',
  'invalid_request',
  'insufficient_scope',
  'temporarily_unavailable',
  'session_principal_mismatch',
  'metrics_token',
] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** Why the server closed a connection itself: refused past MAX_CONNECTIONS, or an answer not taken within WRITE_TIMEOUT_MS. */
export const CONNECTION_DROP_REASONS = ['max_connections', 'write_timeout'] as const;
export type ConnectionDropReason = (typeof CONNECTION_DROP_REASONS)[number];

const HTTP_METHODS = new Set(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']);

/** Seconds; spans a cached search (~ms) up to a slow first call waiting for the index. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Hits per search; top_k is at most 50. */
const RESULT_COUNT_BUCKETS = [0, 1, 2, 3, 5, 10, 20, 50];

export interface IndexGaugeValues {
  documents: number;
  chunks: number;
  terms: number;
  buildSeconds: number;
}

/** A finished index build or reload, as the metrics record it. */
export interface IndexReloadValues {
  outcome: 'ok' | 'failed';
  /** Ms since the epoch. */
  finishedAt: number;
  /** Generation serving after it (0 when none ever built). */
  generation: number;
}

export interface CreateMetricsOptions {
  /** Tool names accepted as label values. Default `KNOWN_TOOLS`. */
  toolNames?: readonly string[];
  /** Register prom-client's process and Node runtime metrics (heap, GC, event loop lag, fds). Default true. */
  defaultMetrics?: boolean;
  /** Wall-clock time the process booted, in ms since the epoch. Default `Date.now()` at creation. */
  bootTimeMs?: number;
}

export interface ToolCallRecord {
  tool: string;
  outcome: ToolOutcome;
  /** The protocol era the call came in. */
  era: McpEra;
  durationSeconds: number;
  /** Hits returned, for search_documents calls that answered; omitted otherwise. */
  resultCount?: number;
  /** The call fell back to keywords because the embeddings or rerank endpoint was unavailable. */
  semanticFallback?: boolean;
}

/** The states of meaning-based search (src/semantic/semantic-service.ts), one gauge series each. */
export const SEMANTIC_STATES = ['off', 'starting', 'ready', 'degraded'] as const;

/** The metrics of one app instance: the registry to expose plus typed recorders for each event. */
export interface Metrics {
  readonly registry: Registry;
  /** HTTP request finished (or failed). `route` must be a registered pattern, never a raw path. */
  recordHttpRequest(method: string, route: string, status: number, durationSeconds: number): void;
  recordToolCall(call: ToolCallRecord): void;
  /** A request reached the MCP handler and was routed to `era`. */
  recordMcpRequest(era: McpEra): void;
  recordSessionCreated(): void;
  recordSessionEnded(reason: SessionEndReason): void;
  /** Read the live session count from its source of truth at scrape time (e.g. the cache's size). */
  observeActiveSessions(read: () => number): void;
  recordAuthFailure(reason: string): void;
  /** A request named a session this process did not hold and it was re-created, or its session id was refused. */
  recordSessionIdOutcome(outcome: SessionRefusal | 'restored'): void;
  /** The server closed a connection to protect itself (see CONNECTION_DROP_REASONS). */
  recordConnectionDropped(reason: ConnectionDropReason): void;
  /** Built-in sign-in: a person signed in, was denied by the allowlist, or lost access (revocation). */
  recordSignInEvent(event: 'signin' | 'denied' | 'revoked'): void;
  setIndexStats(stats: IndexGaugeValues): void;
  /** Read the semantic search state at scrape time. */
  observeSemanticState(read: () => (typeof SEMANTIC_STATES)[number]): void;
  /** After every index build or reload, the boot's included. */
  recordIndexReload(reload: IndexReloadValues): void;
  /** The exposition in Prometheus text format, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Maps a method to a fixed set so a client cannot mint label values with odd verbs. */
export function methodLabel(method: string): string {
  const upper = method.toUpperCase();
  return HTTP_METHODS.has(upper) ? upper : 'OTHER';
}

export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const { toolNames = KNOWN_TOOLS, defaultMetrics = true, bootTimeMs = Date.now() } = options;
  const tools = new Set(toolNames);
  const authReasons = new Set<string>(AUTH_FAILURE_REASONS);
  const registry = new Registry();
  const registers = [registry];

  const httpRequests = new Counter({
    name: 'corpus_mcp_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'corpus_mcp_http_request_duration_seconds',
    help: 'Time to produce the response headers, by route pattern, method and status. Streams (SSE) are timed to their first byte, not their end.',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const toolCalls = new Counter({
    name: 'corpus_mcp_tool_calls_total',
    help: 'MCP tool calls, by tool, outcome (ok, tool_error, protocol_error) and protocol era (legacy, modern).',
    labelNames: ['tool', 'outcome', 'era'] as const,
    registers,
  });
  const toolDuration = new Histogram({
    name: 'corpus_mcp_tool_call_duration_seconds',
    help: 'MCP tool call latency, by tool, outcome and protocol era.',
    labelNames: ['tool', 'outcome', 'era'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const mcpRequests = new Counter({
    name: 'corpus_mcp_requests_total',
    help: 'Requests that passed authentication and reached the MCP endpoint, by the protocol era they were routed to (legacy: 2025 sessions; modern: 2026-07-28).',
    labelNames: ['era'] as const,
    registers,
  });
  const searchResults = new Histogram({
    name: 'corpus_mcp_search_results',
    help: 'Results returned per search_documents call.',
    buckets: RESULT_COUNT_BUCKETS,
    registers,
  });
  let activeSource: (() => number) | undefined;
  let activeCount = 0;
  new Gauge({
    name: 'corpus_mcp_sessions_active',
    help: 'MCP sessions currently open.',
    registers,
    collect() {
      this.set(activeSource ? activeSource() : activeCount);
    },
  });
  const sessionsCreated = new Counter({
    name: 'corpus_mcp_sessions_created_total',
    help: 'MCP sessions created.',
    registers,
  });
  const sessionsEnded = new Counter({
    name: 'corpus_mcp_sessions_ended_total',
    help: 'MCP sessions ended, by reason (evicted by the cap, expired idle, deleted by the client, shutdown).',
    labelNames: ['reason'] as const,
    registers,
  });
  const authFailures = new Counter({
    name: 'corpus_mcp_auth_failures_total',
    help: 'Requests refused by authentication or authorization, by reason.',
    labelNames: ['reason'] as const,
    registers,
  });
  const sessionIds = new Counter({
    name: 'corpus_mcp_session_ids_total',
    help: 'Session ids this process did not hold: re-created from the id (restored), or refused with 404 by reason (foreign principal, malformed, invalid, expired, revoked, restore_failed).',
    labelNames: ['outcome'] as const,
    registers,
  });
  let semanticSource: (() => string) | undefined;
  new Gauge({
    name: 'corpus_mcp_semantic_state',
    help: 'Meaning-based search: 1 for the current state (off: no embeddings endpoint; starting: embedding the chunks; ready; degraded: the endpoint failed, keyword search only), 0 for the others.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const current = semanticSource?.() ?? 'off';
      for (const state of SEMANTIC_STATES) this.set({ state }, state === current ? 1 : 0);
    },
  });
  const semanticFallbacks = new Counter({
    name: 'corpus_mcp_semantic_fallbacks_total',
    help: 'Tool calls answered by keywords because the embeddings or rerank endpoint they would have used was unavailable, by tool.',
    labelNames: ['tool'] as const,
    registers,
  });
  const signInEvents = new Counter({
    name: 'corpus_mcp_sign_in_events_total',
    help: 'Built-in authorization server: sign-ins, allowlist denials and revocations (grants ended by an operator or by a refresh-token replay).',
    labelNames: ['event'] as const,
    registers,
  });
  for (const event of ['signin', 'denied', 'revoked'] as const) signInEvents.inc({ event }, 0);
  const connectionsDropped = new Counter({
    name: 'corpus_mcp_connections_dropped_total',
    help: 'Connections the server closed itself, by reason: max_connections (accepted past MAX_CONNECTIONS and closed at once), write_timeout (an answer the client did not take within WRITE_TIMEOUT_MS).',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of CONNECTION_DROP_REASONS) connectionsDropped.inc({ reason }, 0);
  const indexDocuments = new Gauge({ name: 'corpus_mcp_index_documents', help: 'Documents in the index.', registers });
  const indexChunks = new Gauge({ name: 'corpus_mcp_index_chunks', help: 'Chunks in the index.', registers });
  const indexTerms = new Gauge({ name: 'corpus_mcp_index_terms', help: 'Distinct terms in the index.', registers });
  const indexBuild = new Gauge({
    name: 'corpus_mcp_index_build_seconds',
    help: 'Seconds taken to build the search index from the loaded documents (reading the corpus not included).',
    registers,
  });
  const indexReady = new Gauge({ name: 'corpus_mcp_index_ready', help: '1 once the index is built, else 0.', registers });
  const indexGeneration = new Gauge({
    name: 'corpus_mcp_index_generation',
    help: 'Generation of the index being served: 1 after boot, +1 per successful reload, 0 before the first.',
    registers,
  });
  const indexReloads = new Counter({
    name: 'corpus_mcp_index_reloads_total',
    help: 'Index builds and reloads finished, boot included, by outcome (failed: the previous index kept serving).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const indexLastReload = new Gauge({
    name: 'corpus_mcp_index_last_reload_timestamp_seconds',
    help: 'Unix time the last index build or reload finished, whatever its outcome.',
    registers,
  });
  const indexLastReloadOk = new Gauge({
    name: 'corpus_mcp_index_last_reload_success',
    help: '1 when the last index build or reload succeeded, 0 when it failed.',
    registers,
  });
  for (const outcome of ['ok', 'failed'] as const) indexReloads.inc({ outcome }, 0);
  const boot = new Gauge({
    name: 'corpus_mcp_boot_timestamp_seconds',
    help: 'Unix time the server booted.',
    registers,
  });
  boot.set(bootTimeMs / 1000);
  indexReady.set(0);
  // Pre-create the session and era series so dashboards see 0 rather than "no data" before the first event.
  for (const reason of SESSION_END_REASONS) sessionsEnded.inc({ reason }, 0);
  for (const era of MCP_ERAS) mcpRequests.inc({ era }, 0);
  for (const outcome of ['restored', ...SESSION_REFUSALS]) sessionIds.inc({ outcome }, 0);

  if (defaultMetrics) collectDefaultMetrics({ register: registry });

  return {
    registry,
    recordHttpRequest(method, route, status, durationSeconds) {
      const labels = { route: route || 'unmatched', method: methodLabel(method), status: String(status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, durationSeconds);
    },
    recordToolCall({ tool, outcome, era, durationSeconds, resultCount, semanticFallback }) {
      const labels = { tool: tools.has(tool) ? tool : 'unknown', outcome, era };
      if (semanticFallback) semanticFallbacks.inc({ tool: labels.tool });
      toolCalls.inc(labels);
      toolDuration.observe(labels, durationSeconds);
      if (resultCount !== undefined) searchResults.observe(resultCount);
    },
    recordMcpRequest(era) {
      mcpRequests.inc({ era });
    },
    recordSessionCreated() {
      activeCount += 1;
      sessionsCreated.inc();
    },
    recordSessionEnded(reason) {
      activeCount = Math.max(0, activeCount - 1);
      sessionsEnded.inc({ reason });
    },
    observeActiveSessions(read) {
      activeSource = read;
    },
    recordSignInEvent(event) {
      signInEvents.inc({ event });
    },
    recordConnectionDropped(reason) {
      connectionsDropped.inc({ reason });
    },
    recordAuthFailure(reason) {
      authFailures.inc({ reason: authReasons.has(reason) ? reason : 'other' });
    },
    recordSessionIdOutcome(outcome) {
      sessionIds.inc({ outcome });
    },
    observeSemanticState(read) {
      semanticSource = read;
    },
    setIndexStats(stats) {
      indexDocuments.set(stats.documents);
      indexChunks.set(stats.chunks);
      indexTerms.set(stats.terms);
      indexBuild.set(stats.buildSeconds);
      indexReady.set(1);
    },
    recordIndexReload({ outcome, finishedAt, generation }) {
      indexReloads.inc({ outcome });
      indexLastReload.set(finishedAt / 1000);
      indexLastReloadOk.set(outcome === 'ok' ? 1 : 0);
      indexGeneration.set(generation);
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
