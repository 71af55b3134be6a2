// Entry of the worker thread that checks a snapshot file at boot (snapshot-check-thread.ts): receives
// the snapshot's and the corpus's paths as workerData and starts reading the file and walking the
// corpus at once; the job (engine, index options) follows as the first message. Once the file is
// found whole and made by that engine with those options, it sends the resident part, read into
// shared memory (`read`, with the open descriptor and the digest the file must hash to: the server
// verifies it while this thread goes on, and serves the texts from the file: snapshot-in-file.ts),
// then answers whether it matches the corpus, the reason it was refused, or that only the corpus
// files' bytes could decide, and ends. A thread rather than a process: it starts in tens of
// milliseconds, loads only the checking code, runs on another core while the server loads its own
// modules, and reads no corpus file, so it allocates little besides the snapshot's resident bytes,
// which the server keeps.
import { parentPort, workerData } from 'node:worker_threads';
import type { IndexJob } from './index-job-spec.js';
import { claimVerification } from './snapshot-check-thread.js';
import type { SnapshotCheckReply, SnapshotCheckWork } from './snapshot-check-thread.js';
import { checkSnapshotFromPaths } from './snapshot-check.js';
import { verifySnapshot } from './snapshot-digest.js';
import type { ResidentSnapshot } from './snapshot-digest.js';

const reply = (message: SnapshotCheckReply): void => parentPort?.postMessage(message);

const { target, fd, verifier } = workerData as SnapshotCheckWork;
const job = new Promise<IndexJob>((resolve) => parentPort?.once('message', resolve));
let handedOver: ResidentSnapshot | undefined;

/** The answer that the file matches, verified here when the server has not taken the verification yet (a small corpus's walk ends before the server has loaded its modules). */
async function matched(timings: Record<string, number>): Promise<SnapshotCheckReply> {
  if (handedOver === undefined || !claimVerification(verifier)) return { ok: { timings } };
  const started = performance.now();
  const { intact, crcs } = await verifySnapshot(handedOver);
  return { ok: { timings: { ...timings, checksumMs: Math.round(performance.now() - started) }, verified: { intact, crcs: [...crcs] } } };
}

checkSnapshotFromPaths(target, job, {
  // The server's descriptor when it could open the file: one this thread opened would be closed when
  // the thread ends. The server keeps it to read the texts.
  ...(fd === undefined ? {} : { fd }),
  onRead: (snapshot) => {
    handedOver = snapshot;
    const { resident, ...rest } = snapshot;
    const { buffer, byteOffset, byteLength } = resident;
    reply({ read: { ...rest, buffer: buffer as SharedArrayBuffer, byteOffset, byteLength } });
  },
})
  .then(async (checked) => reply('result' in checked ? await matched(checked.result.timings) : checked))
  .catch((error: unknown) => reply({ failed: error instanceof Error ? error.message : String(error) }));
