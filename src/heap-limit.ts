// How large V8's old-generation heap may grow, in MiB. Read by src/node-args.ts at launch (a running
// process cannot change its own heap limit), so it is a pure function of its inputs.
import { totalmem } from 'node:os';

/** Share of the memory the process may use that the JS heap may take; the rest is for the index (outside the heap), buffers and the runtime. */
const SHARE = 0.25;
const MIN_MB = 128;
const MAX_MB = 1024;

/**
 * `configured` (MAX_HEAP_MB) when set; else a quarter of the memory available, from 128 to 1024 MiB.
 * "Available" is the cgroup memory limit when the process runs in a container with one (Node reports
 * it as `process.constrainedMemory()`), else the machine's memory.
 */
export function heapLimitMb(configured: number | undefined, available = availableMemoryBytes()): number {
  if (configured !== undefined) return configured;
  return Math.round(Math.min(MAX_MB, Math.max(MIN_MB, (available * SHARE) / 1024 / 1024)));
}

export function availableMemoryBytes(): number {
  const total = totalmem();
  const constrained = process.constrainedMemory?.() ?? 0;
  return constrained > 0 && constrained < total ? constrained : total;
}
