// Runs an IndexJob in a fresh worker thread and resolves with its result: the event loop of the
// main thread stays free for /healthz and tool calls while files are read and the index is built.
import { Worker } from 'node:worker_threads';
import type { ResourceLimits } from 'node:worker_threads';
import type { IndexJob, IndexJobResult } from './index-job.js';
import type { WorkerReply } from './index-worker.js';

/** A failed job: `code` is the thrown error's code when it had one (e.g. CorpusError's `no_documents`). */
export class IndexJobError extends Error {
  readonly code: string | undefined;

  constructor(message: string, code?: string) {
    super(message);
    this.name = 'IndexJobError';
    this.code = code;
  }
}

export interface RunInWorkerOptions {
  /** Heap limits of the worker; default Node's. */
  resourceLimits?: ResourceLimits;
}

// Compiled, the worker is index-worker.js beside this file. Run from TypeScript sources (tests,
// `npm run dev`), it is index-worker.ts, and the thread registers tsx before importing it (a
// worker's own `--import` does not apply to its entry module on Node 20).
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSources ? './index-worker.ts' : './index-worker.js', import.meta.url);
const workerEntry = fromSources
  ? `import('tsx/esm/api')` +
    `.then(({ register }) => { register(); return import(${JSON.stringify(workerUrl.href)}); })`
  : workerUrl;

export function runInWorker(job: IndexJob, options: RunInWorkerOptions = {}): Promise<IndexJobResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerEntry, {
      workerData: job,
      eval: fromSources,
      ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
      stdout: false,
      stderr: false,
    });
    let settled = false;
    worker.once('message', (reply: WorkerReply) => {
      settled = true;
      if (reply.ok) resolve(reply.result);
      else reject(new IndexJobError(reply.error.message, reply.error.code));
      void worker.terminate();
    });
    worker.once('error', (error) => {
      if (settled) return;
      settled = true;
      reject(new IndexJobError(`the index worker failed: ${error.message}`, (error as NodeJS.ErrnoException).code));
    });
    worker.once('exit', (code) => {
      if (settled) return;
      settled = true;
      reject(new IndexJobError(`the index worker exited with code ${code} before finishing`));
    });
  });
}
