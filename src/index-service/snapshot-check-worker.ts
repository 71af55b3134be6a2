// Entry of the worker thread that checks a snapshot file at boot (produce-index.ts): receives the job
// as workerData, answers with the snapshot's bytes (their buffer transferred, not copied), the reason
// it was refused, or that only the corpus files' bytes could decide, and ends. A thread rather than a
// process: it starts in tens of milliseconds, loads only the checking code, runs on another core while
// the server loads its own modules, and reads no corpus file, so it allocates little besides the
// snapshot's bytes, which the server keeps.
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob } from './index-job-spec.js';
import type { SnapshotCheckReply } from './produce-index.js';
import { checkSnapshot } from './snapshot-check.js';

const reply = (message: SnapshotCheckReply, transfer: ArrayBuffer[] = []): void => parentPort?.postMessage(message, transfer);

checkSnapshot(workerData as IndexJob, { readTouched: false }).then(
  (checked) => {
    if (!('result' in checked)) return reply(checked);
    let { bytes } = checked.result;
    // A small file's Buffer may share a pooled ArrayBuffer with other data: send a copy of it then.
    if (bytes.byteLength < bytes.buffer.byteLength / 2) bytes = new Uint8Array(bytes);
    const { buffer, byteOffset, byteLength } = bytes;
    reply({ ok: { buffer: buffer as ArrayBuffer, byteOffset, byteLength, timings: checked.result.timings } }, [buffer as ArrayBuffer]);
  },
  (error: unknown) => reply({ failed: error instanceof Error ? error.message : String(error) }),
);
