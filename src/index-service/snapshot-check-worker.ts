// Entry of the boot's snapshot check thread (snapshot-check-thread.ts starts it; the boot is told in
// produce-index.ts): reads the file and walks the corpus from the paths in workerData, takes the job
// as its first message, sends the resident part (`read`) once the file is this engine's, then the
// check's answer, and ends. A thread rather than a process: it starts in tens of milliseconds and
// loads only the checking code.
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob } from './index-job-spec.js';
import { claimVerification } from './snapshot-check-thread.js';
import type { CheckWorkerMessage, SnapshotCheckWork } from './snapshot-check-thread.js';
import { checkSnapshotFromPaths } from './snapshot-check.js';
import { verifySnapshot } from './snapshot-digest.js';
import type { ResidentSnapshot } from './snapshot-digest.js';

const reply = (message: CheckWorkerMessage): void => parentPort?.postMessage(message);

const { target, fd, verifier } = workerData as SnapshotCheckWork;
const job = new Promise<IndexJob>((resolve) => parentPort?.once('message', resolve));
let handedOver: ResidentSnapshot | undefined;

/** The answer that the file matches, verified here when the server has not taken the verification yet (a small corpus's walk ends before the server has loaded its modules). */
async function matched(timings: Record<string, number>): Promise<CheckWorkerMessage> {
  if (handedOver === undefined || !claimVerification(verifier)) return { ok: { timings } };
  const started = performance.now();
  const { intact, crcs } = await verifySnapshot(handedOver);
  return { ok: { timings: { ...timings, checksumMs: Math.round(performance.now() - started) }, verified: { intact, crcs: [...crcs] } } };
}

checkSnapshotFromPaths(target, job, {
  // The server's descriptor when it could open the file: one this thread opened would be closed when
  // the thread ends. The server keeps it to read the texts.
  ...(fd === undefined ? {} : { fd }),
  onPrepared: () => reply({ prepared: true }),
  onRead: (snapshot) => {
    handedOver = snapshot;
    const { resident, ...rest } = snapshot;
    const { buffer, byteOffset, byteLength } = resident;
    reply({ read: { ...rest, buffer: buffer as SharedArrayBuffer, byteOffset, byteLength } });
  },
})
  .then(async (checked) => reply('result' in checked ? await matched(checked.result.timings) : checked))
  .catch((error: unknown) => reply({ failed: error instanceof Error ? error.message : String(error) }));
