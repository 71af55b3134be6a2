// Whether a snapshot file can serve instead of a build: intact (snapshot-file.ts), written by this
// engine with these index options, and matching the corpus as it is now (corpus-manifest.ts). It
// loads no extractor, so a check costs no parser's start-up. The server checks at boot in a worker
// thread, reading no corpus file (`readTouched: false`); the build process (every reload, and a
// boot the worker left undecided) and `npm run index` check fully.
import { snapshotSection } from '../search/index-snapshot.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';
import { resolveSearchOptions } from '../search/search-options.js';
import type { SearchIndexOptions } from '../search/search-index.js';
import { decodeManifest, ManifestFormatError, manifestDifference, UnreadFileError } from './corpus-manifest.js';
import type { CheckTarget } from './snapshot-check-thread.js';
import type { StoredManifest } from './corpus-manifest.js';
import type { FileIdentity } from '../corpus/file-identity.js';
import { DEFAULT_MAX_FILE_BYTES } from '../corpus/read-document.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { openSnapshotFile, readSnapshotFile, SnapshotRefusal } from './snapshot-file.js';
import type { SnapshotRefusalReport } from './snapshot-file.js';
import type { ResidentSnapshot } from './snapshot-digest.js';
import { timer } from './timer.js';

/** The snapshot section that holds the manifest of the corpus it was built from. */
export const MANIFEST_SECTION = 'manifest';

/** Whether `job` has a snapshot file that nobody has refused yet. */
export function needsSnapshotCheck(job: IndexJob): job is IndexJob & { indexFile: string } {
  return job.indexFile !== undefined && job.snapshotRefused === undefined;
}

/** The largest file the job reads, in bytes. */
export function maxFileBytesOf(job: IndexJob): number {
  return job.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
}

/**
 * The job's result read from its snapshot file when that can serve, why not when it cannot, or (with
 * `readTouched: false`) undecided when only reading corpus files could tell.
 */
export type SnapshotCheck = { result: IndexJobResult } | { refused: SnapshotRefusalReport } | { undecided: string };

export async function checkSnapshot(job: IndexJob): Promise<SnapshotCheck> {
  if (job.indexFile === undefined) return { refused: { code: 'missing', reason: 'no snapshot file is configured' } };
  const path = job.indexFile;
  return outcome(async (timings) => {
    const { bytes, header } = readSnapshotFile(path, timings);
    checkHeader(job, path, header);
    const manifest = parseManifest(path, snapshotSection(bytes, header, MANIFEST_SECTION), timings);
    await checkManifest(job, path, manifest, timings);
    return bytes;
  });
}

export interface CheckFromPathsOptions {
  /**
   * Called with the file's resident part (all but the sections read on demand), read into shared
   * memory, and its open descriptor, as soon as the file is found whole and made by the job's engine
   * with its options. Its checksum is left to the caller (`SnapshotInFile.verify`), who must not
   * serve from it before it passes, and who owns the descriptor from then on; the corpus check goes
   * on meanwhile. The result's `bytes` are then the resident part.
   */
  onRead: (snapshot: ResidentSnapshot) => void;
  /** Called once the file's read and the corpus's walk have both settled, whether or not the job has arrived. */
  onPrepared?: () => void;
  /** The snapshot file, already open: read through it and never closed here. */
  fd?: number;
}

/**
 * The boot's check (the worker thread's): reads `target`'s snapshot file and walks its corpus at once,
 * from the paths alone, and decides once `job` (with these very paths) arrives. Reads no corpus file:
 * answers `undecided` where only a file's bytes could tell.
 */
