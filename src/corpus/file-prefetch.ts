// Reads the corpus files a little ahead of the loader, in a few threads, and throws the bytes away:
// only so the loader's own reads find them in the page cache. The loader reads one file at a time
// (synchronously, read-document.ts), so on a cold cache it waits for the disk once per file: SciFact
// ×20 (103,660 files) took 23.6–24.5 s to index cold against 12.8–14.0 s warm. Reads in several
// threads keep several requests in flight: reading those files cold took 10.1–10.5 s one at a time,
// 6.4 s with two threads reading ahead, 4.6 s with four (docs/BENCHMARKS.md, growth step 11).
// The threads decide nothing: the loader still opens, checks and reads every file itself.
import { Worker } from 'node:worker_threads';
import { entryFile } from '../entry-file.js';
import type { FileCandidate } from './walk-corpus.js';

/** Threads reading ahead: requests in flight, not CPU (each waits on the disk most of the time). */
export const PREFETCH_THREADS = 4;
/** How many files the threads may run ahead of the loader: bounds the page cache they fill first. */
export const PREFETCH_AHEAD = 1024;
/** Below this many files a load is short enough that starting threads would not pay. */
export const PREFETCH_MIN_FILES = 2048;

/** What a prefetch thread is given (file-prefetch-worker.ts). */
export interface PrefetchWork {
  /** The absolute paths, joined by NUL (one string clones faster than 100k). */
  paths: string;
  /** Device and inode of file i at 2i and 2i + 1: a path that now names another file is not read. */
  identities: Float64Array;
  maxFileBytes: number;
  /** This thread reads files first, first + stride, … */
  first: number;
  stride: number;
  ahead: number;
  /** [0]: files the loader is done with; -1 once it stops. */
  progress: Int32Array;
}

export interface FilePrefetch {
  /** Tells the threads the loader is done with `done` files. Cheap: call it per file. */
  advance(done: number): void;
  /** Ends the threads; resolves once they have. */
  stop(): Promise<void>;
}

const worker = entryFile(import.meta.url, 'file-prefetch-worker');
// From sources (tests), tsx's loader is registered before the .ts entry loads, as the snapshot check
// thread does.
const workerScript = worker.fromSources
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(worker.url.href)}); })`
  : undefined;

/**
 * Starts reading `files` ahead of a loader that reads them in this order; undefined for a short
 * list. A thread that cannot start or fails costs only its reads: the loader reads every file anyway.
 */
export function startFilePrefetch(files: readonly FileCandidate[], maxFileBytes: number, threads = PREFETCH_THREADS): FilePrefetch | undefined {
  if (files.length < PREFETCH_MIN_FILES || threads < 1) return undefined;
  const progress = new Int32Array(new SharedArrayBuffer(4));
  const identities = new Float64Array(files.length * 2);
  files.forEach((file, i) => {
    identities[2 * i] = file.identity.dev;
    identities[2 * i + 1] = file.identity.ino;
  });
  const paths = files.map((file) => file.absolutePath).join('\0');
  const exited: Array<Promise<unknown>> = [];
  for (let first = 0; first < threads; first += 1) {
    const workerData: PrefetchWork = { paths, identities, maxFileBytes, first, stride: threads, ahead: PREFETCH_AHEAD, progress };
    try {
      const thread = workerScript !== undefined ? new Worker(workerScript, { eval: true, workerData }) : new Worker(worker.url, { workerData });
      thread.on('error', () => undefined);
      exited.push(new Promise((done) => thread.once('exit', done)));
    } catch {
      // No thread, no read-ahead: the load is as it was without it.
    }
  }
  let notified = 0;
  return {
    advance(done) {
      Atomics.store(progress, 0, done);
      // A thread waits until it may go on; waking it every few files is enough to keep it ahead.
      if (done - notified >= 64) {
        notified = done;
        Atomics.notify(progress, 0);
      }
    },
    // Told to stop, a thread ends after the file it is reading (it is not terminated, which could
    // leave that file's descriptor open).
    async stop() {
      Atomics.store(progress, 0, -1);
      Atomics.notify(progress, 0);
      await Promise.all(exited);
    },
  };
}
