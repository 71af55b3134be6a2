// How the server produces its first index. The snapshot file is checked in a worker thread
// (snapshot-check-worker.ts), started before the server loads its own modules (main.ts), and its
// resident part is shared, not copied: the worker sends it and the open file as soon as it is read,
// and this thread hashes the whole file in slices (the texts and records streamed from the file,
// which stay there: snapshot-in-file.ts) while the worker checks the corpus, so the checksum and the
// corpus check run on two cores. The bytes are handed on only once both pass: a damaged file is never served. The worker reads no corpus file: when only a file's bytes could tell
// whether it changed (a new modification time, the same size), or when the worker itself fails, it
// leaves the decision to the build process, which checks fully and builds when it must (as every
// reload does: run-in-child.ts). A refused snapshot goes to the build process with the reason, so it
// is not read again.
import { closeSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { entryFile } from '../entry-file.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { runInChild } from './run-in-child.js';
import { needsSnapshotCheck } from './snapshot-check.js';
import { checksumRefusal } from './snapshot-file.js';
import { SnapshotInFile } from './snapshot-in-file.js';
import type { SnapshotCheck } from './snapshot-check.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';

/**
 * What the check worker sends: first the snapshot's resident part (shared), read through the
 * descriptor this thread opened, and the digest the whole file must hash to, once the file is found
 * whole; then that it matches (`ok`) or the check's other outcomes.
 */
export type SnapshotCheckReply =
  | { read: { buffer: SharedArrayBuffer; byteOffset: number; byteLength: number; digest: Uint8Array; fd: number; path: string; header: SnapshotHeader } }
  | { ok: { timings: Record<string, number> } }
  | Exclude<SnapshotCheck, { result: IndexJobResult }>
  | { failed: string };

const worker = entryFile(import.meta.url, 'snapshot-check-worker');
// From sources, tsx's loader must be registered before the .ts entry loads (`--import tsx` in a
// worker's execArgv is not in place yet when the entry loads), so a line of script does both. tsx is
// resolved here, from this project, not from the worker's working folder.
const workerScript = worker.fromSources
  ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(worker.url.href)}); })`
  : undefined;

/**
 * Starts checking `job`'s snapshot file in a worker thread. Never rejects: a worker that cannot run
 * answers `undecided`, so the build process checks instead.
 */
export function checkSnapshotInWorker(job: IndexJob): Promise<SnapshotCheck> {
  return new Promise((resolve) => {
    let settled = false;
    // The checksum, computed here from the moment the bytes arrive.
    let read: { file: SnapshotInFile; verified: Promise<boolean> } | undefined;
    // Opened on this thread, which owns it: Node closes the descriptors a worker opened when it ends.
    const fd = openOrUndefined(job.indexFile as string);
    const settle = (check: SnapshotCheck): void => {
      if (settled) return;
      settled = true;
      // A file that does not serve is closed now; one that does stays open as long as its index lives.
      if (!('result' in check)) {
        // The checksum may be mid-read through this descriptor: close it once that read has ended
        // (`verify` stops at its next step once settled), never under it. Closing it at once failed
        // the pending read with EBADF, an unhandled rejection that ended the server when a changed
        // corpus refused the snapshot.
        if (read !== undefined) {
          const { file, verified } = read;
          void verified.catch(() => false).finally(() => file.close());
        } else if (fd !== undefined) closeSync(fd);
      }
      resolve(check);
    };
    const failed = (why: string): void => settle({ undecided: `the snapshot check in a worker thread failed (${why})` });
    let checksumMs = 0;
    let answered = false;
    let thread: Worker;
    try {
      thread = workerScript !== undefined ? new Worker(workerScript, { eval: true, workerData: { job, fd } }) : new Worker(worker.url, { workerData: { job, fd } });
    } catch (error) {
      failed(error instanceof Error ? error.message : String(error));
      return;
    }
    thread.on('message', (reply: SnapshotCheckReply) => {
      if ('read' in reply) {
        const { buffer, byteOffset, byteLength, ...rest } = reply.read;
        let file: SnapshotInFile;
        try {
          if (rest.fd !== fd) throw new Error(`it read the snapshot through descriptor ${rest.fd}, not ${String(fd)}`);
          file = new SnapshotInFile({ ...rest, resident: new Uint8Array(buffer, byteOffset, byteLength) });
        } catch (error) {
          failed(error instanceof Error ? error.message : String(error));
          return;
        }
        const started = performance.now();
        const verified = file.verify(() => settled).then((intact) => {
          checksumMs = Math.round(performance.now() - started);
          return intact;
        });
        read = { file, verified };
        return;
      }
      answered = true;
      if ('ok' in reply) {
        const { timings } = reply.ok;
        if (read === undefined) return failed('it found the snapshot matching without sending its bytes');
        const { file, verified } = read;
        void verified.then((intact) => {
          if (!intact) return settle({ refused: { code: 'corrupt', reason: checksumRefusal(job.indexFile as string).message } });
          settle({ result: { bytes: file.residentBytes, source: file, origin: 'snapshot', timings: { ...timings, checksumMs } } });
        }, (error: unknown) => failed(error instanceof Error ? error.message : String(error)));
      } else if ('failed' in reply) {
        failed(reply.failed);
      } else {
        settle(reply);
      }
    });
    thread.once('error', (error) => failed(error.message));
    thread.once('exit', (code) => {
      if (!answered) failed(`it ended with code ${code} before answering`);
    });
  });
}

function openOrUndefined(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined; // the worker opens it and says why it cannot
  }
}

/** What the check worker is given: the job, and the snapshot file opened by this thread when it could be. */
export interface SnapshotCheckWork {
  job: IndexJob;
  fd: number | undefined;
}

/**
 * Produces `job`'s index: from its snapshot file when the check (`check`, done or under way; default a
 * fresh one in a worker) says it serves; else by `build` (default a child process), told why the
 * snapshot was refused, or left to check it itself when the check was undecided.
 */
export async function produceIndex(
  job: IndexJob,
  { check, build = runInChild }: { check?: SnapshotCheck | Promise<SnapshotCheck>; build?: (job: IndexJob) => Promise<IndexJobResult> } = {},
): Promise<IndexJobResult> {
  if (!needsSnapshotCheck(job)) return build(job);
  const checked = await (check ?? checkSnapshotInWorker(job));
  if ('result' in checked) return checked.result;
  if ('refused' in checked) return build({ ...job, snapshotRefused: checked.refused });
  return build(job);
}
