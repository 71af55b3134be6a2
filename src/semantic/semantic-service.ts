// Meaning-based search beside BM25, when an embeddings endpoint is configured: embeds every chunk of
// the served index (reusing vectors cached by passage hash), embeds queries, and calls the rerank
// endpoint. It never makes a tool call fail: while the chunks are being embedded, or when the
// endpoint is down, it reports that it cannot help and why, the tools answer by keywords with a
// note, and a background timer keeps retrying the chunk embedding until it succeeds.
import type { Logger } from '../logger.js';
import type { EmbeddingsClient } from '../providers/embeddings-client.js';
import { CodedError } from '../coded-error.js';
import { ProviderError } from '../providers/provider-error.js';
import type { RerankClient } from '../providers/rerank-client.js';
import type { SearchIndex } from '../search/search-index.js';
import { VectorCache } from '../search/vector-cache.js';
import { VectorIndex, type VectorPrecision } from '../search/vector-index.js';

/** Where meaning-based search stands. */
export type SemanticState =
  /** No embeddings endpoint configured: keyword search only, by choice. */
  | { state: 'off' }
  /** Waiting for an index, or embedding its chunks; keyword search meanwhile. */
  | { state: 'starting'; reason: string; progress?: { embedded: number; total: number } }
  | { state: 'ready'; model: string; dimensions: number; chunks: number }
  /** The endpoint failed; keyword search until a background retry succeeds. */
  | { state: 'degraded'; reason: string; code: string; nextRetryMs: number };

/** Every `SemanticState['state']`, in the order they are reported (one metrics gauge series each). */
export const SEMANTIC_STATES = ['off', 'starting', 'ready', 'degraded'] as const satisfies readonly SemanticState['state'][];
// `satisfies` refuses a name that is not a state; this refuses a state left out of the list.
const _everyStateListed: [Exclude<SemanticState['state'], (typeof SEMANTIC_STATES)[number]>] extends [never] ? true : never = true;

/** Why a query could not use embeddings; the tools put `reason` in their note. */
export interface SemanticUnavailable {
  ok: false;
  reason: string;
}

export interface SemanticServiceOptions {
  embeddings?: EmbeddingsClient;
  rerank?: RerankClient;
  logger: Logger;
  /**
   * How long a query's embedding may take before the tool answers by keywords, a wait a `Retry-After`
   * asks for included. Default 5000 ms.
   */
  queryTimeoutMs?: number;
  /** First wait before re-embedding after a failure; doubled each time up to maxRetryDelayMs. Default 5000 ms. */
  retryDelayMs?: number;
  /** Default 300000 ms (5 minutes). */
  maxRetryDelayMs?: number;
  /** Called on every state change (metrics). */
  onState?: (state: SemanticState) => void;
  /** How the vector scan stores vectors (see VectorIndex). Default 'int8': a quarter of the scan's memory traffic, with exact float32 rescoring of its candidates. */
  precision?: VectorPrecision;
  /** Threads one vector scan may use (see VectorIndex.build). Default 1. */
  scanThreads?: number;
}

/** Where the chunk-vector cache is kept between runs (beside the index snapshot). */
export interface VectorCacheStore {
  /** The saved cache, or undefined when there is none usable. */
  load(): VectorCache | undefined;
  /** Replaces the saved cache without blocking the event loop; may reject (the service logs it and serves on). */
  save(cache: VectorCache): Promise<void>;
}

/** What the service reports about one chunk-embedding pass. */
export interface EmbedPassStats {
  chunks: number;
  embedded: number;
  reused: number;
  seconds: number;
}

/** Attempts after the first a query embedding may make, each only when a Retry-After asks and fits its budget. */
const QUERY_RETRIES = 2;

export class SemanticService {
  readonly #embeddings: EmbeddingsClient | undefined;
  readonly #rerank: RerankClient | undefined;
  readonly #logger: Logger;
  readonly #queryTimeoutMs: number;
  readonly #retryDelayMs: number;
  readonly #maxRetryDelayMs: number;
  readonly #onState: ((state: SemanticState) => void) | undefined;
  readonly #precision: VectorPrecision;
  readonly #scanThreads: number;
  #state: SemanticState;
  #index: SearchIndex | undefined;
  #vectors: VectorIndex | undefined;
  #cache: VectorCache | undefined;
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  #pass: Promise<void> = Promise.resolve();
  /** The latest save of the cache file; never rejects. */
  #saving: Promise<void> = Promise.resolve();
  /** The cache holds vectors the saved file does not (a pass overtaken by a reload, or a failed save). */
  #unsaved = false;
  #closed = false;
  #store: VectorCacheStore | undefined;
  /** The stats of the last successful pass, for tests and logs. */
  lastPass: EmbedPassStats | undefined;

