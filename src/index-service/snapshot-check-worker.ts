// Entry of the worker thread that checks a snapshot file at boot (produce-index.ts): receives the job
// as workerData, reads the file into shared memory and sends it at once (`read`, with the digest it
// must hash to: the server verifies it while this thread goes on), then answers whether it matches
// the engine, options and corpus, the reason it was refused, or that only the corpus files' bytes
// could decide, and ends. A thread rather than a process: it starts in tens of milliseconds, loads
// only the checking code, runs on another core while the server loads its own modules, and reads no
// corpus file, so it allocates little besides the snapshot's bytes, which the server keeps.
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob } from './index-job-spec.js';
import type { SnapshotCheckReply } from './produce-index.js';
import { checkSnapshot } from './snapshot-check.js';

const reply = (message: SnapshotCheckReply): void => parentPort?.postMessage(message);

checkSnapshot(workerData as IndexJob, {
  readTouched: false,
  onRead: ({ bytes, digest }) => {
    const { buffer, byteOffset, byteLength } = bytes;
    reply({ read: { buffer: buffer as SharedArrayBuffer, byteOffset, byteLength, digest: Uint8Array.from(digest) } });
  },
}).then(
  (checked) => reply('result' in checked ? { ok: { timings: checked.result.timings } } : checked),
  (error: unknown) => reply({ failed: error instanceof Error ? error.message : String(error) }),
);
