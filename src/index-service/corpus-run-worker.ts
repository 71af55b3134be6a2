// Entry of the worker thread of a parallel build (parallel-load.ts): takes runs until none is left
// and sends each result back, its batch's arrays transferred, then says it is done.
import { parentPort, workerData } from 'node:worker_threads';
import type { FileCandidate } from '../corpus/walk-corpus.js';
import { batchBuffers, corpusRun, COUNTER, type RunSpec } from './corpus-run.js';

/** What the build's thread starts the worker with. */
export interface CorpusRunWorkerData {
  spec: RunSpec;
  runs: FileCandidate[][];
  counters: SharedArrayBuffer;
}

/** What the worker sends: one result per run it took, then `done`, or the error that stopped it. */
export type CorpusRunMessage =
  | { run: number; result: Awaited<ReturnType<typeof corpusRun>> }
  | { done: true }
  | { error: { name: string; message: string; code?: string } };

const { spec, runs, counters: shared } = workerData as CorpusRunWorkerData;
const counters = new Int32Array(shared);
const port = parentPort;

async function work(): Promise<void> {
  for (let run = Atomics.add(counters, COUNTER.nextRun, 1); run < runs.length; run = Atomics.add(counters, COUNTER.nextRun, 1)) {
    const result = await corpusRun(spec, runs[run] as FileCandidate[], counters);
    port?.postMessage({ run, result } satisfies CorpusRunMessage, batchBuffers(result.batch));
  }
  port?.postMessage({ done: true } satisfies CorpusRunMessage);
}

work().catch((error: unknown) => {
  const e = error instanceof Error ? error : new Error(String(error));
  const code = (e as { code?: unknown }).code;
  port?.postMessage({ error: { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) } } satisfies CorpusRunMessage);
});
