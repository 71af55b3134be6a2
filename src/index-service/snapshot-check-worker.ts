// Entry of the worker thread that checks a snapshot file (snapshot-check.ts): receives the job as
// workerData, answers with the snapshot's bytes (their buffer transferred, not copied) or the reason
// it was refused, and ends. A thread rather than a process: it starts in tens of milliseconds, loads
// only the checking code, and runs on another core while the server loads its own modules.
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob } from './index-job.js';
import { useSnapshot } from './snapshot-check.js';
import type { SnapshotCheckReply } from './produce-index.js';

const reply = (message: SnapshotCheckReply, transfer: ArrayBuffer[] = []): void => parentPort?.postMessage(message, transfer);

useSnapshot(workerData as IndexJob).then(
  (used) => {
    if ('refused' in used) return reply(used);
    let { bytes } = used.result;
    // A small file's Buffer may share a pooled ArrayBuffer with other data: send a copy of it then.
    if (bytes.byteLength < bytes.buffer.byteLength / 2) bytes = new Uint8Array(bytes);
    const { buffer, byteOffset, byteLength } = bytes;
    reply({ ok: { buffer: buffer as ArrayBuffer, byteOffset, byteLength, timings: used.result.timings } }, [buffer as ArrayBuffer]);
  },
  (error: unknown) => reply({ failed: error instanceof Error ? error.message : String(error) }),
);
