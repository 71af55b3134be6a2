// The worker thread that checks a snapshot file at boot, started from the file's and the corpus's
// paths alone (why main.ts starts it first: there). The rest of the job follows (`send`), and the
// thread decides nothing before it has it. This module loads nothing but Node's own: everything
// heavier would stand before the thread's start.
import { closeSync, openSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { workerStarter } from '../entry-file.js';
import { type FileIdentity, sameIdentities } from '../corpus/file-identity.js';
import type { IndexJob } from './index-job-spec.js';
import type { SnapshotCheck } from './snapshot-check.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';

/** What a check thread walks and reads: the corpus folder and the snapshot file (absolute paths), and the files the walk skips. */
export interface CheckTarget {
  corpusRoot: string;
  indexFile: string;
  excludedFiles?: FileIdentity[];
}

/**
 * What the check worker sends: first the snapshot's resident part (shared), read through the
 * descriptor this thread opened, and the digest the whole file must hash to, once the file is found
 * whole and made by the job's engine and options; then that it matches (`ok`) or the check's other
 * outcomes.
 */
export type SnapshotCheckReply =
  | { read: { buffer: SharedArrayBuffer; byteOffset: number; byteLength: number; digest: Uint8Array; fd: number; path: string; header: SnapshotHeader } }
  | { ok: { timings: Record<string, number>; verified?: { intact: boolean; crcs: Array<[string, Uint32Array]> } } }
  | Exclude<SnapshotCheck, { result: unknown }>
  | { failed: string };

/** What the check worker posts: its replies, and that it has read the file and walked the corpus (`prepared`). */
export type CheckWorkerMessage = SnapshotCheckReply | { prepared: true };

/** What the check worker is given at its start; the job follows as its first message. */
export interface SnapshotCheckWork {
  target: CheckTarget;
  fd: number | undefined;
  /**
   * Who verifies the file's checksum (0: nobody yet): the first of the two threads to be free for it,
   * the worker once the corpus matched, or the server once it has loaded its modules. Taken with
   * `claimVerification`, never twice.
   */
  verifier: Int32Array;
}

/** Takes the file's verification for the calling thread: true when nobody had taken it. */
export function claimVerification(verifier: Int32Array): boolean {
  return Atomics.compareExchange(verifier, 0, 0, 1) === 0;
}

export interface CheckThread {
  readonly target: CheckTarget;
  /** The snapshot file opened by this thread (a worker's own descriptors close when it ends), or undefined when it could not be. */
  readonly fd: number | undefined;
  /** Settles once the thread has read the file and walked the corpus (or failed): all it does before the job arrives. */
  readonly prepared: Promise<void>;
  /** Hands every reply, those already received first, to `onReply`; the thread's failure (it could not start, erred or ended before answering) to `onFailure`. */
  listen(onReply: (reply: SnapshotCheckReply) => void, onFailure: (why: string) => void): void;
  /** Sends the job the thread checks the snapshot against; throws when it cannot be sent (not cloneable). */
  send(job: IndexJob): void;
  /** Takes the file's verification for this thread: true when the worker had not taken it. */
  claimVerification(): boolean;
  /** Ends a thread that will not be used, and closes its descriptor. */
  cancel(): void;
}

const startWorker = workerStarter(import.meta.url, 'snapshot-check-worker');

export function startCheckThread(target: CheckTarget): CheckThread {
  const fd = openOrUndefined(target.indexFile);
  const replies: SnapshotCheckReply[] = [];
  let failure: string | undefined;
  let answered = false;
  let listener: { onReply: (reply: SnapshotCheckReply) => void; onFailure: (why: string) => void } | undefined;
  const fail = (why: string): void => {
    if (failure !== undefined) return;
    failure = why;
    markPrepared();
    listener?.onFailure(why);
  };
  let thread: Worker | undefined;
  const verifier = new Int32Array(new SharedArrayBuffer(4));
  let markPrepared = (): void => undefined;
  const prepared = new Promise<void>((resolve) => (markPrepared = resolve));
  try {
    const workerData: SnapshotCheckWork = { target, fd, verifier };
    thread = startWorker({ workerData });
    thread.on('message', (reply: CheckWorkerMessage) => {
      if ('prepared' in reply) return markPrepared();
      if (!('read' in reply)) answered = true;
      if (listener) listener.onReply(reply);
      else replies.push(reply);
    });
    thread.once('error', (error) => fail(error.message));
    thread.once('exit', (code) => {
      markPrepared();
      if (!answered) fail(`it ended with code ${code} before answering`);
    });
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  return {
    target,
    fd,
    prepared,
    listen(onReply, onFailure) {
      listener = { onReply, onFailure };
      for (const reply of replies.splice(0)) onReply(reply);
      if (failure !== undefined) onFailure(failure);
    },
    send(job) {
      if (thread === undefined) return;
      thread.postMessage(job);
    },
    claimVerification: () => claimVerification(verifier),
    cancel() {
      answered = true;
      // The thread may be mid-read through the descriptor: close it only once the thread has ended.
      const close = (): void => {
        if (fd !== undefined) closeSync(fd);
      };
      if (thread === undefined) close();
      else void thread.terminate().finally(close);
    },
  };
}

/** The paths a job with a snapshot file has, for comparing with a thread's. */
export function checkTargetOf(job: IndexJob): CheckTarget {
  return { corpusRoot: job.corpusRoot, indexFile: job.indexFile as string, excludedFiles: job.excludedFiles ?? [] };
}

export function sameTarget(a: CheckTarget, b: CheckTarget): boolean {
  return a.corpusRoot === b.corpusRoot && a.indexFile === b.indexFile && sameIdentities(a.excludedFiles, b.excludedFiles);
}

function openOrUndefined(path: string): number | undefined {
  try {
    return openSync(path, 'r');
  } catch {
    return undefined; // the worker opens it and says why it cannot
  }
}
