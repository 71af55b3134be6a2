// How far an index job has got: the phase under way and its done/total. The job reports it
// (index-job.ts), the build process forwards it over IPC at a bounded rate (index-child.ts,
// run-in-child.ts), the index service keeps the latest for /readyz and /metrics, and `npm run index`
// draws it (index-cli-progress.ts).

/** The steps of producing an index, in the order they run. */
export const BUILD_PHASES = [
  /** Waiting for the first report: the build process starting, or the boot's snapshot check in a worker. */
  'starting',
  /** Checking the snapshot file against the corpus. */
  'check',
  /** Listing the corpus folder. */
  'walk',
  /** Reading and extracting files (unit: files). */
  'read',
  /** Chunking and indexing documents (unit: documents). */
  'index',
  /** Encoding the snapshot. */
  'encode',
  /** Writing the snapshot file. */
  'write',
  /** Decoding the new index in the server, before it is swapped in. */
  'decode',
] as const;
export type BuildPhase = (typeof BUILD_PHASES)[number];

export interface BuildProgress {
  phase: BuildPhase;
  /** Units of the phase done: files read and extracted (or skipped) in 'read', documents in 'index'; 0 for the other phases. */
  done: number;
  /** Units in the phase, 0 when it is not counted. */
  total: number;
  /** Files read from disk so far ('read' only): ahead of `done` while extractions are under way. */
  read?: number;
  /** Chunks indexed so far ('index' only). */
  chunks?: number;
}

/** What `done` and `total` count in `phase`, or undefined when it is not counted. */
export function progressUnit(phase: BuildPhase): 'files' | 'documents' | undefined {
  if (phase === 'read') return 'files';
  if (phase === 'index') return 'documents';
  return undefined;
}

/** Done over total, 0 to 1; 0 when the phase is not counted. */
export function progressRatio({ done, total }: BuildProgress): number {
  return total > 0 ? Math.min(1, done / total) : 0;
}

/**
 * Wraps `emit` so it runs at most once every `intervalMs` (ms, ≥ 0) within a phase, and at once
 * whenever the phase changes: a job reports every file and every document, and one IPC message
 * each would cost more than the work at 100k files. `now` is the clock in ms (default
 * performance.now); the check runs on each report, so no timer is needed while a synchronous step
 * (the index build) holds the thread.
 */
export function throttleProgress(
  emit: (progress: BuildProgress) => void,
  { intervalMs, now = () => performance.now() }: { intervalMs: number; now?: () => number },
): (progress: BuildProgress) => void {
  if (!Number.isFinite(intervalMs) || intervalMs < 0) throw new RangeError(`intervalMs must be a number of milliseconds ≥ 0, got ${String(intervalMs)}`);
  let lastPhase: BuildPhase | undefined;
  let lastAt = -Infinity;
  return function throttled(progress) {
    const at = now();
    if (progress.phase === lastPhase && at - lastAt < intervalMs) return;
    lastPhase = progress.phase;
    lastAt = at;
    emit(progress);
  };
}