export async function checkSnapshotFromPaths(target: CheckTarget, job: Promise<IndexJob>, { onRead, onPrepared, fd }: CheckFromPathsOptions): Promise<SnapshotCheck> {
  const path = target.indexFile;
  return outcome(async (timings) => {
    const reader = openSnapshotFile(path, fd);
    // The read and the corpus's comparison with the manifest are begun before the job arrives (the
    // long part of a large corpus's check; no file is read, so the job's limits play no part), and
    // settled below in every case: a refusal meanwhile does not count as unhandled.
    const resident = reader.readResident(timings);
    resident.catch(() => undefined);
    let manifest: StoredManifest | SnapshotRefusal;
    try {
      manifest = parseManifest(path, reader.section(MANIFEST_SECTION), timings);
    } catch (error) {
      if (!(error instanceof SnapshotRefusal)) throw error;
      manifest = error; // told once the header is found to be this engine's: a foreign one says so first
    }
    const compared = manifest instanceof SnapshotRefusal ? undefined : compareManifest(path, manifest, target.corpusRoot, Infinity, false, timings, target.excludedFiles);
    compared?.catch(() => undefined);
    if (onPrepared) void Promise.allSettled([resident, compared]).then(onPrepared);
    let handedOver = false;
    try {
      checkHeader(await job, path, reader.header);
      if (manifest instanceof SnapshotRefusal) throw manifest;
      void resident.then((snapshot) => {
        handedOver = true;
        onRead(snapshot);
      });
      await compared;
      return (await resident).resident;
    } finally {
      // The read goes through the server's descriptor: it must have ended before the answer, which
      // may have the server close it.
      await resident.catch(() => undefined);
      if (!handedOver) reader.close();
    }
  });
}

/** `check`'s bytes as a result, or why they cannot serve; timed as `snapshotCheckMs`. */
async function outcome(check: (timings: Record<string, number>) => Promise<Uint8Array>): Promise<SnapshotCheck> {
  const timings: Record<string, number> = {};
  try {
    const bytes = await timer(timings)('snapshotCheckMs', () => check(timings));
    return { result: { bytes, origin: 'snapshot', timings } };
  } catch (error) {
    if (error instanceof UnreadFileError) return { undecided: error.message };
    if (!(error instanceof SnapshotRefusal)) throw error;
    return { refused: { code: error.code, reason: error.message } };
  }
}

/** Refuses a snapshot of another engine or other index options. */
function checkHeader(job: IndexJob, path: string, header: SnapshotHeader): void {
  if (header.engine !== job.engine) {
    throw new SnapshotRefusal('foreign_version', `snapshot ${path} was written by engine ${header.engine}, this is ${job.engine}`);
  }
  const changed = changedOptions(header, job.options);
  if (changed.length > 0) throw new SnapshotRefusal('options_changed', `snapshot ${path} was built with other index options (${changed.join(', ')})`);
}

/** The manifest of the corpus the snapshot was built from; a `SnapshotRefusal` when it cannot be read. */
function parseManifest(path: string, section: Uint8Array | undefined, timings: Record<string, number>): StoredManifest {
  const parseStarted = performance.now();
  try {
    const manifest = decodeManifest(section);
    timings.manifestParseMs = Math.round(performance.now() - parseStarted);
    return manifest;
  } catch (error) {
    if (!(error instanceof ManifestFormatError)) throw error;
    throw new SnapshotRefusal(error.code === 'foreign' ? 'foreign_version' : 'corrupt', `snapshot ${path}: ${error.message}`);
  }
}

/** Refuses a snapshot whose manifest does not match the corpus as it is now. */
async function checkManifest(job: IndexJob, path: string, manifest: StoredManifest, timings: Record<string, number>): Promise<void> {
  await compareManifest(path, manifest, job.corpusRoot, maxFileBytesOf(job), true, timings, job.excludedFiles);
}

async function compareManifest(
  path: string,
  manifest: StoredManifest,
  corpusRoot: string,
  maxFileBytes: number,
  readTouched: boolean,
  timings: Record<string, number>,
  excluded: readonly FileIdentity[] = [],
): Promise<void> {
  const difference = await timer(timings)('manifestMs', () => manifestDifference(manifest, corpusRoot, maxFileBytes, { readTouched, excluded }));
  if (difference !== undefined) throw new SnapshotRefusal('corpus_changed', `the corpus changed since snapshot ${path} was written: ${difference}`);
}

function changedOptions(header: SnapshotHeader, options: SearchIndexOptions): string[] {
  const wanted = resolveSearchOptions(options);
  const stored = (header.options ?? {}) as Record<string, unknown>;
  return Object.entries(wanted)
    .filter(([key, value]) => stored[key] !== value)
    .map(([key, value]) => `${key}: ${String(stored[key])} → ${String(value)}`);
}
