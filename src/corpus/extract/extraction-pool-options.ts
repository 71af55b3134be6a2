// The options of the extraction pool, checked apart from the pool itself: the corpus loader checks
// them at once, and loads the pool (and piscina) only when a file needs it.
import type { ExtractionLimits } from './extracted.js';

export interface ExtractionPoolOptions {
  /** Wall time one file may take to extract, in milliseconds, counted from when a thread takes it. At least 1. */
  timeoutMs: number;
  /** Heap (old generation) one worker may use, in MB. At least 16. */
  memoryMb: number;
  /** Worker threads. At least 1. */
  threads: number;
  limits: ExtractionLimits;
}

/** Throws a RangeError naming the first option out of range. */
export function checkExtractionPoolOptions({ timeoutMs, memoryMb, threads }: ExtractionPoolOptions): void {
  for (const [name, value, min] of [['timeoutMs', timeoutMs, 1], ['memoryMb', memoryMb, 16], ['threads', threads, 1]] as const) {
    if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be an integer of at least ${min}, got ${String(value)}`);
  }
}
