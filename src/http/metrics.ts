// Every Prometheus metric the server exposes, on a registry owned by one app instance. No global
// default registry: tests start several apps in one process, and each must count only its own work.
// Label values come from fixed sets only (route patterns, known tool names, enumerated reasons) so
// no query, path, id or token can ever become a label, and cardinality stays bounded.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LabelValues } from 'prom-client';
import { MCP_ERAS } from '../mcp/mcp-service.js';
import type { McpEra, ToolCallOutcome } from '../mcp/mcp-service.js';
import { SEMANTIC_STATES } from '../semantic/semantic-service.js';
import type { SemanticState } from '../semantic/semantic-service.js';
import { AUTH_ERROR_CODES } from '../auth/auth-error.js';
import { RELOAD_OUTCOMES } from '../index-service/index-service.js';
import type { ReloadOutcome } from '../index-service/index-service.js';
import { SIGN_IN_EVENTS } from '../auth/server/protocol.js';
import type { SignInEvent } from '../auth/server/protocol.js';
import { SESSION_REFUSALS } from '../mcp/sessions/durable-sessions.js';
import type { SessionRefusal } from '../mcp/sessions/durable-sessions.js';
import { SESSION_END_REASONS } from '../mcp/sessions/session-registry.js';
import type { SessionEndReason } from '../mcp/sessions/session-registry.js';
import { progressRatio } from '../index-service/build-progress.js';
import type { BuildProgress } from '../index-service/build-progress.js';
import { GIT_ERROR_CODES } from '../git-source/git-command.js';
import type { GitSourceStatus } from '../git-source/git-source.js';

/** Why a request was refused by auth; anything else is counted as 'other'. */
export const AUTH_FAILURE_REASONS = [...AUTH_ERROR_CODES, 'session_principal_mismatch', 'metrics_token'] as const;
export type AuthFailureReason = (typeof AUTH_FAILURE_REASONS)[number];

/** Why the server closed a connection itself: refused past MAX_CONNECTIONS, or an answer not taken within WRITE_TIMEOUT_MS. */
export const CONNECTION_DROP_REASONS = ['max_connections', 'write_timeout'] as const;
export type ConnectionDropReason = (typeof CONNECTION_DROP_REASONS)[number];

const HTTP_METHODS = new Set(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']);

/** Seconds; spans a cached search (~ms) up to a slow first call waiting for the index. */
const LATENCY_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Hits per search, up to MAX_TOP_K's default; a server configured for more counts those past it in +Inf. */
const RESULT_COUNT_BUCKETS = [0, 1, 2, 3, 5, 10, 20, 50];

export interface IndexGaugeValues {
  documents: number;
  chunks: number;
  terms: number;
  buildSeconds: number;
}

/** A finished index build or reload, as the metrics record it. */
export interface IndexReloadValues {
  outcome: ReloadOutcome;
  /** Ms since the epoch. */
  finishedAt: number;
  /** Generation serving after it (0 when none ever built). */
  generation: number;
}

export interface CreateMetricsOptions {
  /** Register prom-client's process and Node runtime metrics (heap, GC, event loop lag, fds). Default true. */
  defaultMetrics?: boolean;
  /** Wall-clock time the process booted, in ms since the epoch. Default `Date.now()` at creation. */
  bootTimeMs?: number;
}

export interface ToolCallRecord {
  tool: string;
  outcome: ToolCallOutcome;
  /** The protocol era the call came in. */
  era: McpEra;
  durationSeconds: number;
  /** Hits returned, for search_documents calls that answered; omitted otherwise. */
  resultCount?: number;
  /** The call fell back to keywords because the embeddings or rerank endpoint was unavailable. */
  semanticFallback?: boolean;
}


/** The metrics of one app instance: the registry to expose plus typed recorders for each event. */
export interface Metrics {
  readonly registry: Registry;
  /** HTTP request finished (or failed). `route` must be a registered pattern, never a raw path. */
  recordHttpRequest(method: string, route: string, status: number, durationSeconds: number): void;
  /** The tools the server offers (its service's table): a call to any other name is labelled 'unknown'. Default none. */
  knowTools(names: Iterable<string>): void;
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
  recordSignInEvent(event: SignInEvent): void;
  setIndexStats(stats: IndexGaugeValues): void;
  /** Read the semantic search state at scrape time. */
  observeSemanticState(read: () => SemanticState['state']): void;
  /** Read how far the chunk embedding under way has got (undefined when none runs) at scrape time. */
  observeSemanticProgress(read: () => { embedded: number; total: number } | undefined): void;
  /** After every index build or reload, the boot's included. */
  recordIndexReload(reload: IndexReloadValues): void;
  /** Read the progress of the index build or reload under way (undefined when none) at scrape time. */
  observeIndexBuild(read: () => BuildProgress | undefined): void;
  /** The git source's served commit, last fetch and current error. */
  observeGitSource(read: () => GitSourceStatus): void;
  /** The exposition in Prometheus text format, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Maps a method to a fixed set so a client cannot mint label values with odd verbs. */
export function methodLabel(method: string): string {
  const upper = method.toUpperCase();
  return HTTP_METHODS.has(upper) ? upper : 'OTHER';
}

/**
 * Declares metric families on one registry, one call per family: its name, help text and label names,
 * and what belongs to that family alone (buckets, a read at scrape time, series that start at 0).
 */
function metricDeclarations(registry: Registry) {
  const registers = [registry];
  return {
    /**
     * `startAtZero`: values of its first label whose series exist at 0 from the start, so dashboards see
     * 0 rather than "no data" before the first event (only counters with one label use it).
     */
    counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], startAtZero: readonly string[] = []): Counter<L> {
      const counter = new Counter<L>({ name, help, labelNames, registers });
      for (const value of startAtZero) counter.inc({ [labelNames[0]!]: value } as LabelValues<L>, 0);
      return counter;
    },
    /** `read`: sets the gauge's value at scrape time from its source of truth. */
    gauge<L extends string = never>(name: string, help: string, labelNames: readonly L[] = [], read?: (gauge: Gauge<L>) => void): Gauge<L> {
      const collect = read && function collect(this: Gauge<L>) { read(this); };
      return new Gauge<L>({ name, help, labelNames, registers, collect });
    },
    histogram<L extends string = never>(name: string, help: string, labelNames: readonly L[], buckets: readonly number[]): Histogram<L> {
      return new Histogram<L>({ name, help, labelNames, buckets: [...buckets], registers });
    },
  };
}

