// Entry of the build process: receives one IndexJob over IPC, runs it, writes the encoded index to
// the file the parent named and answers with the rest of the result, or with the error. Everything
// the build allocated goes back to the system when this process exits; a worker thread's malloc
// arenas would stay with the server (about 55 MiB after SciFact ×4).
import { writeFileSync } from 'node:fs';
import { runIndexJob } from './index-job.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';

/** What the parent sends: the job, and where to put the encoded index. */
export interface ChildRequest {
  job: IndexJob;
  bytesFile: string;
}

/** The answer: the bytes are in `bytesFile`, or inline when that file could not be written. */
export type ChildReply =
  | { ok: true; result: Omit<IndexJobResult, 'bytes'> & { bytes?: Uint8Array } }
  | { ok: false; error: { name: string; code?: string; message: string } };

// The server is gone (or never spoke): nothing would read the result.
process.once('disconnect', () => process.exit(0));
process.once('message', (request: ChildRequest) => {
  const reply = (message: ChildReply): void => {
    process.send?.(message, () => process.disconnect());
  };
  runIndexJob(request.job).then(
    ({ bytes, ...rest }) => {
      try {
        // Exclusive create, owner only: a path planted in a shared temporary folder is not followed.
        writeFileSync(request.bytesFile, bytes, { flag: 'wx', mode: 0o600 });
        reply({ ok: true, result: rest });
      } catch {
        // No writable temporary folder (a read-only root without a tmpfs): the bytes go over IPC.
        reply({ ok: true, result: { ...rest, bytes } });
      }
    },
    (error: unknown) => {
      const e = error instanceof Error ? error : new Error(String(error));
      const code = (e as { code?: unknown }).code;
      reply({ ok: false, error: { name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) } });
    },
  );
});
