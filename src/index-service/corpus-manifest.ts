// The manifest a snapshot carries: every file the walk would read, with its size, modification and
// status-change times, inode and a digest of its bytes. A snapshot is served only when the corpus
// still matches it.
//
// Checking reads no file whose stat is unchanged in every one of those (as git does: a user can put
// a modification time back, with `cp -p`, `rsync -t` or tar, but not a status-change time or an
// inode); a file whose stat changed in any way but whose size did not is read again and its bytes
// digested, never extracted, so touching a file, or copying the folder into an image, does not force
// a rebuild, and a check costs a hash, not a PDF parse. The manifest is the walk the build itself reads from, taken *before*
// the files are read: a file edited during the build then differs from it at the next check and is
// read again, never trusted stale.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { CodedError } from '../coded-error.js';
import { readCandidateBytes } from '../corpus/read-document.js';
import { walkCorpus } from '../corpus/walk-corpus.js';
import type { FileCandidate, WalkResult } from '../corpus/walk-corpus.js';

/**
 * One candidate file: `[source, size in bytes, mtime in ms, ctime in ms, inode, digest of its bytes or
 * null when they could not be read]`.
 */
export type ManifestEntry = [source: string, size: number, mtimeMs: number, ctimeMs: number, ino: number, digest: string | null];

/** Sorted by source. */
export type Manifest = ManifestEntry[];

/**
 * The version of the manifest's stored form, raised whenever an entry changes shape: a snapshot
 * whose manifest has another is refused as foreign and rebuilt. 1 was a bare list of
 * `[source, size, mtime, digest]`.
 */
export const MANIFEST_FORMAT = 2;

/** The manifest's stored form. */
export function encodeManifest(manifest: Manifest): Uint8Array {
  return new TextEncoder().encode(JSON.stringify({ format: MANIFEST_FORMAT, files: manifest }));
}

/** Thrown by `decodeManifest`: `foreign` for another format version, `corrupt` for unreadable bytes. */
export class ManifestFormatError extends CodedError<'foreign' | 'corrupt'> {}

export function decodeManifest(bytes: Uint8Array | undefined): Manifest {
  let stored: unknown;
  try {
    stored = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new ManifestFormatError('corrupt', 'the manifest of the corpus is not readable JSON');
  }
  const format = Array.isArray(stored) ? 1 : (stored as { format?: unknown } | null)?.format;
  if (format !== MANIFEST_FORMAT) {
    throw new ManifestFormatError('foreign', `the manifest of the corpus has format ${String(format)}, this is ${MANIFEST_FORMAT}`);
  }
  const files = (stored as { files?: unknown }).files;
  if (!Array.isArray(files) || !files.every((entry) => Array.isArray(entry) && entry.length === 6)) {
    throw new ManifestFormatError('corrupt', 'the manifest of the corpus is not a list of files');
  }
  return files as Manifest;
}

/** The digest of a file's bytes as the manifest stores it. */
export function contentDigest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
}

/**
 * Walks `root` as the corpus loader would (every candidate with its size and time); undefined when
 * the root is missing or unreadable: the corpus loader reports that, with the words an operator needs.
 */
export async function walkForManifest(root: string): Promise<WalkResult | undefined> {
  try {
    return await walkCorpus(realpathSync(root));
  } catch {
    return undefined;
  }
}

/** The manifest of the walked files, with the digests of the bytes the build read (by source). */
export function manifestOf(files: readonly FileCandidate[], digests: ReadonlyMap<string, string>): Manifest {
  return bySource(files).map(({ source, size, mtimeMs, ctimeMs, identity }) => [source, size, mtimeMs, ctimeMs, identity.ino, digests.get(source) ?? null]);
}

/**
 * Thrown by `manifestDifference` with `readTouched: false` at the first file whose stat changed but
 * whose size did not: only its bytes can tell, and the caller chose not to read any.
 */
export class UnreadFileError extends CodedError<'unread_file'> {
  constructor(readonly source: string) {
    super('unread_file', `${JSON.stringify(source)} has a new time or inode and the same size; only its bytes can tell whether it changed`);
  }
}

/**
 * Why the corpus at `root` no longer matches `manifest`, in words for the log, or undefined when it
 * matches. `maxFileBytes` must be the limit the build used (a file over it was never read). With
 * `readTouched: false` it reads no file and throws `UnreadFileError` where it would have to.
 */
export async function manifestDifference(
  manifest: Manifest,
  root: string,
  maxFileBytes: number,
  { readTouched = true }: { readTouched?: boolean } = {},
): Promise<string | undefined> {
  const files = bySource((await walkForManifest(root))?.files ?? []);
  const stored = new Map(manifest.map((entry) => [entry[0], entry]));
  const added: string[] = [];
  const changed: string[] = [];
  for (const candidate of files) {
    const entry = stored.get(candidate.source);
    stored.delete(candidate.source);
    if (entry === undefined) {
      added.push(candidate.source);
      continue;
    }
    if (entry[1] !== candidate.size) {
      changed.push(candidate.source);
      continue;
    }
    if (entry[2] === candidate.mtimeMs && entry[3] === candidate.ctimeMs && entry[4] === candidate.identity.ino) continue;
    if (!readTouched) throw new UnreadFileError(candidate.source);
    const bytes = readCandidateBytes(candidate, maxFileBytes);
    const digest = typeof bytes === 'string' ? null : contentDigest(bytes);
    if (digest !== entry[5]) changed.push(candidate.source);
  }
  const removed = [...stored.keys()];
  if (added.length + changed.length + removed.length === 0) return undefined;
  const part = (count: number, what: string, examples: string[]) =>
    count === 0 ? [] : [`${count} ${what} (${examples.slice(0, 3).map((s) => JSON.stringify(s)).join(', ')}${count > 3 ? ', …' : ''})`];
  return [...part(added.length, 'added', added), ...part(changed.length, 'changed', changed), ...part(removed.length, 'removed', removed)].join(', ');
}

function bySource(files: readonly FileCandidate[]): FileCandidate[] {
  return [...files].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}
