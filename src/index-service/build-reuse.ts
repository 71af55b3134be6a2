// What a build keeps for the next one: every document it extracted, with its warning and its chunks
// tokenized on their own, keyed by the file's stat when walked (size, modification and status-change
// times, device and inode: the manifest's test of an unchanged file, corpus-manifest.ts). A reload
// then reads, extracts and tokenizes only the files whose stat changed; the index itself (its
// vocabulary and BM25 statistics) is assembled again from every file's batch, which gives the same
// index however the documents were cut into batches (tokenize-batch.ts). The file is private to the
// server (its own mkdtemp folder) and is written whole under another name, then renamed: a build that
// dies half-way leaves the previous one, and one that cannot be read or was kept under other options
// or another engine is ignored, so the next build is a full one.
import { readFile, rename, writeFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import type { CorpusWarning, Document } from '../corpus/document.js';
import type { FileCandidate } from '../corpus/walk-corpus.js';
import type { TokenizedBatch } from '../search/tokenize-batch.js';
import type { IndexJob } from './index-job-spec.js';
import { maxFileBytesOf } from './snapshot-check.js';

/** Raised whenever what is kept changes shape: a file of another format is ignored. */
const REUSE_FORMAT = 1;

export interface KeptFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  dev: number;
  ino: number;
  digest: string | undefined;
  document: Document;
  warning?: CorpusWarning;
  /** `tokenizeBatch([document])`, before any assembler renumbered it. */
  batch: TokenizedBatch;
}

/** Everything a kept file's document and tokens depend on besides its bytes. */
export function reuseKey(job: IndexJob): string {
  return JSON.stringify([REUSE_FORMAT, job.engine, job.options, maxFileBytesOf(job)]);
}

/** The files `file` kept under `key`; none when it is missing, unreadable or kept under another key. */
export async function readKept(file: string, key: string): Promise<Map<string, KeptFile>> {
  try {
    const stored = deserialize(await readFile(file)) as { key?: unknown; files?: unknown };
    if (stored.key === key && stored.files instanceof Map) return stored.files as Map<string, KeptFile>;
  } catch {
    // Missing (the first build) or damaged: a full build, which writes it afresh.
  }
  return new Map();
}

/** True when the walk saw `file` as the kept one was seen: same size, times and identity. */
export function unchanged(kept: KeptFile, file: FileCandidate): boolean {
  return (
    kept.size === file.size &&
    kept.mtimeMs === file.mtimeMs &&
    kept.ctimeMs === file.ctimeMs &&
    kept.dev === file.identity.dev &&
    kept.ino === file.identity.ino
  );
}

/** Writes `files` for the next build; false when it could not (that build is then a full one). */
export async function writeKept(file: string, key: string, files: Map<string, KeptFile>): Promise<boolean> {
  const partial = `${file}.partial`;
  try {
    await writeFile(partial, serialize({ key, files }), { mode: 0o600 });
    await rename(partial, file);
    return true;
  } catch {
    return false;
  }
}
