// The per-file part of a build (read, digest, extract, chunk, tokenize) on two threads: the build's
// own and one worker. The files, sorted by source, are cut into runs; each thread takes the next run
// until none is left (a shared counter, so a thread slowed by other work simply takes fewer), and
// the results come back in run order. Each worker gets the file list, not the texts: what crosses
// between threads is each run's documents (once, on the way back) and its batch's typed arrays
// (transferred). On 2 cores this pays only because a run costs each thread what it would cost alone:
// a pool fed with texts to tokenize spent about as much on cloning and starting as it saved
// (docs/BENCHMARKS.md, "Step 5").
import { compareSources } from '../corpus/document.js';
import type { FileCandidate } from '../corpus/walk-corpus.js';
import { entryWorker } from '../entry-file.js';
import type { BuildProgress } from './build-progress.js';
import { corpusRun, COUNTER, COUNTERS, type RunResult, type RunSpec } from './corpus-run.js';
import type { CorpusRunMessage, CorpusRunWorkerData } from './corpus-run-worker.js';

/** Files below this are read on one thread: starting a worker (about 0.2 s of CPU) would not pay. */
export const PARALLEL_MIN_FILES = 2000;

/** Runs per thread: enough for the two threads to end close together, few enough to merge cheaply. */
const RUNS_PER_THREAD = 8;

/** How often progress is reported while this thread waits for the worker's last runs, in ms. */
const WAIT_REPORT_MS = 250;
/** At most this often while this thread reads and tokenizes, in ms (the caller throttles further). */
const TICK_REPORT_MS = 50;

/**
 * Reads and tokenizes `files` on this thread and one worker; the results in source order. Progress
 * is 'read' (files) until every file is done with, then 'index' (documents).
 */
export async function loadInParallel(spec: RunSpec, files: readonly FileCandidate[], onProgress?: (progress: BuildProgress) => void): Promise<RunResult[]> {
  const sorted = [...files].sort((a, b) => compareSources(a.source, b.source));
  const size = Math.ceil(sorted.length / (2 * RUNS_PER_THREAD));
  const runs: FileCandidate[][] = [];
  for (let at = 0; at < sorted.length; at += size) runs.push(sorted.slice(at, at + size));
  const counters = new Int32Array(new SharedArrayBuffer(COUNTERS * Int32Array.BYTES_PER_ELEMENT));
  const results: RunResult[] = [];
  let reading = true;
  const report = (): void => {
    if (onProgress === undefined) return;
    if (Atomics.load(counters, COUNTER.loadedRuns) < runs.length) {
      onProgress({ phase: 'read', done: Atomics.load(counters, COUNTER.done), total: sorted.length, read: Atomics.load(counters, COUNTER.read) });
    } else {
      // The reading ends with its full count, as a serial build's does, before the indexing is reported.
      if (reading) onProgress({ phase: 'read', done: sorted.length, total: sorted.length, read: sorted.length });
      reading = false;
      const total = Atomics.load(counters, COUNTER.loadedDocuments);
      onProgress({ phase: 'index', done: Math.min(total, Atomics.load(counters, COUNTER.tokenized)), total, chunks: Atomics.load(counters, COUNTER.chunks) });
    }
  };
  report();

  const workerData: CorpusRunWorkerData = { spec, runs, counters: counters.buffer as SharedArrayBuffer };
  const worker = entryWorker(import.meta.url, 'corpus-run-worker', { workerData });
  const workerDone = new Promise<void>((resolve, reject) => {
    worker.on('message', (message: CorpusRunMessage) => {
      if ('run' in message) results[message.run] = message.result;
      else if ('done' in message) resolve();
      else reject(Object.assign(new Error(message.error.message), { name: message.error.name, code: message.error.code }));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the build's worker thread ended (exit code ${code}) before its runs were done`)));
  });
  // Until the worker's outcome is awaited, a failure is kept, not left unhandled.
  workerDone.catch(() => undefined);

  // Progress from this thread's own work is reported between its files and documents.
  let reported = 0;
  const tick = (): void => {
    const now = performance.now();
    if (now - reported < TICK_REPORT_MS) return;
    reported = now;
    report();
  };
  try {
    for (let run = Atomics.add(counters, COUNTER.nextRun, 1); run < runs.length; run = Atomics.add(counters, COUNTER.nextRun, 1)) {
      results[run] = await corpusRun(spec, runs[run] as FileCandidate[], counters, tick);
    }
    const timer = setInterval(report, WAIT_REPORT_MS);
    try {
      await workerDone;
    } finally {
      clearInterval(timer);
    }
  } finally {
    await worker.terminate();
  }
  report();
  return results;
}
