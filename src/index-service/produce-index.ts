// How the server produces its first index. The snapshot file is checked in a worker thread
// (snapshot-check-worker.ts), started before the server loads its configuration and modules (main.ts),
// and its resident part is shared, not copied: the worker sends it and the open file as soon as it is
// read and found to be this engine's, then checks the corpus. The whole file's checksum
// (snapshot-digest.ts) is computed by whichever thread is free first: the worker once the corpus
// matched (a small corpus, walked before the server has loaded its modules), or this thread once it
// listens (a large one, still being walked), never both. The bytes are handed on only once both the
// check and the checksum pass: a damaged file is never served. The worker reads no corpus file: when
// only a file's bytes could tell whether it changed (a new modification time, the same size), or
// when the worker itself fails, it leaves the decision to the build process, which checks fully and
// builds when it must (as every reload does: run-in-child.ts). A refused snapshot goes to the build
// process with the reason, so it is not read again.
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
export function checkSnapshotInWorker(job: IndexJob, started?: CheckThread, { mainFree = Promise.resolve() }: { mainFree?: Promise<void> } = {}): Promise<SnapshotCheck> {
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
    // The file as handed over, and its verification when this thread took it.
    let read: { file: SnapshotInFile; verified?: Promise<boolean> } | undefined;
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
          const { file, verified = Promise.resolve(false) } = read;
          void verified.catch(() => false).finally(() => file.close());
        } else if (fd !== undefined && !cancelled) closeSync(fd);
      }
      resolve(check);
    };
    const failed = (why: string): void => settle({ undecided: `the snapshot check in a worker thread failed (${why})` });
    const served = (file: SnapshotInFile, intact: boolean, timings: Record<string, number>): void => {
      if (!intact) return settle({ refused: { code: 'corrupt', reason: checksumRefusal(target.indexFile).message } });
      settle({ result: { bytes: file.residentBytes, source: file, origin: 'snapshot', timings } });
    };
    let checksumMs = 0;
    // Verified here once this thread is free for it (`mainFree`: the server, once its modules are
    // loaded) unless the worker, done with the corpus first, has taken it.
    const verifyHere = (): void => {
      if (read === undefined || read.verified !== undefined || settled || !checker.claimVerification()) return;
      const began = performance.now();
      read.verified = read.file.verify(() => settled).then((intact) => {
        checksumMs = Math.round(performance.now() - began);
        return intact;
      });
    };
    const onReply = (reply: SnapshotCheckReply): void => {
      if ('read' in reply) {
        const { buffer, byteOffset, byteLength, ...rest } = reply.read;
        try {
          if (rest.fd !== fd) throw new Error(`it read the snapshot through descriptor ${rest.fd}, not ${String(fd)}`);
          read = { file: new SnapshotInFile({ ...rest, resident: new Uint8Array(buffer, byteOffset, byteLength) }) };
        } catch (error) {
          failed(error instanceof Error ? error.message : String(error));
          return;
        }
        void mainFree.then(verifyHere);
        return;
      }
      if ('ok' in reply) {
        const { timings, verified: done } = reply.ok;
        if (read === undefined) return failed('it found the snapshot matching without sending its bytes');
        const { file } = read;
        if (done !== undefined) return served(file, file.adopt({ intact: done.intact, crcs: new Map(done.crcs) }), timings);
        // The worker left the verification to this thread, which has taken it or will once it is free.
        void mainFree.then(() => {
          verifyHere();
          const { verified } = read ?? {};
          if (verified === undefined) return failed('neither thread could verify the snapshot');
          verified.then((intact) => served(file, intact, { ...timings, checksumMs }), (error: unknown) => failed(error instanceof Error ? error.message : String(error)));
        });
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
