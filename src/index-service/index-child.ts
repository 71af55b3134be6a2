// Entry of the build process: receives one IndexJob over IPC, runs it, writes the encoded index to
// the file the parent named and answers with the rest of the result, or with the error. Everything
// the build allocated goes back to the system when this process exits; a worker thread's malloc
// arenas would stay with the server (about 55 MiB after SciFact ×4).
import { writeFileSync } from 'node:fs';
import { throttleProgress } from './build-progress.js';
import type { BuildProgress } from './build-progress.js';
import { runIndexJob } from './index-job.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';

/**
 * At most one progress message per phase every this many ms: enough for /readyz and a gauge, and a
 * hundred messages over a 25-second build of 100k files rather than one per file.
 */
export const PROGRESS_INTERVAL_MS = 250;

/** What the parent sends: the job, and where to put the encoded index (over IPC when not named). */
export interface ChildRequest {
  job: IndexJob;
  bytesFile?: string;
}

/** The answer: the bytes are in `bytesFile`, or inline when that file could not be written. */
export type ChildReply =
  | { ok: true; result: Omit<IndexJobResult, 'bytes'> & { bytes?: Uint8Array } }
  | { ok: false; error: { name: string; code?: string; message: string } };

/** Sent any number of times before the reply. */
export interface ChildProgress {
  progress: BuildProgress;
}

// The server is gone (or never spoke): nothing would read the result.
process.once('disconnect', () => process.exit(0));
process.once('message', (request: ChildRequest) => {
  const reply = (message: ChildReply): void => {
    process.send?.(message, () => process.disconnect());
  };
  const onProgress = throttleProgress((progress) => process.send?.({ progress } satisfies ChildProgress), { intervalMs: PROGRESS_INTERVAL_MS });
  runIndexJob(request.job, { onProgress }).then(
    ({ bytes, ...rest }) => {
      try {
        if (request.bytesFile === undefined) throw new Error('no hand-off file');
        // Exclusive create, owner only, in the parent's private folder.
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
