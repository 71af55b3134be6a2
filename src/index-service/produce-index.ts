// How the service produces an index by default. A snapshot file is checked in a worker thread
// (snapshot-check-worker.ts) and its bytes handed over without a copy; only a build (no snapshot, or
// one refused) goes to a child process (run-in-child.ts), told why the snapshot was refused so it does
// not read it again. A snapshot boot so costs its reading and checking, on another core, not a second
// Node process and a copy of the index through a temporary file. The server starts the check before
// it loads its own modules (main.ts), and hands the pending check to its first run.
import { Worker } from 'node:worker_threads';
import type { IndexJob, IndexJobResult, SnapshotRefusalReport } from './index-job.js';
import { runInChild } from './run-in-child.js';

/** What the check worker answers. */
export type SnapshotCheckReply =
  | { ok: { buffer: ArrayBuffer; byteOffset: number; byteLength: number; timings: Record<string, number> } }
  | { refused: SnapshotRefusalReport }
  | { failed: string };

/** The snapshot as a job result, or why it cannot serve. */
export type SnapshotUse = { result: IndexJobResult } | { refused: SnapshotRefusalReport };

// Compiled, the worker is snapshot-check-worker.js beside this file; from sources (tests, `npm run
// dev`) it is the .ts file, loaded through tsx.
const fromSources = import.meta.url.endsWith('.ts');
const workerUrl = new URL(fromSources ? './snapshot-check-worker.ts' : './snapshot-check-worker.js', import.meta.url);

/**
 * Starts checking `job`'s snapshot file in a worker thread. Never rejects: a worker that fails counts
 * as a refusal (`unreadable`), so the index is built instead.
 */
export function checkSnapshotInWorker(job: IndexJob): Promise<SnapshotUse> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (use: SnapshotUse): void => {
      if (settled) return;
      settled = true;
      resolve(use);
    };
    const failed = (why: string): void => settle({ refused: { code: 'unreadable', reason: `snapshot ${job.indexFile} could not be checked (${why})` } });
    // From sources, tsx's loader must be registered before the .ts entry is loaded (`--import tsx` in
    // a worker's execArgv is not yet in place when the entry loads), so a line of script does both.
    let worker: Worker;
    try {
      worker = fromSources
        ? new Worker(`import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(workerUrl.href)}); })`, { eval: true, workerData: job })
        : new Worker(workerUrl, { workerData: job });
    } catch (error) {
      failed(error instanceof Error ? error.message : String(error));
      return;
    }
    worker.once('message', (reply: SnapshotCheckReply) => {
      if ('ok' in reply) {
        const { buffer, byteOffset, byteLength, timings } = reply.ok;
        settle({ result: { bytes: new Uint8Array(buffer, byteOffset, byteLength), origin: 'snapshot', timings } });
      } else if ('refused' in reply) {
        settle(reply);
      } else {
        failed(reply.failed);
      }
    });
    worker.once('error', (error) => failed(error.message));
    worker.once('exit', (code) => failed(`the check ended with code ${code} before answering`));
  });
}

/**
 * Produces `job`'s index: from its snapshot file when that can serve (checked by `check`, default a
 * fresh check), else by `build` (default a child process).
 */
export async function produceIndex(
  job: IndexJob,
  { check, build = runInChild }: { check?: Promise<SnapshotUse>; build?: (job: IndexJob) => Promise<IndexJobResult> } = {},
): Promise<IndexJobResult> {
  if (job.indexFile === undefined || job.snapshotRefused !== undefined) return build(job);
  const used = await (check ?? checkSnapshotInWorker(job));
  if ('result' in used) return used.result;
  return build({ ...job, snapshotRefused: used.refused });
}
