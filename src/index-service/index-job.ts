// The work of producing an index, as it runs in the build process (index-child.ts) and in `npm run
// index`: use the snapshot file when it is intact and matches the corpus, the options and the engine
// (unless the caller has already refused it); otherwise load the corpus, build, encode and write a
// fresh snapshot. Either way the result is one encoded snapshot (bytes) that the main
// thread decodes, so an index served from a snapshot and one freshly built are the same bytes.
import { loadCorpus } from '../corpus/load-corpus.js';
import type { CorpusWarning, SkippedFile } from '../corpus/document.js';
import { encodeIndexSnapshot } from '../search/index-snapshot.js';
import { SearchIndex } from '../search/search-index.js';
import type { SearchIndexOptions } from '../search/search-index.js';
import { contentDigest, encodeManifest, manifestOf, walkForManifest } from './corpus-manifest.js';
import { checkSnapshot, MANIFEST_SECTION, maxFileBytesOf, needsSnapshotCheck } from './snapshot-check.js';
import { writeSnapshotFile } from './snapshot-file.js';
import type { SnapshotRefusalCode } from './snapshot-file.js';
import { timer } from './timer.js';

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
  /**
   * Set when the caller has already checked `indexFile` and refused it (see produce-index.ts): the
   * job builds and writes a fresh snapshot without reading the old one again.
   */
  snapshotRefused?: SnapshotRefusalReport;
}

/** Why a snapshot file was not used. */
export interface SnapshotRefusalReport {
  code: SnapshotRefusalCode;
  reason: string;
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
  refused?: SnapshotRefusalReport;
  /** Set when writing the snapshot after a build failed (the build itself is still served). */
  writeError?: string;
  timings: Record<string, number>;
}

export async function runIndexJob(job: IndexJob): Promise<IndexJobResult> {
  const timings: Record<string, number> = {};
  const timed = timer(timings);
  const maxFileBytes = maxFileBytesOf(job);

  let refused = job.snapshotRefused;
  if (needsSnapshotCheck(job)) {
    const checked = await checkSnapshot(job);
    if ('result' in checked) return checked.result;
    if ('refused' in checked) refused = checked.refused;
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
    encodeIndexSnapshot(index, { engine: job.engine, meta, extra: { [MANIFEST_SECTION]: encodeManifest(manifest) } }),
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

