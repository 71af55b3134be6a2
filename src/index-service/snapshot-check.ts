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
import type { StoredManifest } from './corpus-manifest.js';
import { DEFAULT_MAX_FILE_BYTES } from '../corpus/read-document.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { openSnapshotFile, readSnapshotFile, SnapshotRefusal } from './snapshot-file.js';
import type { SnapshotRefusalReport } from './snapshot-file.js';
import type { ResidentSnapshot } from './snapshot-in-file.js';
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

export interface CheckSnapshotOptions {
  /** False: read no corpus file, answer `undecided` where only a file's bytes could tell. */
  readTouched?: boolean;
  /**
   * Given: the file's resident part (all but the sections read on demand) is read into shared memory
   * and handed to `onRead` with the file's open descriptor as soon as it is found whole, and its
   * checksum is left to the caller (`SnapshotInFile.verify`), who must not serve from it before it
   * passes, and who owns the descriptor from then on; the check goes on with the engine, options and
   * corpus meanwhile. The result's `bytes` are then the resident part.
   */
  onRead?: (snapshot: ResidentSnapshot) => void;
  /** The snapshot file, already open (with `onRead`): read through it and never closed here. */
  fd?: number;
}

export async function checkSnapshot(job: IndexJob, { readTouched = true, onRead, fd }: CheckSnapshotOptions = {}): Promise<SnapshotCheck> {
  if (job.indexFile === undefined) return { refused: { code: 'missing', reason: 'no snapshot file is configured' } };
  const timings: Record<string, number> = {};
  try {
    const bytes = await timer(timings)('snapshotCheckMs', () => checkedSnapshot(job, job.indexFile as string, readTouched, timings, onRead, fd));
    return { result: { bytes, origin: 'snapshot', timings } };
  } catch (error) {
    if (error instanceof UnreadFileError) return { undecided: error.message };
    if (!(error instanceof SnapshotRefusal)) throw error;
    return { refused: { code: error.code, reason: error.message } };
  }
}

/**
 * The snapshot's bytes when it is intact and matches; else throws a `SnapshotRefusal` saying why.
 * Records the read, checksum and manifest check (the corpus files' `stat` calls) in `timings`.
 * With `onRead`, the header and the manifest are read first and the resident part of the file is read
 * on the thread pool while this thread walks the corpus: the two take about as long on a large corpus, and
 * one after the other they were the longest stretch of a boot.
 */
async function checkedSnapshot(
  job: IndexJob,
  path: string,
  readTouched: boolean,
  timings: Record<string, number>,
  onRead: CheckSnapshotOptions['onRead'],
  fd: number | undefined,
): Promise<Uint8Array> {
  if (onRead === undefined) {
    const { bytes, header } = readSnapshotFile(path, timings);
    checkHeader(job, path, header);
    await checkManifest(job, path, snapshotSection(bytes, header, MANIFEST_SECTION), readTouched, timings);
    return bytes;
  }
  const reader = openSnapshotFile(path, fd);
  let reading: Promise<ResidentSnapshot> | undefined;
  try {
    checkHeader(job, path, reader.header);
    const manifest = reader.section(MANIFEST_SECTION);
    reading = reader.readResident(timings).then((snapshot) => {
      onRead(snapshot);
      return snapshot;
    });
    // Settled below in every case; this keeps a refusal of the read from counting as unhandled while
    // the corpus is walked.
    reading.catch(() => undefined);
    await checkManifest(job, path, manifest, readTouched, timings);
    return (await reading).resident;
  } finally {
    if (reading === undefined) reader.close();
    // The file stays open until its reads have ended, whatever the check decided.
    else await reading.catch(() => undefined);
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

/** Refuses a snapshot whose manifest (`section`) does not match the corpus as it is now. */
async function checkManifest(job: IndexJob, path: string, section: Uint8Array | undefined, readTouched: boolean, timings: Record<string, number>): Promise<void> {
  let manifest: StoredManifest;
  const parseStarted = performance.now();
  try {
    manifest = decodeManifest(section);
    timings.manifestParseMs = Math.round(performance.now() - parseStarted);
  } catch (error) {
    if (!(error instanceof ManifestFormatError)) throw error;
    throw new SnapshotRefusal(error.code === 'foreign' ? 'foreign_version' : 'corrupt', `snapshot ${path}: ${error.message}`);
  }
  const difference = await timer(timings)('manifestMs', () => manifestDifference(manifest, job.corpusRoot, maxFileBytesOf(job), { readTouched }));
  if (difference !== undefined) throw new SnapshotRefusal('corpus_changed', `the corpus changed since snapshot ${path} was written: ${difference}`);
}

function changedOptions(header: SnapshotHeader, options: SearchIndexOptions): string[] {
  const wanted = resolveSearchOptions(options);
  const stored = (header.options ?? {}) as Record<string, unknown>;
  return Object.entries(wanted)
    .filter(([key, value]) => stored[key] !== value)
    .map(([key, value]) => `${key}: ${String(stored[key])} → ${String(value)}`);
}
