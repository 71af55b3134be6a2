// The index is built after the server starts listening, so /healthz answers during a long build.
// The holder is how everything that needs the index waits for it: readiness probes look, tool
// calls await.
import type { SkippedFile } from '../corpus/document.js';
import type { SearchIndex } from '../search/search-index.js';

/** What the tools serve from: the immutable index plus the files the loader did not index. */
export interface ServedCorpus {
  index: SearchIndex;
  skipped: readonly SkippedFile[];
}

export class IndexHolder {
  #current: ServedCorpus | undefined;
  #failure: Error | undefined;
  readonly #ready: Promise<ServedCorpus>;
  #resolve!: (corpus: ServedCorpus) => void;
  #reject!: (error: Error) => void;

  constructor() {
    this.#ready = new Promise<ServedCorpus>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // A failed build is reported through `failure` and main's exit; don't also crash on "unhandled".
    this.#ready.catch(() => {});
  }

  /** A holder that is ready from the start (tests, scripts). */
  static of(corpus: ServedCorpus): IndexHolder {
    const holder = new IndexHolder();
    holder.set(corpus);
    return holder;
  }

  /** The corpus if the index is built, else undefined. Never waits. */
  get current(): ServedCorpus | undefined {
    return this.#current;
  }

  /** Why the build failed, if it did. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Resolves once the index is built; rejects if the build failed. */
  wait(): Promise<ServedCorpus> {
    return this.#ready;
  }

  set(corpus: ServedCorpus): void {
    if (this.#current || this.#failure) throw new Error('IndexHolder is already settled');
    this.#current = corpus;
    this.#resolve(corpus);
  }

  fail(error: Error): void {
    if (this.#current || this.#failure) throw new Error('IndexHolder is already settled');
    this.#failure = error;
    this.#reject(error);
  }
}
