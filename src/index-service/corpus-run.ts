// One run of a build's files, from disk to a tokenized batch: read (and digest), extract, chunk,
// tokenize and count. The build cuts its files, sorted by source, into runs, and its own thread and
// a worker (corpus-run-worker.ts) each take the next run until none is left (parallel-load.ts); the
// batches are merged in run order, which gives the index of the serial build (index-assembler.ts).
import { loadCorpus } from '../corpus/load-corpus.js';
import type { CorpusWarning, Document, SkippedFile } from '../corpus/document.js';
import type { FileCandidate } from '../corpus/walk-corpus.js';
import type { ChunkerOptions } from '../search/chunker.js';
import { tokenizeBatch, type TokenizedBatch } from '../search/tokenize-batch.js';
import { contentDigest } from './corpus-manifest.js';

/** What every run of one build shares; plain data, sent to the worker as it is. */
export interface RunSpec {
  root: string;
  maxFileBytes: number;
  chunker: ChunkerOptions;
}

export interface RunResult {
  /** Sorted by source. */
  documents: Document[];
  skipped: SkippedFile[];
  warnings: CorpusWarning[];
  /** Source and content digest of every file read, alternating: no object per file to send back. */
  digests: string[];
  batch: TokenizedBatch;
}

/**
 * Slots of the counters the threads of one build share (an Int32Array over a SharedArrayBuffer), so
 * the build's own thread can report progress while the worker works, with no message per file.
 */
export const COUNTER = {
  /** The next run to take. */
  nextRun: 0,
  /** Files read from disk, and files done with (a document or a skip). */
  read: 1,
  done: 2,
  /** Runs whose files are all done, and the documents they hold. */
  loadedRuns: 3,
  loadedDocuments: 4,
  /** Documents chunked and tokenized, and their chunks. */
  tokenized: 5,
  chunks: 6,
} as const;
export const COUNTERS = 7;

/** Reads and tokenizes `files`, adding what it does to `counters` as it goes; `onTick` after each file and document. */
export async function corpusRun(spec: RunSpec, files: FileCandidate[], counters: Int32Array, onTick?: () => void): Promise<RunResult> {
  const digests: string[] = [];
  let read = 0;
  let done = 0;
  const corpus = await loadCorpus(spec.root, {
    maxFileBytes: spec.maxFileBytes,
    walked: { files, skipped: [] },
    requireDocuments: false,
    onRead: (source, bytes) => {
      digests.push(source, contentDigest(bytes));
    },
    onProgress: (progress) => {
      Atomics.add(counters, COUNTER.read, progress.read - read);
      Atomics.add(counters, COUNTER.done, progress.done - done);
      read = progress.read;
      done = progress.done;
      onTick?.();
    },
  });
  Atomics.add(counters, COUNTER.loadedDocuments, corpus.documents.length);
  Atomics.add(counters, COUNTER.loadedRuns, 1);
  let tokenized = 0;
  let chunks = 0;
  const batch = tokenizeBatch(corpus.documents, spec.chunker, (documents, chunksSoFar) => {
    Atomics.add(counters, COUNTER.tokenized, documents - tokenized);
    Atomics.add(counters, COUNTER.chunks, chunksSoFar - chunks);
    tokenized = documents;
    chunks = chunksSoFar;
    onTick?.();
  });
  return { documents: corpus.documents, skipped: corpus.skipped, warnings: corpus.warnings ?? [], digests, batch };
}

/** The buffers of a batch's typed arrays, each once: what a worker transfers rather than copies. */
export function batchBuffers(batch: TokenizedBatch): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const value of Object.values(batch)) {
    if (ArrayBuffer.isView(value) && value.buffer instanceof ArrayBuffer) buffers.add(value.buffer);
  }
  return [...buffers];
}
