// The work of producing an index, as it runs in the build process (index-child.ts) and in `npm run
// index`: use the snapshot file when it is intact and matches the corpus, the options and the engine
// (unless the caller has already refused it); otherwise load the corpus, build, encode and write a
// fresh snapshot. Either way the result is one encoded snapshot (bytes) that the main
// thread decodes, so an index served from a snapshot and one freshly built are the same bytes.
import { compareSources, type CorpusWarning, type Document, type SkippedFile } from '../corpus/document.js';
import { loadCorpus, type LoadCorpusOptions, type LoadProgress } from '../corpus/load-corpus.js';
import type { WalkResult } from '../corpus/walk-corpus.js';
import { SearchIndexBuild } from '../search/search-index-build.js';
import { tokenizeBatch } from '../search/tokenize-batch.js';
import { readKept, reuseKey, unchanged, writeKept, type KeptFile } from './build-reuse.js';
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
  const onIndexing = (total: number): ((done: number, chunks: number) => void) | undefined => {
    onProgress?.({ phase: 'index', done: 0, total, chunks: 0 });
    return onProgress && ((done: number, chunks: number) => onProgress({ phase: 'index', done, total, chunks }));
  };
  const loadOptions = {
    maxFileBytes,
    excluded,
    onRead: (source: string, bytes: Uint8Array) => digests.set(source, contentDigest(bytes)),
    ...(onLoad ? { onProgress: onLoad } : {}),
  };
  let built: { index: SearchIndex; skipped: SkippedFile[]; warnings: CorpusWarning[] };
  if (job.reuseFile !== undefined && walked !== undefined) {
    built = await buildReusing(job, job.reuseFile, walked, loadOptions, digests, onIndexing, timed);
  } else {
    const corpus = await timed('loadMs', () => loadCorpus(job.corpusRoot, { ...loadOptions, ...(walked ? { walked } : {}) }));
    const onIndexed = onIndexing(corpus.documents.length);
    const index = await timed('buildMs', () => SearchIndex.build(corpus.documents, job.options, onIndexed));
    built = { index, skipped: corpus.skipped, warnings: corpus.warnings ?? [] };
  }
  const { index } = built;
  const manifest = manifestOf(walked?.files ?? [], digests);
  const meta: SnapshotMeta = { skipped: built.skipped, warnings: built.warnings };
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


/**
 * The reload's build (build-reuse.ts): documents and tokens of files unchanged since the build that
 * wrote `reuseFile` are taken from it; only the others are read, extracted and tokenized.
 */
async function buildReusing(
  job: IndexJob,
  reuseFile: string,
  walked: WalkResult,
  loadOptions: LoadCorpusOptions,
  digests: Map<string, string>,
  onIndexing: (total: number) => ((done: number, chunks: number) => void) | undefined,
  timed: ReturnType<typeof timer>,
): Promise<{ index: SearchIndex; skipped: SkippedFile[]; warnings: CorpusWarning[] }> {
  const key = reuseKey(job);
  const previous = await timed('reuseReadMs', () => readKept(reuseFile, key));
  const kept = new Map<string, KeptFile>();
  const changed = walked.files.filter((file) => {
    const entry = previous.get(file.source);
    if (entry === undefined || !unchanged(entry, file)) return true;
    kept.set(file.source, entry);
    if (entry.digest !== undefined) digests.set(file.source, entry.digest);
    return false;
  });
  const corpus = await timed('loadMs', () =>
    loadCorpus(job.corpusRoot, { ...loadOptions, walked: { files: changed, skipped: walked.skipped }, allowEmpty: kept.size > 0 }),
  );
  const documents: Document[] = [...corpus.documents, ...[...kept.values()].map((entry) => entry.document)];
  const warnings = [...(corpus.warnings ?? []), ...[...kept.values()].flatMap((entry) => (entry.warning ? [entry.warning] : []))];
  warnings.sort((a, b) => compareSources(a.path, b.path));
  const fresh = new Map(corpus.documents.map((document) => [document.source, document]));
  const warningOf = new Map((corpus.warnings ?? []).map((warning) => [warning.path, warning]));
  const onIndexed = onIndexing(documents.length);
  const index = await timed('buildMs', async () => {
    const build = new SearchIndexBuild(documents, job.options);
    const files = new Map<string, KeptFile>();
    const candidates = new Map(walked.files.map((file) => [file.source, file]));
    let chunks = 0;
    const batches = build.documents.map((document, d) => {
      const entry = fresh.has(document.source) ? undefined : kept.get(document.source);
      const batch = entry?.batch ?? tokenizeBatch([document], build.options);
      chunks += batch.chunkStart.length;
      onIndexed?.(d + 1, chunks);
      const file = candidates.get(document.source) as (typeof walked.files)[number];
      const warning = entry !== undefined ? entry.warning : warningOf.get(document.source);
      files.set(document.source, {
        size: file.size,
        mtimeMs: file.mtimeMs,
        ctimeMs: file.ctimeMs,
        dev: file.identity.dev,
        ino: file.identity.ino,
        digest: digests.get(document.source),
        document,
        ...(warning ? { warning } : {}),
        batch,
      });
      return batch;
    });
    // Written before the assembler renumbers the batches in place.
    await writeKept(reuseFile, key, files);
    for (const batch of batches) build.add(batch);
    const { parts, inverted } = build.finish();
    return SearchIndex.fromParts(parts, inverted);
  });
  return { index, skipped: corpus.skipped, warnings };
}
