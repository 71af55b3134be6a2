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
import type { Manifest } from './corpus-manifest.js';
import { DEFAULT_MAX_FILE_BYTES } from '../corpus/read-document.js';
import type { IndexJob, IndexJobResult } from './index-job-spec.js';
import { readSnapshotFile, readSnapshotFileUnverified, SnapshotRefusal } from './snapshot-file.js';
import type { SnapshotRefusalReport, UnverifiedSnapshot } from './snapshot-file.js';
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
   * Given: the file is read into shared memory and handed to `onRead` as soon as it is found whole,
   * and its checksum is left to the caller (`verifySnapshotDigest`), who must not serve the bytes
   * before it passes; the check goes on with the engine, options and corpus meanwhile.
   */
  onRead?: (snapshot: UnverifiedSnapshot) => void;
}

export async function checkSnapshot(job: IndexJob, { readTouched = true, onRead }: CheckSnapshotOptions = {}): Promise<SnapshotCheck> {
  if (job.indexFile === undefined) return { refused: { code: 'missing', reason: 'no snapshot file is configured' } };
  const timings: Record<string, number> = {};
  try {
    const bytes = await timer(timings)('snapshotCheckMs', () => checkedSnapshot(job, job.indexFile as string, readTouched, timings, onRead));
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
 */
async function checkedSnapshot(
  job: IndexJob,
  path: string,
  readTouched: boolean,
  timings: Record<string, number>,
  onRead: CheckSnapshotOptions['onRead'],
): Promise<Uint8Array> {
  let bytes: Uint8Array;
  let header: SnapshotHeader;
  if (onRead !== undefined) {
    const snapshot = readSnapshotFileUnverified(path, { shared: true, timings });
    ({ bytes, header } = snapshot);
    onRead(snapshot);
  } else {
    ({ bytes, header } = readSnapshotFile(path, timings));
  }
  if (header.engine !== job.engine) {
    throw new SnapshotRefusal('foreign_version', `snapshot ${path} was written by engine ${header.engine}, this is ${job.engine}`);
  }
  const changed = changedOptions(header, job.options);
  if (changed.length > 0) throw new SnapshotRefusal('options_changed', `snapshot ${path} was built with other index options (${changed.join(', ')})`);
  const section = snapshotSection(bytes, header, MANIFEST_SECTION);
  let manifest: Manifest;
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
  return bytes;
}

function changedOptions(header: SnapshotHeader, options: SearchIndexOptions): string[] {
  const wanted = resolveSearchOptions(options);
  const stored = (header.options ?? {}) as Record<string, unknown>;
  return Object.entries(wanted)
    .filter(([key, value]) => stored[key] !== value)
    .map(([key, value]) => `${key}: ${String(stored[key])} → ${String(value)}`);
}
