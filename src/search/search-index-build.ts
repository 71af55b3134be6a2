// A build of a `SearchIndex`: the documents sorted and checked, their batches tokenized (here, or by
// the caller in worker threads: tokenize-batch.ts) and merged in document order (index-assembler.ts).
import { compareSources, type Document } from '../corpus/document.js';
import { IndexAssembler } from './index-assembler.js';
import type { InvertedIndex } from './inverted-index.js';
import { SearchError } from './search-error.js';
import { resolveSearchOptions, type ResolvedSearchOptions, type SearchIndexOptions } from './search-options.js';
import { tokenizeBatch, type TokenizedBatch } from './tokenize-batch.js';
import type { SearchIndexParts } from './search-index.js';

/** The parts of a finished build, and its inverted index already put together. */
export interface BuiltParts {
  parts: SearchIndexParts & { documents: readonly Document[] };
  inverted: InvertedIndex;
}

export class SearchIndexBuild {
  /** Sorted by source: batches are cut from this order, and must be added in it. */
  readonly documents: readonly Document[];
  readonly options: ResolvedSearchOptions;
  readonly #assembler: IndexAssembler;
  readonly #startedAt = performance.now();

  /** Throws a `SearchError` on a bad option or a repeated source. */
  constructor(documents: readonly Document[], options?: SearchIndexOptions) {
    this.options = resolveSearchOptions(options);
    const sorted = [...documents].sort((a, b) => compareSources(a.source, b.source));
    for (let i = 1; i < sorted.length; i += 1) {
      const source = sorted[i]?.source;
      if (source === sorted[i - 1]?.source) {
        throw new SearchError('duplicate_source', `document source "${String(source)}" appears more than once: each document needs its own path`);
      }
    }
    this.documents = sorted;
    this.#assembler = new IndexAssembler(this.options, this.options.feedbackWeight > 0);
  }

  /** The next batch: `tokenizeBatch` of the documents that follow the ones added so far. */
  add(batch: TokenizedBatch): void {
    this.#assembler.add(batch);
  }

  finish(): BuiltParts {
    const { inverted, ...chunks } = this.#assembler.finish();
    const parts = {
      options: this.options,
      documents: this.documents,
      ...chunks,
      inverted: inverted.parts(),
      buildSeconds: (performance.now() - this.#startedAt) / 1000,
    };
    return { parts, inverted };
  }
}

/** Told after each document the documents and chunks done so far. */
export type BuildProgress = (documents: number, chunks: number) => void;

/** Chunks, tokenizes and indexes `documents` on this thread. */
export function buildSearchIndexParts(documents: readonly Document[], options?: SearchIndexOptions, onProgress?: BuildProgress): BuiltParts {
  const build = new SearchIndexBuild(documents, options);
  build.add(tokenizeBatch(build.documents, build.options, onProgress));
  return build.finish();
}
