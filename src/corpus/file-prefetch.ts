// Reads the corpus files a little ahead of the loader, in a few threads, and throws the bytes away:
// only so the loader's own reads find them in the page cache. The loader reads one file at a time
// (synchronously, read-document.ts), so on a cold cache it waits for the disk once per file. Reads in
// several threads keep several requests in flight: reading SciFact ×20's 103,660 files cold took
// 10.1–10.5 s one at a time, 6.4 s with two threads reading ahead and 4.6 s with four, and its index
// builds 7–11 s sooner from a cold cache (docs/BENCHMARKS.md, "Growth, step 11"). The threads decide
// nothing: the loader still opens, checks and reads every file itself.
import type { Worker } from 'node:worker_threads';
import { workerStarter } from '../entry-file.js';
import type { FileCandidate } from './walk-corpus.js';

/** Threads reading ahead: requests in flight, not CPU (each waits on the disk most of the time). */
const PREFETCH_THREADS = 4;
/** The most files the threads read ahead of the loader. */
const PREFETCH_AHEAD = 1024;
/**
 * The most bytes the threads read ahead of the loader: what they put in the page cache must still be
 * there when the loader comes, on a small machine too.
 */
const PREFETCH_AHEAD_BYTES = 64 * 1024 * 1024;
/** Below this many files a load is short enough that starting threads would not pay. */
export const PREFETCH_MIN_FILES = 2048;

/** What a prefetch thread is given (file-prefetch-worker.ts). */
export interface PrefetchWork {
  /** The absolute paths, joined by NUL (one string clones faster than 100k). */
  paths: string;
  /** Device and inode of file i at 2i and 2i + 1: a path that now names another file is not read. */
  identities: Float64Array;
  /** Element i: the sizes of files 0 to i − 1 summed, as the walk saw them (length: files + 1). */
  sizesBefore: Float64Array;
  /** The loader's size limit: a larger file is not read. */
  maxFileBytes: number;
  /** This thread reads files first, first + stride, first + 2 × stride, … */
  first: number;
  stride: number;
  /** The most files, and bytes, this thread reads in front of the loader. */
  ahead: number;
  aheadBytes: number;
  /** [0]: files the loader is done with; -1 once it stops. */
  progress: Int32Array;
}

export interface FilePrefetch {
  /** Tells the threads the loader is done with `done` files. Cheap: call it per file. */
  advance(done: number): void;
  /** Ends the threads; resolves once they have. */
  stop(): Promise<void>;
}

const startWorker = workerStarter(import.meta.url, 'file-prefetch-worker');

/** How far ahead, and in how many threads (tests set smaller ones): each at least 1. */
export interface PrefetchOptions {
  /** Default PREFETCH_THREADS. */
  threads?: number;
  /** Files, default PREFETCH_AHEAD. */
  ahead?: number;
  /** Bytes, default PREFETCH_AHEAD_BYTES. */
  aheadBytes?: number;
}

/**
 * Starts threads reading `files` ahead of a loader that reads them in this order; undefined for a
 * list shorter than PREFETCH_MIN_FILES. A thread that cannot start or fails costs only its reads: the
 * loader reads every file anyway.
 */
export function startFilePrefetch(
  files: readonly FileCandidate[],
  maxFileBytes: number,
  { threads = PREFETCH_THREADS, ahead = PREFETCH_AHEAD, aheadBytes = PREFETCH_AHEAD_BYTES }: PrefetchOptions = {},
): FilePrefetch | undefined {
  for (const [name, value] of Object.entries({ threads, ahead, aheadBytes })) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of at least 1, not ${String(value)}`);
  }
  if (files.length < PREFETCH_MIN_FILES) return undefined;
  const progress = new Int32Array(new SharedArrayBuffer(4));
  const identities = new Float64Array(files.length * 2);
  const sizesBefore = new Float64Array(files.length + 1);
  files.forEach((file, i) => {
    identities[2 * i] = file.identity.dev;
    identities[2 * i + 1] = file.identity.ino;
    sizesBefore[i + 1] = (sizesBefore[i] as number) + file.size;
  });
  const paths = files.map((file) => file.absolutePath).join('\0');
  const exited: Array<Promise<unknown>> = [];
  for (let first = 0; first < threads; first += 1) {
    const workerData: PrefetchWork = { paths, identities, sizesBefore, maxFileBytes, first, stride: threads, ahead, aheadBytes, progress };
    let thread: Worker;
    try {
      thread = startWorker({ workerData });
    } catch {
      continue; // no thread, no read-ahead: the load is as it was without it
    }
    thread.on('error', () => undefined);
    // Not unref'd: a process whose only work is the load must live until stop() has seen them end.
    exited.push(new Promise((done) => thread.once('exit', done)));
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
