// Runs an IndexJob in a child process and resolves with its result: the event loop of the server
// stays free for /healthz and tool calls while files are read and the index is built, and the
// memory the build used is returned to the system when the child exits (a worker thread's would stay
// in the server's allocator). The encoded index comes back through a private temporary file, read in
// one allocation; over the IPC channel it would arrive in thousands of small buffers that the
// allocator keeps as well. That file lives in a folder of its own made by mkdtemp (0700, a random
// name), never at a name another user of a shared /tmp could guess and take first; removing the
// folder afterwards is best effort and never replaces the build's result or its error.
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodedError } from '../coded-error.js';
import { type CorpusErrorCode, isCorpusErrorCode } from '../corpus/corpus-error.js';
import { entryFile } from '../entry-file.js';
import type { BuildProgress } from './build-progress.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import type { ChildProgress, ChildReply, ChildRequest } from './index-child.js';

/** Why a job failed: the corpus loader's code (e.g. `no_documents`) when it refused the corpus, else `build_failed`. */
export type IndexJobErrorCode = CorpusErrorCode | 'build_failed';

/** A failed job; the message is the child's, or says how the child process failed. */
export class IndexJobError extends CodedError<IndexJobErrorCode> {}

const { url: childUrl, fromSources } = entryFile(import.meta.url, 'index-child');
const childPath = childUrl.pathname;

export interface RunInChildOptions {
  /** Told the build's progress, a few times a second at most (see index-child.ts). */
  onProgress?: (progress: BuildProgress) => void;
}

/** A private folder for the hand-off file, or undefined when none can be made (the bytes then come over IPC). */
async function privateFolder(): Promise<string | undefined> {
  try {
    return await mkdtemp(join(tmpdir(), 'corpus-mcp-index-'));
  } catch {
    return undefined;
  }
}

export async function runInChild(job: IndexJob, { onProgress }: RunInChildOptions = {}): Promise<IndexJobResult> {
  const folder = await privateFolder();
  const bytesFile = folder === undefined ? undefined : join(folder, 'index.bin');
  try {
    const reply = await new Promise<ChildReply>((resolve, reject) => {
      const child = fork(childPath, [], {
        serialization: 'advanced',
        // The server's own options (its heap cap among them) apply to the build too.
        execArgv: fromSources ? [...process.execArgv, '--import', 'tsx'] : process.execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      let settled = false;
      child.on('message', (message: ChildReply | ChildProgress) => {
        if (settled) return;
        if ('progress' in message) {
          onProgress?.(message.progress);
          return;
        }
        settled = true;
        resolve(message);
      });
      child.once('error', (error) => {
        if (settled) return;
        settled = true;
        reject(new IndexJobError('build_failed', `the index build process failed: ${error.message}`));
      });
      child.once('exit', (code, signal) => {
        if (settled) return;
        settled = true;
        reject(new IndexJobError('build_failed', `the index build process exited with ${signal ?? `code ${code}`} before finishing`));
      });
      const request: ChildRequest = { job, bytesFile };
      child.send(request);
    });
    if (!reply.ok) throw new IndexJobError(isCorpusErrorCode(reply.error.code) ? reply.error.code : 'build_failed', reply.error.message);
    // Not copied: a second tens-of-MB allocation would raise the RSS after boot until a GC ran.
    if (reply.result.bytes === undefined && bytesFile === undefined) throw new IndexJobError('build_failed', 'the index build process sent no index');
    const bytes = reply.result.bytes ?? (await readFile(bytesFile as string));
    return { ...reply.result, bytes };
  } finally {
    // A folder left behind is private to this user and holds one index; the result stands.
    if (folder !== undefined) await rm(folder, { recursive: true, force: true }).catch(() => undefined);
  }
}