  constructor(options: SemanticServiceOptions) {
    this.#embeddings = options.embeddings;
    this.#rerank = options.rerank;
    this.#logger = options.logger;
    this.#queryTimeoutMs = options.queryTimeoutMs ?? 5000;
    this.#retryDelayMs = options.retryDelayMs ?? 5000;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 300_000;
    this.#onState = options.onState;
    this.#precision = options.precision ?? 'int8';
    this.#scanThreads = options.scanThreads ?? 1;
    this.#state = this.#embeddings === undefined ? { state: 'off' } : { state: 'starting', reason: 'waiting for the index to be built' };
    this.#onState?.(this.#state);
  }

  /** True when an embeddings endpoint is configured (whether or not it currently answers). */
  get enabled(): boolean {
    return this.#embeddings !== undefined;
  }

  get state(): SemanticState {
    return this.#state;
  }

  /** The rerank model when a rerank endpoint is configured. */
  get rerankConfigured(): boolean {
    return this.#rerank !== undefined;
  }

  /** The vectors of `index`'s chunks, or undefined while they are not (yet) available for that index. */
  vectorsFor(index: SearchIndex): VectorIndex | undefined {
    return this.#index === index ? this.#vectors : undefined;
  }

  /** The cache of chunk vectors to keep in a snapshot, or undefined when there is none yet. */
  get cache(): VectorCache | undefined {
    return this.#cache;
  }

  /** Seeds the cache (from a snapshot) before the first `embedInBackground`; vectors of another model are ignored at use. */
  seedCache(cache: VectorCache): void {
    this.#cache = cache;
  }

  /**
   * Keeps the cache in `store`: seeds it from there now, and saves it after every pass that changed
   * it, so the next boot or reload embeds only new or changed chunks.
   */
  useCacheStore(store: VectorCacheStore): void {
    this.#store = store;
    const saved = store.load();
    if (saved !== undefined) {
      this.#cache = saved;
      this.#logger.info({ vectors: saved.size, model: saved.model }, 'chunk vector cache loaded');
    }
  }

