import { realpath, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CorpusError } from './corpus-error.js';
import { compareSources as compare, type CorpusWarning, type Document, type LoadedCorpus, type SkippedFile } from './document.js';
import { DEFAULT_EXTRACTION_LIMITS, extractDocument } from './extract/extract-document.js';
import { checkExtractionPoolOptions } from './extract/extraction-pool-options.js';
import { startFilePrefetch, type FilePrefetch } from './file-prefetch.js';
import { formatInfo, listExtensions } from './formats.js';
import { DEFAULT_MAX_FILE_BYTES, type Extract, type OnRead, readDocument } from './read-document.js';
import type { FileIdentity } from './file-identity.js';
import { describeError, walkCorpus, type FileCandidate, type WalkResult } from './walk-corpus.js';

export interface LoadCorpusOptions {
  /** Files larger than this many bytes are skipped. Default 10 MB (10 × 1024 × 1024); at least 1. */
  maxFileBytes?: number;
  /** Files read at the same time. Default 16; at least 1. Bounds open file handles and memory. */
  concurrency?: number;
  /** Longest one HTML, PDF or DOCX file may take to extract, in milliseconds. Default 30000; at least 1. */
  extractionTimeoutMs?: number;
  /** Heap one extraction worker may use, in MB. Default 512; at least 16. */
  extractionMemoryMb?: number;
  /** Extraction worker threads. Default 2; at least 1. */
  extractionThreads?: number;
  /** A PDF with more pages is skipped. Default 2000; at least 1. */
  maxPages?: number;
  /** The walk of the root to read, when the caller has made it already (e.g. for a manifest); default a fresh walk. */
  walked?: WalkResult;
  /** Files a fresh walk never reads, whatever path leads to them (see walk-corpus.ts). Default none. */
  excluded?: readonly FileIdentity[];
  /** Told the bytes of every file read (see read-document.ts). */
  onRead?: OnRead;
  /** Told after every file read and every file done with (a document or a skip); cheap to call often. */
  onProgress?: (progress: LoadProgress) => void;
}

/** Files of the walk: `read` from disk so far, `done` (extracted or skipped) out of `total`. */
export interface LoadProgress {
  read: number;
  done: number;
  total: number;
}

const DEFAULT_EXTRACTION = { timeoutMs: 30_000, memoryMb: 512, threads: 2 } as const;
const DEFAULT_CONCURRENCY = 16;
const FILES = `${listExtensions('or')} files`;
const WHAT_TO_INDEX = `a folder of ${FILES}`;

/**
 * Loads every indexable file under `root` into memory.
 *
 * Indexes every file type listed in formats.ts (extension compared case-insensitively) in all
 * nested folders, and records everything else under the root in `skipped` with a reason: other file
 * types, hidden files and folders, node_modules, symbolic links leading outside the root, files over the
 * size limit, binary files, text that is not UTF-8, and empty files.
 *
 * @throws CorpusError when the root does not exist, is not a folder, cannot be read, or yields no
 *   documents: the server must refuse to start rather than serve an empty index.
 */
