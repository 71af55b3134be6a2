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
import { closeSync } from 'node:fs';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { runInChild } from './run-in-child.js';
import { needsSnapshotCheck } from './snapshot-check.js';
import type { SnapshotCheck } from './snapshot-check.js';
import { checkTargetOf, sameTarget, startCheckThread } from './snapshot-check-thread.js';
import type { CheckThread, SnapshotCheckReply } from './snapshot-check-thread.js';
import { checksumRefusal } from './snapshot-file.js';
import { SnapshotInFile } from './snapshot-in-file.js';

/**
 * Checks `job`'s snapshot file in a worker thread: `started` when it was started for the job's very
 * paths (main.ts starts one before the configuration is loaded), else a new one. Never rejects: a
 * worker that cannot run answers `undecided`, so the build process checks instead.
 */
export function checkSnapshotInWorker(job: IndexJob, started?: CheckThread): Promise<SnapshotCheck> {
  const target = checkTargetOf(job);
  let thread = started;
  if (thread !== undefined && !sameTarget(thread.target, target)) {
    thread.cancel();
    thread = undefined;
  }
  const checker = thread ?? startCheckThread(target);
  return new Promise((resolve) => {
    let settled = false;
    let cancelled = false;
    // The checksum, computed here from the moment the bytes arrive.
    let read: { file: SnapshotInFile; verified: Promise<boolean> } | undefined;
    // Opened on this thread, which owns it: Node closes the descriptors a worker opened when it ends.
    const { fd } = checker;
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
        } else if (fd !== undefined && !cancelled) closeSync(fd);
      }
      resolve(check);
    };
    const failed = (why: string): void => settle({ undecided: `the snapshot check in a worker thread failed (${why})` });
    let checksumMs = 0;
    const onReply = (reply: SnapshotCheckReply): void => {
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
      if ('ok' in reply) {
        const { timings } = reply.ok;
        if (read === undefined) return failed('it found the snapshot matching without sending its bytes');
        const { file, verified } = read;
        void verified.then((intact) => {
          if (!intact) return settle({ refused: { code: 'corrupt', reason: checksumRefusal(target.indexFile).message } });
          settle({ result: { bytes: file.residentBytes, source: file, origin: 'snapshot', timings: { ...timings, checksumMs } } });
        }, (error: unknown) => failed(error instanceof Error ? error.message : String(error)));
      } else if ('failed' in reply) {
        failed(reply.failed);
      } else {
        settle(reply);
      }
    };
    checker.listen(onReply, failed);
    try {
      checker.send(job);
    } catch (error) {
      // Never sent (a job that cannot be cloned): the thread would wait for it for ever.
      cancelled = true;
      checker.cancel();
      failed(error instanceof Error ? error.message : String(error));
    }
  });
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
