// Entry of the build worker thread: runs one IndexJob (workerData) and posts the result, handing the
// encoded index over by transfer (no copy), or posts the error. All the build's garbage dies with the
// thread's heap, so the main thread keeps only the finished index.
import { parentPort, workerData } from 'node:worker_threads';
import { runIndexJob } from './index-job.js';
import type { IndexJob } from './index-job.js';

export type WorkerReply =
  | { ok: true; result: Awaited<ReturnType<typeof runIndexJob>> }
  | { ok: false; error: { name: string; code?: string; message: string } };

const port = parentPort;
if (port !== null) {
  runIndexJob(workerData as IndexJob).then(
    (result) => {
      const reply: WorkerReply = { ok: true, result };
      port.postMessage(reply, [result.bytes.buffer as ArrayBuffer]);
    },
    (error: unknown) => {
      const e = error instanceof Error ? error : new Error(String(error));
      const code = (e as { code?: unknown }).code;
      const reply: WorkerReply = { ok: false, error: { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) } };
      port.postMessage(reply);
    },
  );
}
