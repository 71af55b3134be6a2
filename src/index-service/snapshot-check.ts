// Whether a snapshot file can serve instead of a build: intact (snapshot-file.ts), written by this
// engine with these index options, and matching the corpus as it is now (corpus-manifest.ts). It
// loads no extractor, so a check costs no parser's start-up; the server runs it in a worker thread
// (snapshot-check-worker.ts), the build process and `npm run index` run it inline.
import { DEFAULT_MAX_FILE_BYTES } from '../corpus/read-document.js';
import { snapshotSection } from '../search/index-snapshot.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';
import { resolveSearchOptions } from '../search/search-options.js';
import type { SearchIndexOptions } from '../search/search-index.js';
import { manifestDifference } from './corpus-manifest.js';
import type { Manifest } from './corpus-manifest.js';
import type { IndexJob, IndexJobResult, SnapshotRefusalReport } from './index-job.js';
import { readSnapshotFile, SnapshotRefusal } from './snapshot-file.js';
import { timer } from './timer.js';

/** The snapshot section that holds the manifest of the corpus it was built from. */
export const MANIFEST_SECTION = 'manifest';

/** The job's result read from its snapshot file when that can serve; otherwise why not. */
export async function useSnapshot(job: IndexJob): Promise<{ result: IndexJobResult } | { refused: SnapshotRefusalReport }> {
  if (job.indexFile === undefined) return { refused: { code: 'missing', reason: 'no snapshot file is configured' } };
  const timings: Record<string, number> = {};
  try {
    const bytes = await timer(timings)('snapshotCheckMs', () => checkedSnapshot(job, job.indexFile as string, job.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES));
    return { result: { bytes, origin: 'snapshot', timings } };
  } catch (error) {
    if (!(error instanceof SnapshotRefusal)) throw error;
    return { refused: { code: error.code, reason: error.message } };
  }
}

/** The snapshot's bytes when it is intact and matches; else throws a `SnapshotRefusal` saying why. */
async function checkedSnapshot(job: IndexJob, path: string, maxFileBytes: number): Promise<Uint8Array> {
  const { bytes, header } = readSnapshotFile(path);
  if (header.engine !== job.engine) {
    throw new SnapshotRefusal('foreign_version', `snapshot ${path} was written by engine ${header.engine}, this is ${job.engine}`);
  }
  const changed = changedOptions(header, job.options);
  if (changed.length > 0) throw new SnapshotRefusal('options_changed', `snapshot ${path} was built with other index options (${changed.join(', ')})`);
  const section = snapshotSection(bytes, header, MANIFEST_SECTION);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(section)) as Manifest;
    if (!Array.isArray(manifest)) throw new TypeError('not a list');
  } catch {
    throw new SnapshotRefusal('corrupt', `snapshot ${path} has no readable manifest of the corpus`);
  }
  const difference = await manifestDifference(manifest, job.corpusRoot, maxFileBytes);
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