export function createMetrics(options: CreateMetricsOptions = {}): Metrics {
  const { defaultMetrics = true, bootTimeMs = Date.now() } = options;
  let tools = new Set<string>();
  const authReasons = new Set<string>(AUTH_FAILURE_REASONS);
  const registry = new Registry();
  const { counter, gauge, histogram } = metricDeclarations(registry);
  let activeSource: (() => number) | undefined;
  let activeCount = 0;
  let semanticSource: (() => string) | undefined;
  let semanticProgress: (() => { embedded: number; total: number } | undefined) | undefined;
  let buildSource: (() => BuildProgress | undefined) | undefined;
  let gitSource: (() => GitSourceStatus) | undefined;

  const httpLabels = ['route', 'method', 'status'] as const;
  const httpRequests = counter('corpus_mcp_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', httpLabels);
  const httpDuration = histogram('corpus_mcp_http_request_duration_seconds', 'Time to produce the response headers, by route pattern, method and status. Streams (SSE) are timed to their first byte, not their end.', httpLabels, LATENCY_BUCKETS);
  const toolLabels = ['tool', 'outcome', 'era'] as const;
  const toolCalls = counter('corpus_mcp_tool_calls_total', 'MCP tool calls, by tool, outcome (ok, tool_error, protocol_error) and protocol era (legacy, modern).', toolLabels);
  const toolDuration = histogram('corpus_mcp_tool_call_duration_seconds', 'MCP tool call latency, by tool, outcome and protocol era.', toolLabels, LATENCY_BUCKETS);
  const mcpRequests = counter('corpus_mcp_requests_total', 'Requests that passed authentication and reached the MCP endpoint, by the protocol era they were routed to (legacy: 2025 sessions; modern: 2026-07-28).', ['era'], MCP_ERAS);
  const searchResults = histogram('corpus_mcp_search_results', 'Results returned per search_documents call.', [], RESULT_COUNT_BUCKETS);
  gauge('corpus_mcp_sessions_active', 'MCP sessions currently open.', [], (active) => active.set(activeSource ? activeSource() : activeCount));
  const sessionsCreated = counter('corpus_mcp_sessions_created_total', 'MCP sessions created.');
  const sessionsEnded = counter('corpus_mcp_sessions_ended_total', 'MCP sessions ended, by reason (evicted by the cap, expired idle, deleted by the client, shutdown).', ['reason'], SESSION_END_REASONS);
  const authFailures = counter('corpus_mcp_auth_failures_total', 'Requests refused by authentication or authorization, by reason.', ['reason']);
  const sessionIds = counter('corpus_mcp_session_ids_total', 'Session ids this process did not hold: re-created from the id (restored), or refused with 404 by reason (foreign principal, malformed, invalid, expired, revoked, restore_failed).', ['outcome'], ['restored', ...SESSION_REFUSALS]);
  gauge('corpus_mcp_semantic_state', 'Meaning-based search: 1 for the current state (off: no embeddings endpoint; starting: embedding the chunks; ready; degraded: the endpoint failed, keyword search only), 0 for the others.', ['state'], (states) => {
    const current = semanticSource?.() ?? 'off';
    for (const state of SEMANTIC_STATES) states.set({ state }, state === current ? 1 : 0);
  });
  gauge('corpus_mcp_semantic_embedded_chunks', 'Chunks embedded so far by the chunk embedding running now (those found in the vector cache not counted); 0 when none runs.', [], (embedded) => {
    embedded.reset();
    const current = semanticProgress?.();
    if (current !== undefined) embedded.set(current.embedded);
  });
  gauge('corpus_mcp_semantic_chunks_to_embed', 'Chunks the chunk embedding running now has to embed (those not in the vector cache); 0 when none runs.', [], (total) => {
    total.reset();
    const current = semanticProgress?.();
    if (current !== undefined) total.set(current.total);
  });
  const semanticFallbacks = counter('corpus_mcp_semantic_fallbacks_total', 'Tool calls answered by keywords because the embeddings or rerank endpoint they would have used was unavailable, by tool.', ['tool']);
  const signInEvents = counter('corpus_mcp_sign_in_events_total', 'Built-in authorization server: sign-ins, allowlist denials and revocations (grants ended by an operator or by a refresh-token replay).', ['event'], SIGN_IN_EVENTS);
  const connectionsDropped = counter('corpus_mcp_connections_dropped_total', 'Connections the server closed itself, by reason: max_connections (accepted past MAX_CONNECTIONS and closed at once), write_timeout (an answer the client did not take within WRITE_TIMEOUT_MS).', ['reason'], CONNECTION_DROP_REASONS);
  const indexDocuments = gauge('corpus_mcp_index_documents', 'Documents in the index.');
  const indexChunks = gauge('corpus_mcp_index_chunks', 'Chunks in the index.');
  const indexTerms = gauge('corpus_mcp_index_terms', 'Distinct terms in the index.');
  const indexBuild = gauge('corpus_mcp_index_build_seconds', 'Seconds taken to build the search index from the loaded documents (reading the corpus not included).');
  const indexReady = gauge('corpus_mcp_index_ready', '1 once the index is built, else 0.');
  const indexGeneration = gauge('corpus_mcp_index_generation', 'Generation of the index being served: 1 after boot, +1 per successful reload, 0 before the first.');
  const indexReloads = counter('corpus_mcp_index_reloads_total', 'Index builds and reloads finished, boot included, by outcome (failed: the previous index kept serving).', ['outcome'], RELOAD_OUTCOMES);
  const indexLastReload = gauge('corpus_mcp_index_last_reload_timestamp_seconds', 'Unix time the last index build or reload finished, whatever its outcome.');
  const indexLastReloadOk = gauge('corpus_mcp_index_last_reload_success', '1 when the last index build or reload succeeded, 0 when it failed.');
  gauge('corpus_mcp_index_build_progress', 'Share done (0 to 1) of the phase under way of the index build or reload running now, labelled by that phase (read: files, index: documents; other phases are not counted and stay 0); no series when none runs.', ['phase'], (progress) => {
    progress.reset();
    const current = buildSource?.();
    if (current !== undefined) progress.set({ phase: current.phase }, progressRatio(current));
  });
  gauge('corpus_mcp_git_commit_info', 'With a git source: 1, labelled by the commit whose index is served; no series before the first.', ['commit'], (info) => {
    info.reset();
    const commit = gitSource?.().commit;
    if (commit !== undefined) info.set({ commit }, 1);
  });
  gauge('corpus_mcp_git_fetched_timestamp_seconds', 'With a git source: Unix time of the last successful fetch; no series before the first.', [], (fetched) => {
    fetched.reset();
    const at = gitSource?.().fetchedAt;
    if (at !== undefined) fetched.set(at / 1000);
  });
  gauge('corpus_mcp_git_fetch_error', 'With a git source: 1 while the last fetch (or the build of its commit) failed, labelled by its code; the last good commit keeps serving.', ['code'], (failing) => {
    failing.reset();
    const error = gitSource?.().error;
    if (error !== undefined) failing.set({ code: (GIT_ERROR_CODES as readonly string[]).includes(error.code) ? error.code : 'build_failed' }, 1);
  });
  gauge('corpus_mcp_boot_timestamp_seconds', 'Unix time the server booted.').set(bootTimeMs / 1000);
  indexReady.set(0);

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
    knowTools(names) {
      tools = new Set(names);
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
    observeSemanticProgress(read) {
      semanticProgress = read;
    },
    observeIndexBuild(read) {
      buildSource = read;
    },
    observeGitSource(read) {
      gitSource = read;
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
