// Extraction with a time and memory limit: a hostile PDF, DOCX or HTML file can drive its parser
// into runaway work that no code inside the parser would stop, so it runs in a worker thread that is
// terminated when the limit passes. piscina owns the threads; aborting a running task ends its worker.
//
// A worker's heap limit does not count ArrayBuffers, where parsers keep what they inflate (pdf.js a
// Flate stream's output), so a watchdog also samples the process's memory outside the main thread's
// own heap while files are extracted, and aborts the running extractions once it grows by more than
// threads × memoryMb. Which of them grew is not known: each aborted file is run again alone, and
// only a file that passes the limit alone is skipped.
import { Piscina } from 'piscina';
import { CodedError } from '../../coded-error.js';
import { entryFile } from '../../entry-file.js';
import type { DocumentFormat } from '../document.js';
import { type Extracted, ExtractionError, unreadableAs } from './extracted.js';
import type { ExtractionResult, ExtractionTask } from './extract-worker.js';
import { checkExtractionPoolOptions } from './extraction-pool-options.js';
import type { ExtractionPoolOptions } from './extraction-pool-options.js';

export interface ExtractionPool {
  /** Extracts one file; throws `ExtractionError` with a reason a client may read. */
  extract(format: DocumentFormat, input: string | Uint8Array): Promise<Extracted>;
  close(): Promise<void>;
}

const { url: WORKER, fromSources: FROM_SOURCE } = entryFile(import.meta.url, 'extract-worker');

/** How often the watchdog samples memory while files are extracted, in milliseconds. */
const WATCHDOG_INTERVAL_MS = 50;
const MB = 1024 * 1024;

/** Memory of the process outside the main thread's own heap and buffers: the workers', mostly. */
function workersMemory(): number {
  const { rss, heapTotal, external } = process.memoryUsage();
  return rss - heapTotal - external;
}

/** The watchdog's abort reason: the workers together hold more than the pool's memory limit. */
class MemoryLimitExceeded extends CodedError<'memory_limit_exceeded'> {
  constructor(limitBytes: number) {
    super('memory_limit_exceeded', `the extraction workers hold more than the ${limitBytes / MB} MB memory limit`);
  }
}

export function createExtractionPool(options: ExtractionPoolOptions): ExtractionPool {
  checkExtractionPoolOptions(options);
  const { timeoutMs, memoryMb, threads, limits } = options;
  const pool = new Piscina<ExtractionTask, ExtractionResult>({
    filename: WORKER.href,
    name: 'extractInWorker',
    minThreads: 0,
    maxThreads: threads,
    idleTimeout: 1000,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, memoryMb / 4) },
    ...(FROM_SOURCE ? { execArgv: ['--import', 'tsx'] } : {}),
  });
  // piscina emits 'error' for a worker that fails with no task left to fail: one aborted (time limit,
  // watchdog) that runs out of heap while it is being terminated. Its task has already failed with
  // its own reason; unheard, the event would be an uncaught exception that ends the process.
  pool.on('error', () => undefined);
  // Tasks wait here rather than in piscina's queue, so a file's time limit starts when it runs.
  const waiting: Array<() => void> = [];
  let running = 0;
  const acquire = async (): Promise<void> => {
    if (running < threads) {
      running += 1;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  // A file run alone holds every slot; one such file gathers slots at a time, or two could each
  // hold some and wait forever for the rest.
  let alone: Promise<void> = Promise.resolve();
  const acquireAll = async (): Promise<() => void> => {
    let done = (): void => undefined;
    const previous = alone;
    alone = new Promise<void>((resolve) => (done = resolve));
    await previous;
    for (let i = 0; i < threads; i += 1) await acquire();
    return () => {
      for (let i = 0; i < threads; i += 1) release();
      done();
    };
  };

  const memoryLimit = threads * memoryMb * MB;
  const baseline = workersMemory();
  const extracting = new Set<AbortController>();
  let watchdog: NodeJS.Timeout | undefined;
  const watch = (controller: AbortController): void => {
    extracting.add(controller);
    watchdog ??= setInterval(() => {
      if (workersMemory() - baseline <= memoryLimit) return;
      for (const running of extracting) running.abort(new MemoryLimitExceeded(memoryLimit));
    }, WATCHDOG_INTERVAL_MS).unref();
  };
  const unwatch = (controller: AbortController): void => {
    extracting.delete(controller);
    if (extracting.size === 0) {
      clearInterval(watchdog);
      watchdog = undefined;
    }
  };

  const run = async (format: DocumentFormat, input: string | Uint8Array, alone: boolean): Promise<Extracted> => {
    let free = release;
    if (alone) free = await acquireAll();
    else await acquire();
    const controller = new AbortController();
    watch(controller);
    try {
      const result = await pool.run({ format, input, limits }, { signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), controller.signal]) });
      if ('skipped' in result) throw new ExtractionError(result.code, result.skipped);
      return result.extracted;
    } catch (error) {
      if (error instanceof ExtractionError) throw error;
      if (!(controller.signal.reason instanceof MemoryLimitExceeded)) throw failure(error, format, timeoutMs, memoryMb);
      if (alone) throw new ExtractionError('out_of_memory', `extraction needed more than the ${threads * memoryMb} MB memory limit`);
    } finally {
      unwatch(controller);
      free();
    }
    // Aborted with others running: run it again alone, once its slot is free, to know whether it was this file.
    return run(format, input, true);
  };

  return {
    extract: (format, input) => run(format, input, false),
    async close() {
      clearInterval(watchdog);
      await pool.close({ force: true });
    },
  };
}

function failure(error: unknown, format: DocumentFormat, timeoutMs: number, memoryMb: number): ExtractionError {
  const { name, code } = (error ?? {}) as { name?: string; code?: string };
  if (name === 'AbortError' || name === 'TimeoutError') return new ExtractionError('timed_out', `extraction took longer than the ${timeoutMs / 1000} s limit`);
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return new ExtractionError('out_of_memory', `extraction needed more than the ${memoryMb} MB memory limit`);
  return new ExtractionError('unreadable', unreadableAs(format, error));
}
