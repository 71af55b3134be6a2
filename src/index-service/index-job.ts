// The work of producing an index, as it runs in the build process (index-child.ts) and in `npm run
// index`: use the snapshot file when it is intact and matches the corpus, the options and the engine
// (unless the caller has already refused it); otherwise load the corpus, build, encode and write a
// fresh snapshot. Either way the result is one encoded snapshot (bytes) that the main
// thread decodes, so an index served from a snapshot and one freshly built are the same bytes.
import { availableCpus } from '../available-cpus.js';
import { compareSources, type CorpusWarning, type SkippedFile } from '../corpus/document.js';
import { loadCorpus, type LoadProgress } from '../corpus/load-corpus.js';
import type { WalkResult } from '../corpus/walk-corpus.js';
import { SearchIndexBuild } from '../search/search-index-build.js';
import { resolveSearchOptions } from '../search/search-options.js';
import { encodeIndexSnapshot } from '../search/snapshot-encode.js';
import { SearchIndex } from '../search/search-index.js';
import { contentDigest, encodeManifest, manifestOf, walkForManifest } from './corpus-manifest.js';
import { checkSnapshot, MANIFEST_SECTION, maxFileBytesOf, needsSnapshotCheck } from './snapshot-check.js';
import { loadInParallel, PARALLEL_MIN_FILES } from './parallel-load.js';
import { writeSnapshotFile } from './snapshot-file.js';
import { timer } from './timer.js';
import type { BuildPhase, BuildProgress } from './build-progress.js';
import type { IndexJob, IndexJobResult, SnapshotMeta } from './index-job-spec.js';

export interface RunIndexJobOptions {
  /** Told the phase under way and its counts, as often as every file and every document: throttle it. */
  onProgress?: (progress: BuildProgress) => void;
  /** Corpora of at least this many files are read and tokenized on two threads when two CPUs are free. Default PARALLEL_MIN_FILES. */
  parallelFrom?: number;
}

export async function runIndexJob(job: IndexJob, { onProgress, parallelFrom = PARALLEL_MIN_FILES }: RunIndexJobOptions = {}): Promise<IndexJobResult> {
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
  const walked = await timed('walkMs', () => walkForManifest(job.corpusRoot));
  const built = walked && walked.files.length >= parallelFrom && availableCpus() >= 2
    ? await buildInParallel(job, walked, maxFileBytes, timed, onProgress)
    : await buildOnThisThread(job, walked, maxFileBytes, timed, onProgress);
  const { index, digests } = built;
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


/** An index built, and what the snapshot's manifest and meta need of the load. */
interface Built {
  index: SearchIndex;
  digests: Map<string, string>;
  skipped: SkippedFile[];
  warnings: CorpusWarning[];
}

type Timed = ReturnType<typeof timer>;

async function buildOnThisThread(job: IndexJob, walked: WalkResult | undefined, maxFileBytes: number, timed: Timed, onProgress?: (progress: BuildProgress) => void): Promise<Built> {
  const digests = new Map<string, string>();
  const onLoad = onProgress && (({ read, done, total }: LoadProgress) => onProgress({ phase: 'read', done, total, read }));
  const corpus = await timed('loadMs', () =>
    loadCorpus(job.corpusRoot, {
      maxFileBytes,
      ...(walked ? { walked } : {}),
      onRead: (source, bytes) => digests.set(source, contentDigest(bytes)),
      ...(onLoad ? { onProgress: onLoad } : {}),
    }),
  );
  const total = corpus.documents.length;
  onProgress?.({ phase: 'index', done: 0, total, chunks: 0 });
  const onIndexed = onProgress && ((done: number, chunks: number) => onProgress({ phase: 'index', done, total, chunks }));
  const index = await timed('buildMs', () => SearchIndex.build(corpus.documents, job.options, onIndexed));
  return { index, digests, skipped: corpus.skipped, warnings: corpus.warnings ?? [] };
}

/** Files read and tokenized on two threads (parallel-load.ts), their batches merged here in source order. */
async function buildInParallel(job: IndexJob, walked: WalkResult, maxFileBytes: number, timed: Timed, onProgress?: (progress: BuildProgress) => void): Promise<Built> {
  const { chunkWords, overlapWords } = resolveSearchOptions(job.options);
  const spec = { root: job.corpusRoot, maxFileBytes, chunker: { chunkWords, overlapWords } };
  const runs = await timed('loadMs', () => loadInParallel(spec, walked.files, onProgress));
  const documents = runs.flatMap((run) => run.documents);
  // No documents at all: the serial load says so, in the words it uses for a corpus of any size.
  if (documents.length === 0) return buildOnThisThread(job, walked, maxFileBytes, timed, onProgress);
  const digests = new Map<string, string>();
  for (const { digests: pairs } of runs) for (let i = 0; i + 1 < pairs.length; i += 2) digests.set(pairs[i] as string, pairs[i + 1] as string);
  const byPath = (a: { path: string }, b: { path: string }): number => compareSources(a.path, b.path);
  const skipped = [...walked.skipped, ...runs.flatMap((run) => run.skipped)].sort(byPath);
  const warnings = runs.flatMap((run) => run.warnings).sort(byPath);
  const index = await timed('buildMs', () => {
    const build = new SearchIndexBuild(documents, job.options);
    for (const run of runs) build.add(run.batch);
    const { parts, inverted } = build.finish();
    return SearchIndex.fromParts(parts, inverted);
  });
  return { index, digests, skipped, warnings };
}
