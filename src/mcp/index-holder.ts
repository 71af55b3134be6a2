// The index is built after the server starts listening, so /healthz answers during a long build, and
// it may be replaced while the server runs (a reload). The holder is how everything that needs the
// index finds it: readiness probes look, tool calls await the first one, and each call reads
// `current` once, so a call that started on one generation finishes on it even if a newer one is
// swapped in meanwhile.
import type { SkippedFile } from '../corpus/document.js';
import type { SearchIndex } from '../search/search-index.js';

/** What a build produces: the immutable index plus the files the loader did not index. */
export interface CorpusContent {
  index: SearchIndex;
  skipped: readonly SkippedFile[];
  /** The git commit the documents are from, with a git source: the `{commit}` of source URLs. */
  commit?: string | undefined;
}

/** What the tools serve from: the content and its generation (1 for the first index, +1 per swap). */
export interface ServedCorpus extends CorpusContent {
  generation: number;
}

export type IndexChangeListener = (corpus: ServedCorpus) => void;

export class IndexHolder {
  #current: ServedCorpus | undefined;
  #failure: Error | undefined;
  readonly #ready: Promise<ServedCorpus>;
  #resolve!: (corpus: ServedCorpus) => void;
  #reject!: (error: Error) => void;
  readonly #listeners = new Set<IndexChangeListener>();

  constructor() {
    this.#ready = new Promise<ServedCorpus>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A failed build is reported through `failure` and main's exit; don't also crash on "unhandled".
    this.#ready.catch(() => {});
  }

  /** A holder that is ready from the start (tests, scripts). */
  static of(corpus: CorpusContent): IndexHolder {
    const holder = new IndexHolder();
    holder.set(corpus);
    return holder;
  }

  /** The newest corpus if one is built, else undefined. Never waits. */
  get current(): ServedCorpus | undefined {
    return this.#current;
  }

  /** Generation of the newest corpus; 0 before the first one. */
  get generation(): number {
    return this.#current?.generation ?? 0;
  }

  /** Why the first build failed, if it did. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Resolves once the first index is built; rejects if that build failed. */
  wait(): Promise<ServedCorpus> {
    return this.#ready;
  }

  /**
   * Serves `corpus` from now on, as the next generation. The first call makes the holder ready;
   * later ones swap: calls already running keep the corpus they read. Listeners hear of every swap
   * after the first.
   */
  set(corpus: CorpusContent): ServedCorpus {
    if (this.#failure) throw new Error('IndexHolder failed to build its first index; it cannot be set afterwards');
    const previous = this.#current;
    const served: ServedCorpus = Object.freeze({ index: corpus.index, skipped: corpus.skipped, generation: (previous?.generation ?? 0) + 1, ...(corpus.commit !== undefined ? { commit: corpus.commit } : {}) });
    this.#current = served;
    if (previous === undefined) {
      this.#resolve(served);
      return served;
    }
    for (const listener of this.#listeners) listener(served);
    return served;
  }

  /** The first build failed: waiting calls get the error. Later failures never reach the holder. */
  fail(error: Error): void {
    if (this.#current || this.#failure) throw new Error('IndexHolder is already settled');
    this.#failure = error;
    this.#reject(error);
  }

  /** Calls `listener` after each swap; returns the function that stops it. Listeners must not throw. */
  onChange(listener: IndexChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