  /**
   * Serves `index` from now on and embeds its chunks in the background (only those not in the cache) and
   * resolves when that pass ends, in success or in degraded mode. Never rejects.
   */
  embedInBackground(index: SearchIndex): Promise<void> {
    if (this.#embeddings === undefined) return Promise.resolve();
    this.#index = index;
    return this.#startPass(index, `embedding ${index.stats.chunks} chunks`);
  }

  /** Drops the served vectors and any pending retry, and queues a fresh pass over `index`. */
  #startPass(index: SearchIndex, reason: string): Promise<void> {
    this.#replaceVectors(undefined);
    this.#failures = 0;
    clearTimeout(this.#timer);
    this.#setState({ state: 'starting', reason });
    this.#pass = this.#pass.then(() => this.#embedIndex(index));
    return this.#pass;
  }

  /**
   * The query's unit vector, to search chunk vectors of `dimensions` numbers, or why there is none
   * (embeddings off, not ready, the endpoint failed, or its answer cannot be searched with).
   */
  async embedQuery(query: string, dimensions: number): Promise<{ ok: true; vector: Float32Array } | SemanticUnavailable> {
    if (this.#embeddings === undefined) return { ok: false, reason: 'no embeddings endpoint is configured (EMBEDDINGS_URL)' };
    if (this.#state.state !== 'ready') return { ok: false, reason: this.unavailableReason() };
    try {
      // A user waits: no guessed backoff, but a Retry-After (a short 429) is honoured when the wait and
      // the next attempt fit in the query's budget; otherwise the tool answers by keywords at once.
      const budget = { timeoutMs: this.#queryTimeoutMs, budgetMs: this.#queryTimeoutMs, maxRetries: QUERY_RETRIES, retryOnlyWhenTold: true, purpose: 'query' as const };
      const [vector] = (await this.#embeddings.embed([query], budget)) as [Float32Array];
      if (vector.length !== dimensions) {
        this.#embedAgain(dimensions, vector.length);
        return {
          ok: false,
          reason:
            `the embeddings endpoint now answers with vectors of ${vector.length} numbers where the chunk vectors have ${dimensions} ` +
            '(another model behind EMBEDDINGS_MODEL?); the chunks are being embedded again',
        };
      }
      if (vector.every((x) => x === 0)) {
        return { ok: false, reason: 'the embeddings endpoint answered this query with an all-zero vector, which has no direction to search by' };
      }
      return { ok: true, vector };
    } catch (error) {
      const reason = describe(error);
      this.#logger.warn({ code: codeOf(error), reason }, 'query embedding failed; answering by keywords');
      return { ok: false, reason: `the embeddings endpoint failed for this query (${reason})` };
    }
  }

  /** Scores from the rerank endpoint, one per passage in order, or why there are none. */
  async rerank(query: string, passages: readonly string[]): Promise<{ ok: true; scores: number[] } | SemanticUnavailable> {
    if (this.#rerank === undefined) return { ok: false, reason: 'no rerank endpoint is configured (RERANK_URL)' };
    try {
      return { ok: true, scores: await this.#rerank.rerank(query, passages) };
    } catch (error) {
      const reason = describe(error);
      this.#logger.warn({ code: codeOf(error), reason, model: this.#rerank.model }, 'rerank endpoint failed; reranking locally');
      return { ok: false, reason: this.#rerank.local === true ? `the local rerank model failed: ${reason}` : `the rerank endpoint failed (${reason})` };
    }
  }

  /** Resolves when no save of the cache file is under way (a shutdown waits for it: a save cut short leaves the old file and a temporary one). */
  whenSaved(): Promise<void> {
    return this.#saving;
  }

  /**
   * Stops background retries and the vector scan's threads, and ends a local model's threads: resolves
   * once they are done with the batch they run (the process must not exit under them).
   */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#replaceVectors(undefined);
    return Promise.all([this.#embeddings?.close?.(), this.#rerank?.close?.()]).then(() => undefined);
  }

  /**
   * The endpoint's vectors no longer have the size of the served ones (a model swapped behind the same
   * name): drop them and the cache, and embed every chunk again. Once per change, however many
   * queries notice it.
   */
  #embedAgain(stored: number, answered: number): void {
    const index = this.#index;
    if (index === undefined || this.#closed || this.#vectors?.dimensions !== stored) return;
    this.#logger.warn({ model: this.#embeddings?.model, stored, answered }, 'the embeddings endpoint answers with vectors of another size than the chunk vectors; embedding every chunk again');
    this.#cache = undefined;
    void this.#startPass(index, `embedding ${index.stats.chunks} chunks again: the endpoint's vectors changed size from ${stored} to ${answered}`);
  }

  /** A replaced index's scan threads stop; a query still holding it scans on the calling thread. */
  #replaceVectors(vectors: VectorIndex | undefined): void {
    this.#vectors?.close();
    this.#vectors = vectors;
  }

  /** Why semantic search cannot answer right now, in words for a tool note. */
  unavailableReason(): string {
    const s = this.#state;
    if (s.state === 'ready') return 'the chunk vectors of the current index are still being computed';
    if (s.state === 'starting') return `semantic search is not ready yet: ${s.reason}`;
    if (s.state === 'degraded') return `semantic search is unavailable: ${s.reason}`;
    return 'semantic search is off';
  }

  async #embedIndex(index: SearchIndex): Promise<void> {
    const embeddings = this.#embeddings as EmbeddingsClient;
    if (this.#closed || this.#index !== index) return;
    const started = performance.now();
    const total = index.stats.chunks;
    const passages = Array.from({ length: total }, (_, i) => index.passage(i));
    try {
      // The first answer tells the dimension when it is not configured; a cache of another model or size starts empty.
      let cache = this.#cache;
      const modelKey = `${embeddings.model}@${embeddings.requestedDimensions ?? 'native'}`;
      if (cache !== undefined && cache.model !== modelKey) cache = undefined;
      const keys = passages.map((p) => (cache ?? new VectorCache(modelKey, 1)).key(p));
      let missing: number[];
      let fresh: Float32Array[];
      for (;;) {
        missing = [];
        for (let i = 0; i < total; i += 1) if (cache?.get(keys[i] as string) === undefined) missing.push(i);
        // Progress is read at scrape time (/readyz, /metrics), not a change of state.
        const progress = (embedded: number) => {
          if (this.#index === index && this.#state.state === 'starting') this.#state = { ...this.#state, progress: { embedded, total: missing.length } };
        };
        progress(0);
        fresh = await embeddings.embed(
          missing.map((i) => passages[i] as string),
          { onProgress: progress },
        );
        const answered = fresh[0]?.length;
        if (cache === undefined || answered === undefined || answered === cache.dimensions) break;
        // Another model behind the same name: the cached vectors cannot be ranked beside the new ones.
        this.#logger.warn({ model: embeddings.model, stored: cache.dimensions, answered }, 'the embeddings endpoint answers with vectors of another size than the cached ones; embedding every chunk again');
        cache = undefined;
      }
      const dimensions = fresh[0]?.length ?? cache?.dimensions;
      if (dimensions === undefined) throw new ProviderError('bad_response', 'the embeddings endpoint returned no vector to learn the dimension from');
      const next = cache ?? new VectorCache(modelKey, dimensions);
      missing.forEach((chunk, i) => next.set(keys[chunk] as string, fresh[i] as Float32Array));
      if (this.#index !== index || this.#closed) {
        // A newer index waits for this pass: keep what it embedded, so that pass reuses every unchanged
        // chunk, and remember that the file lacks it.
        this.#cache = next;
        if (missing.length > 0) this.#unsaved = true;
        return;
      }
      const vectors = VectorIndex.build(
        dimensions,
        keys.map((key) => next.get(key)),
        {
          precision: this.#precision,
          threads: this.#scanThreads,
          onThreadRetired: (reason) => this.#logger.warn({ reason }, 'vector scan thread retired; its share of each scan runs on the main thread'),
        },
      );
      // The cache keeps views of the index's own rows, not the vectors it was built from: one copy of
      // every vector in memory (217 MB at 35k chunks x 1536 numbers), not two.
      const kept = new VectorCache(modelKey, dimensions);
      keys.forEach((key, i) => {
        const row = vectors.row(i);
        if (row !== undefined) kept.set(key, row);
      });
      const changed = this.#unsaved || missing.length > 0 || kept.size !== (cache?.size ?? 0) || cache === undefined;
      this.#cache = kept;
      this.#replaceVectors(vectors);
      this.#failures = 0;
      this.lastPass = { chunks: total, embedded: missing.length, reused: total - missing.length, seconds: (performance.now() - started) / 1000 };
      this.#setState({ state: 'ready', model: embeddings.model, dimensions, chunks: total });
      this.#logger.info({ model: embeddings.model, dimensions, scan_threads: this.#scanThreads, ...this.lastPass }, 'chunk vectors ready; semantic and hybrid search on');
      if (changed && this.#store !== undefined) {
        const saveStarted = performance.now();
        this.#unsaved = false;
        this.#saving = this.#store.save(kept).then(
          () => this.#logger.info({ vectors: kept.size, seconds: (performance.now() - saveStarted) / 1000 }, 'chunk vector cache saved'),
          (error: unknown) => {
            this.#unsaved = true;
            this.#logger.warn({ reason: describe(error) }, 'chunk vector cache not saved; the next boot embeds every chunk again');
          },
        );
        await this.#saving;
      }
    } catch (error) {
      if (this.#index !== index) return;
      this.#failures += 1;
      const delay = Math.min(this.#retryDelayMs * 2 ** (this.#failures - 1), this.#maxRetryDelayMs);
      const reason = describe(error);
      this.#setState({ state: 'degraded', reason, code: codeOf(error), nextRetryMs: delay });
      this.#logger.error({ model: embeddings.model, code: codeOf(error), reason, retry_in_ms: delay }, 'embedding the chunks failed; serving keyword search only');
      if (!this.#closed) {
        this.#timer = setTimeout(() => {
          this.#pass = this.#pass.then(() => this.#embedIndex(index));
        }, delay);
        this.#timer.unref();
      }
    }
  }

  #setState(state: SemanticState): void {
    this.#state = state;
    this.#onState?.(state);
  }
}

function codeOf(error: unknown): string {
  return error instanceof CodedError ? (error.code as string) : 'internal';
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
