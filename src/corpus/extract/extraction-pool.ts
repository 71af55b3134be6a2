// Extraction with a time and memory limit: a hostile PDF, DOCX or HTML file can drive its parser
// into runaway work that no code inside the parser would stop, so it runs in a worker thread that is
// terminated when the limit passes. piscina owns the threads; aborting a running task ends its worker.
import { Piscina } from 'piscina';
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

  return {
    async extract(format, input) {
      await acquire();
      try {
        const result = await pool.run({ format, input, limits }, { signal: AbortSignal.timeout(timeoutMs) });
        if ('skipped' in result) throw new ExtractionError(result.skipped);
        return result.extracted;
      } catch (error) {
        if (error instanceof ExtractionError) throw error;
        throw new ExtractionError(describeFailure(error, format, timeoutMs, memoryMb));
      } finally {
        release();
      }
    },
    close: () => pool.close({ force: true }),
  };
}

function describeFailure(error: unknown, format: DocumentFormat, timeoutMs: number, memoryMb: number): string {
  const { name, code } = (error ?? {}) as { name?: string; code?: string };
  if (name === 'AbortError' || name === 'TimeoutError') return `extraction took longer than the ${timeoutMs / 1000} s limit`;
  if (code === 'ERR_WORKER_OUT_OF_MEMORY') return `extraction needed more than the ${memoryMb} MB memory limit`;
  return unreadableAs(format, error);
}
