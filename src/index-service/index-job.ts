// The work of producing an index, as it runs in the build process (index-child.ts): use the snapshot file when it is
// intact and matches the corpus, the options and the engine; otherwise load the corpus, build, encode
// and write a fresh snapshot. Either way the result is one encoded snapshot (bytes) that the main
// thread decodes, so an index served from a snapshot and one freshly built are the same bytes.
import { DEFAULT_MAX_FILE_BYTES, loadCorpus } from '../corpus/load-corpus.js';
import type { CorpusWarning, SkippedFile } from '../corpus/document.js';
import { encodeIndexSnapshot, snapshotSection } from '../search/index-snapshot.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';
import { SearchIndex } from '../search/search-index.js';
import type { SearchIndexOptions } from '../search/search-index.js';
import { resolveSearchOptions } from '../search/search-options.js';
import { contentDigest, manifestDifference, manifestOf, walkForManifest } from './corpus-manifest.js';
import type { Manifest } from './corpus-manifest.js';
import { readSnapshotFile, SnapshotRefusal, writeSnapshotFile } from './snapshot-file.js';
import type { SnapshotRefusalCode } from './snapshot-file.js';

export interface IndexJob {
  /** Absolute path of the corpus folder. */
  corpusRoot: string;
  options: SearchIndexOptions;
  /** Identifies the code that builds indexes (see engine-version.ts). */
  engine: string;
  /** Snapshot file to boot from when it matches, and to write after a build. Default none. */
  indexFile?: string;
  /** Largest file read, in bytes; default the corpus loader's. */
  maxFileBytes?: number;
}

/** What the snapshot's header carries besides the index: what the tools report beside it. */
export interface SnapshotMeta {
  skipped: SkippedFile[];
  warnings: CorpusWarning[];
}

export interface IndexJobResult {
  /** The encoded index (see src/search/index-snapshot.ts). */
  bytes: Uint8Array;
  origin: 'snapshot' | 'build';
  /** Why the snapshot file was not used, when there is one configured and it was not. */
  refused?: { code: SnapshotRefusalCode; reason: string };
  /** Set when writing the snapshot after a build failed (the build itself is still served). */
  writeError?: string;
  timings: Record<string, number>;
}

/** Data sections the index does not need but a snapshot carries. */
const MANIFEST_SECTION = 'manifest';

export async function runIndexJob(job: IndexJob): Promise<IndexJobResult> {
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[name] = Math.round(performance.now() - started);
    }
  };
  const maxFileBytes = job.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;

  let refused: IndexJobResult['refused'];
  if (job.indexFile !== undefined) {
    try {
      const bytes = await timed('snapshotCheckMs', () => checkedSnapshot(job, job.indexFile as string, maxFileBytes));
      return { bytes, origin: 'snapshot', timings };
    } catch (error) {
      if (!(error instanceof SnapshotRefusal)) throw error;
      refused = { code: error.code, reason: error.message };
    }
  }

  // One walk serves the manifest and the load, so the manifest lists exactly the files read.
  const walked = await timed('walkMs', () => walkForManifest(job.corpusRoot));
  const digests = new Map<string, string>();
  const corpus = await timed('loadMs', () =>
    loadCorpus(job.corpusRoot, { maxFileBytes, ...(walked ? { walked } : {}), onRead: (source, bytes) => digests.set(source, contentDigest(bytes)) }),
  );
  const index = await timed('buildMs', () => SearchIndex.build(corpus.documents, job.options));
  const manifest = manifestOf(walked?.files ?? [], digests);
  const meta: SnapshotMeta = { skipped: corpus.skipped, warnings: corpus.warnings ?? [] };
  const bytes = await timed('encodeMs', () =>
    encodeIndexSnapshot(index, { engine: job.engine, meta, extra: { [MANIFEST_SECTION]: new TextEncoder().encode(JSON.stringify(manifest)) } }),
  );
  let writeError: string | undefined;
  if (job.indexFile !== undefined) {
    try {
      await timed('writeMs', () => writeSnapshotFile(job.indexFile as string, bytes));
    } catch (error) {
      writeError = `snapshot ${job.indexFile} could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
  }
  return { bytes, origin: 'build', ...(refused ? { refused } : {}), ...(writeError ? { writeError } : {}), timings };
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