export async function loadCorpus(root: string, options: LoadCorpusOptions = {}): Promise<LoadedCorpus> {
  const {
    maxFileBytes = DEFAULT_MAX_FILE_BYTES,
    concurrency = DEFAULT_CONCURRENCY,
    extractionTimeoutMs = DEFAULT_EXTRACTION.timeoutMs,
    extractionMemoryMb = DEFAULT_EXTRACTION.memoryMb,
    extractionThreads = DEFAULT_EXTRACTION.threads,
    maxPages = DEFAULT_EXTRACTION_LIMITS.maxPages,
  } = options;
  if (!Number.isSafeInteger(maxFileBytes) || maxFileBytes < 1) {
    throw new RangeError(`maxFileBytes must be a positive integer number of bytes, got ${String(maxFileBytes)}`);
  }
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${String(concurrency)}`);
  }
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) throw new RangeError(`maxPages must be a positive integer, got ${String(maxPages)}`);
  const limits = { ...DEFAULT_EXTRACTION_LIMITS, maxPages };
  const poolOptions = { timeoutMs: extractionTimeoutMs, memoryMb: extractionMemoryMb, threads: extractionThreads, limits };
  checkExtractionPoolOptions(poolOptions);

  const absolute = resolve(root);
  const named = root === absolute ? absolute : `${absolute} (from "${root}")`;
  const fail = (code: CorpusError['code'], cause: string, todo: string, error?: unknown): CorpusError =>
    new CorpusError(code, absolute, `CORPUS_DIR ${named} ${cause}: ${todo}`, { cause: error });

  let rootReal: string;
  try {
    const info = await stat(absolute);
    if (!info.isDirectory()) {
      throw fail('not_a_directory', 'is a file, not a folder', `set CORPUS_DIR to ${WHAT_TO_INDEX}`);
    }
    rootReal = await realpath(absolute);
  } catch (error) {
    if (error instanceof CorpusError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw fail('not_found', 'does not exist', `set CORPUS_DIR to ${WHAT_TO_INDEX}`, error);
    }
    throw unreadable(error);
  }

  let walked: WalkResult;
  try {
    walked = options.walked ?? (await walkCorpus(rootReal, undefined, { excluded: options.excluded ?? [] }));
  } catch (error) {
    throw unreadable(error);
  }

  const documents: Document[] = [];
  const warnings: CorpusWarning[] = [];
  const skipped: SkippedFile[] = [...walked.skipped];
  // Formats whose parsers a hostile file could stall run in worker threads with a time limit; the
  // pool exists only while files of those formats are read.
  const pool = walked.files.some((file) => formatInfo(file.format).isolated)
    ? (await import('./extract/extraction-pool.js')).createExtractionPool(poolOptions)
    : undefined;
  const extract: Extract = (format, input) =>
    pool !== undefined && formatInfo(format).isolated ? pool.extract(format, input) : extractDocument(format, input, limits);
  const progress: LoadProgress = { read: 0, done: 0, total: walked.files.length };
  const { onProgress } = options;
  const onRead: OnRead | undefined =
    onProgress === undefined
      ? options.onRead
      : (source, bytes) => {
          options.onRead?.(source, bytes);
          progress.read += 1;
          onProgress({ ...progress });
        };
  let prefetch: FilePrefetch | undefined;
  try {
    prefetch = startFilePrefetch(walked.files, maxFileBytes);
    onProgress?.({ ...progress });
    await forEachConcurrently(walked.files, concurrency, async (file: FileCandidate) => {
      const outcome = await readDocument(file, maxFileBytes, extract, onRead);
      progress.done += 1;
      prefetch?.advance(progress.done);
      onProgress?.({ ...progress });
      if (outcome.kind === 'skipped') {
        skipped.push(outcome.skipped);
        return;
      }
      documents.push(outcome.document);
      if (outcome.warning) warnings.push(outcome.warning);
    });
  } finally {
    await Promise.all([pool?.close(), prefetch?.stop()]);
  }

  documents.sort((a, b) => compare(a.source, b.source));
  skipped.sort((a, b) => compare(a.path, b.path));
  warnings.sort((a, b) => compare(a.path, b.path));

  if (documents.length === 0) {
    const found = skipped.length === 0 ? 'is empty' : `contains no documents to index (${summarise(skipped)})`;
    throw fail('no_documents', found, `add ${FILES} to it, or set CORPUS_DIR to another folder`);
  }
  return { root: absolute, documents, skipped, warnings };

  function unreadable(error: unknown): CorpusError {
    return fail(
      'unreadable',
      `cannot be read (${describeError(error)})`,
      `give the server's user read access to it, or set CORPUS_DIR to ${WHAT_TO_INDEX}`,
      error,
    );
  }
}

/** "3 skipped: 2 × unsupported file type .odt …, 1 × hidden folder", most frequent reasons first. */
function summarise(skipped: readonly SkippedFile[]): string {
  const counts = new Map<string, number>();
  for (const { reason } of skipped) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]));
  const shown = top.slice(0, 3).map(([reason, count]) => `${count} × ${reason}`);
  if (top.length > 3) shown.push(`${top.length - 3} other reasons`);
  return `${skipped.length} skipped: ${shown.join('; ')}`;
}

async function forEachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
