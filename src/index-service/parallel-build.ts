// Builds a SearchIndex with the tokenizing spread over worker threads: the sorted documents are cut
// into batches of about BATCH_CHARS characters, each batch is chunked, tokenized and counted in a
// pool thread (tokenize-worker.ts), and this thread merges the batches in document order as they
// come back (search/index-assembler.ts), then weighs and sorts the postings. The merge renumbers
// terms by first use, so the index is the serial build's, byte for byte (parallel-build.test.ts).
//
// Memory: only a few batches are in flight at a time (their texts copied to a thread, their counts
// copied back), so the threads add a few batches' worth to the build's peak, not a second corpus.
// A corpus too small to repay starting the threads is tokenized here, as is a batch whose thread
// failed (the same function on the same documents gives the same batch).
//
// Not used by runIndexJob yet: on the 2-core machine it was measured on, the threads cost about 1.5–2×
// the serial CPU (the clone of each batch's texts, each thread's start and cold memo) and did not
// shorten the build (docs/BENCHMARKS.md, Growth). It is kept, tested byte for byte against the serial
// build, for the changes that would make it pay.
import { Piscina } from 'piscina';
import type { Document } from '../corpus/document.js';
import { entryFile } from '../entry-file.js';
import { SearchIndex, type SearchIndexOptions } from '../search/search-index.js';
import { SearchIndexBuild } from '../search/search-index-build.js';
import { tokenizeBatch, type BatchDocument, type TokenizedBatch } from '../search/tokenize-batch.js';
import type { TokenizeTask } from './tokenize-worker.js';

export interface ParallelBuildOptions {
  /** Worker threads; at most the CPUs the process may use. 1 or fewer builds on this thread. */
  threads: number;
  /**
   * Characters of text below which the build stays on this thread: starting the threads and copying
   * the texts to them would cost more than they save. Default MIN_PARALLEL_CHARS.
   */
  minParallelChars?: number;
  /** Text per batch, in UTF-16 code units (a batch holds whole documents). Default BATCH_CHARS; at least 1. */
  batchChars?: number;
}

/** What the build did, for the job's timings. */
export interface ParallelBuildReport {
  threads: number;
  batches: number;
  /** Batches tokenized on this thread after their worker failed. */
  fallbacks: number;
}

/** Text per batch, in UTF-16 code units: small enough to keep the texts in flight small, large enough that a batch's own vocabulary is cheap to merge. */
const BATCH_CHARS = 4_000_000;
/** See `minParallelChars`: above SciFact ×4 (31 M characters), where the threads lost in wall and CPU time (docs/BENCHMARKS.md, Growth). */
export const MIN_PARALLEL_CHARS = 40_000_000;
/** Batches sent ahead per thread, so a thread never waits for the merge. */
const AHEAD_PER_THREAD = 2;
/** A batch's thread needs its texts, its vocabulary and its counts; far below this. */
const THREAD_HEAP_MB = 256;

const { url: WORKER, fromSources: FROM_SOURCE } = entryFile(import.meta.url, 'tokenize-worker');

export async function buildSearchIndex(
  documents: readonly Document[],
  options: SearchIndexOptions,
  { threads, minParallelChars = MIN_PARALLEL_CHARS, batchChars = BATCH_CHARS }: ParallelBuildOptions,
): Promise<{ index: SearchIndex; report: ParallelBuildReport }> {
  if (!Number.isSafeInteger(threads) || !Number.isSafeInteger(batchChars) || batchChars < 1) {
    throw new RangeError(`threads must be an integer and batchChars a positive integer, got ${String(threads)} and ${String(batchChars)}`);
  }
  const build = new SearchIndexBuild(documents, options);
  const sorted = build.documents;
  let chars = 0;
  for (const document of sorted) chars += document.text.length;
  if (threads < 2 || chars < minParallelChars) {
    build.add(tokenizeBatch(sorted, build.options));
    return finished(build, { threads: 1, batches: 1, fallbacks: 0 });
  }

  const cuts = batchCuts(sorted, batchChars);
  const chunker = { chunkWords: build.options.chunkWords, overlapWords: build.options.overlapWords };
  const batchOf = (b: number): BatchDocument[] =>
    sorted.slice(cuts[b], cuts[b + 1]).map(({ title, text, bodyStart, sections, pages }) => ({ title, text, bodyStart, sections, ...(pages === undefined ? {} : { pages }) }));
  const pool = new Piscina<TokenizeTask, TokenizedBatch>({
    filename: WORKER.href,
    name: 'tokenizeInWorker',
    minThreads: threads,
    maxThreads: threads,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
    ...(FROM_SOURCE ? { execArgv: ['--import', 'tsx'] } : {}),
  });
  const report: ParallelBuildReport = { threads, batches: cuts.length - 1, fallbacks: 0 };
  const pending: Array<Promise<TokenizedBatch>> = [];
  const send = (b: number): void => {
    const documents = batchOf(b);
    pending[b] = pool.run({ documents, options: chunker }).catch(() => {
      report.fallbacks += 1;
      return tokenizeBatch(documents, chunker);
    });
  };
  try {
    const ahead = threads * AHEAD_PER_THREAD;
    for (let b = 0; b < Math.min(ahead, report.batches); b += 1) send(b);
    for (let b = 0; b < report.batches; b += 1) {
      const batch = await (pending[b] as Promise<TokenizedBatch>);
      delete pending[b];
      if (b + ahead < report.batches) send(b + ahead);
      build.add(batch);
    }
  } finally {
    await pool.close({ force: true });
  }
  return finished(build, report);
}

function finished(build: SearchIndexBuild, report: ParallelBuildReport): { index: SearchIndex; report: ParallelBuildReport } {
  const { parts, inverted } = build.finish();
  return { index: SearchIndex.fromParts(parts, inverted), report };
}

/** Where each batch begins, and the end: runs of whole documents of about `chars` characters each. */
function batchCuts(documents: readonly Document[], chars: number): number[] {
  const cuts = [0];
  let size = 0;
  for (let d = 0; d < documents.length; d += 1) {
    size += (documents[d] as Document).text.length;
    if (size >= chars && d + 1 < documents.length) {
      cuts.push(d + 1);
      size = 0;
    }
  }
  cuts.push(documents.length);
  return cuts;
}
