// The work of producing an index, as it runs in the build process (index-child.ts) and in `npm run
// index`: use the snapshot file when it is intact and matches the corpus, the options and the engine
// (unless the caller has already refused it); otherwise load the corpus, build, encode and write a
// fresh snapshot. Either way the result is one encoded snapshot (bytes) that the main
// thread decodes, so an index served from a snapshot and one freshly built are the same bytes.
import { loadCorpus, type LoadProgress } from '../corpus/load-corpus.js';
import { encodeIndexSnapshot } from '../search/snapshot-encode.js';
import { SearchIndex } from '../search/search-index.js';
import { contentDigest, encodeManifest, manifestOf, walkForManifest } from './corpus-manifest.js';
import { checkSnapshot, MANIFEST_SECTION, maxFileBytesOf, needsSnapshotCheck } from './snapshot-check.js';
import { writeSnapshotFile } from './snapshot-file.js';
import { timer } from './timer.js';
import type { BuildPhase, BuildProgress } from './build-progress.js';
import type { IndexJob, IndexJobResult, SnapshotMeta } from './index-job-spec.js';

export interface RunIndexJobOptions {
  /** Told the phase under way and its counts, as often as every file and every document: throttle it. */
  onProgress?: (progress: BuildProgress) => void;
}

export async function runIndexJob(job: IndexJob, { onProgress }: RunIndexJobOptions = {}): Promise<IndexJobResult> {
  const timings: Record<string, number> = {};
  const timed = timer(timings);
  const maxFileBytes = maxFileBytesOf(job);
  const entered = (phase: BuildPhase): void => onProgress?.({ phase, done: 0, total: 0 });

  let refused = job.snapshotRefused;
  if (needsSnapshotCheck(job)) {
    entered('check');
    const checked = await checkSnapshot(job);
    if ('result' in checked) return checked.result;
    if ('refused' in checked) refused = checked.refused;
  }

  // One walk serves the manifest and the load, so the manifest lists exactly the files read.
  entered('walk');
  const excluded = job.excludedFiles ?? [];
  const walked = await timed('walkMs', () => walkForManifest(job.corpusRoot, undefined, excluded));
  const digests = new Map<string, string>();
  const onLoad = onProgress && (({ read, done, total }: LoadProgress) => onProgress({ phase: 'read', done, total, read }));
  const corpus = await timed('loadMs', () =>
    loadCorpus(job.corpusRoot, {
      maxFileBytes,
      ...(walked ? { walked } : {}),
      excluded,
      onRead: (source, bytes) => digests.set(source, contentDigest(bytes)),
      ...(onLoad ? { onProgress: onLoad } : {}),
    }),
  );
  const total = corpus.documents.length;
  onProgress?.({ phase: 'index', done: 0, total, chunks: 0 });
  const onIndexed = onProgress && ((done: number, chunks: number) => onProgress({ phase: 'index', done, total, chunks }));
  const index = await timed('buildMs', () => SearchIndex.build(corpus.documents, job.options, onIndexed));
  const manifest = manifestOf(walked?.files ?? [], digests);
  const meta: SnapshotMeta = { skipped: corpus.skipped, warnings: corpus.warnings ?? [] };
  entered('encode');
  const bytes = await timed('encodeMs', () =>
    encodeIndexSnapshot(index, { engine: job.engine, meta, extra: { [MANIFEST_SECTION]: encodeManifest(manifest) } }),
  );
  let writeError: string | undefined;
  if (job.indexFile !== undefined) {
    entered('write');
    try {
      await timed('writeMs', () => writeSnapshotFile(job.indexFile as string, bytes));
    } catch (error) {
      writeError = `snapshot ${job.indexFile} could not be written (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
  }
  return { bytes, origin: 'build', ...(refused ? { refused } : {}), ...(writeError ? { writeError } : {}), timings };
}

