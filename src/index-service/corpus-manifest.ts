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
import { hash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { CodedError } from '../coded-error.js';
import type { FileIdentity } from '../corpus/file-identity.js';
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
 * The version of the manifest's stored form, raised whenever it changes: a snapshot whose manifest
 * has another is refused as foreign and rebuilt. 1 was a JSON list of `[source, size, mtime,
 * digest]`, 2 a JSON object `{ format, files }` of the entries above: parsing its 100k entries took a
 * third of a second at every boot of a large corpus, so 3 is binary.
 *
 * Format 3, little-endian, n entries sorted by source:
 *
 *   0         8 bytes   magic "MANIFEST"
 *   8         u32       format (3)
 *   12        u32       n
 *   16        4n f64    sizes, then modification times, status-change times, inodes (n each)
 *   16 + 32n  22n bytes digests, base64url ASCII; 22 zero bytes for a file that was not read
 *   …         UTF-8     the sources, joined by NUL (which no file name holds), to the end
 */
export const MANIFEST_FORMAT = 3;
const MAGIC = 'MANIFEST';
const PREAMBLE_BYTES = 16;
const DIGEST_CHARS = 22;
const NUMBER_COLUMNS = 4;

/** The manifest's stored form. */
export function encodeManifest(manifest: Manifest): Uint8Array {
  const n = manifest.length;
  const sources = new TextEncoder().encode(manifest.map((entry) => entry[0]).join('\0'));
  const digestsAt = PREAMBLE_BYTES + NUMBER_COLUMNS * 8 * n;
  const sourcesAt = digestsAt + DIGEST_CHARS * n;
  const out = new Uint8Array(sourcesAt + sources.length);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(8, MANIFEST_FORMAT, true);
  view.setUint32(12, n, true);
  manifest.forEach(([, size, mtimeMs, ctimeMs, ino, digest], i) => {
    [size, mtimeMs, ctimeMs, ino].forEach((value, column) => view.setFloat64(PREAMBLE_BYTES + (column * n + i) * 8, value, true));
    if (digest === null) return;
    if (digest.length !== DIGEST_CHARS || !/^[A-Za-z0-9_-]+$/.test(digest)) throw new RangeError(`manifest digest ${JSON.stringify(digest)} is not ${DIGEST_CHARS} base64url characters`);
    for (let k = 0; k < DIGEST_CHARS; k += 1) out[digestsAt + i * DIGEST_CHARS + k] = digest.charCodeAt(k);
  });
  out.set(sources, sourcesAt);
  return out;
}

/** Thrown by `decodeManifest`: `foreign` for another format version, `corrupt` for unreadable bytes. */
export class ManifestFormatError extends CodedError<'foreign' | 'corrupt'> {}

export function decodeManifest(bytes: Uint8Array | undefined): StoredManifest {
  if (bytes === undefined || bytes.length < PREAMBLE_BYTES || new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) {
    throw new ManifestFormatError(isEarlierFormat(bytes) ? 'foreign' : 'corrupt', `the manifest of the corpus is not readable (format ${MANIFEST_FORMAT} starts with "${MAGIC}")`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = view.getUint32(8, true);
  if (format !== MANIFEST_FORMAT) throw new ManifestFormatError('foreign', `the manifest of the corpus has format ${format}, this is ${MANIFEST_FORMAT}`);
  const n = view.getUint32(12, true);
  const digestsAt = PREAMBLE_BYTES + NUMBER_COLUMNS * 8 * n;
  const sourcesAt = digestsAt + DIGEST_CHARS * n;
  if (bytes.length < sourcesAt) throw new ManifestFormatError('corrupt', `the manifest of the corpus is cut short: ${bytes.length} bytes, ${n} files need at least ${sourcesAt}`);
  let sources: string[];
  try {
    sources = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(sourcesAt)).split('\0');
  } catch {
    throw new ManifestFormatError('corrupt', 'the sources of the manifest of the corpus are not UTF-8');
  }
  if (n === 0 ? bytes.length !== sourcesAt : sources.length !== n) {
    throw new ManifestFormatError('corrupt', `the manifest of the corpus lists ${n} files and ${n === 0 ? 'some' : sources.length} sources`);
  }
  // One copy, so the columns are aligned whatever the section's offset (not `slice`: a Buffer's
  // shares its memory), and one string of digests, each entry's a slice of it.
  // One copy, so the columns are aligned whatever the section's offset.
  const numbers = new Float64Array(NUMBER_COLUMNS * n);
  new Uint8Array(numbers.buffer).set(bytes.subarray(PREAMBLE_BYTES, digestsAt));
  return new StoredManifest(n === 0 ? [] : sources, numbers, Buffer.from(bytes.buffer, bytes.byteOffset + digestsAt, DIGEST_CHARS * n).toString('latin1'));
}

/**
 * A manifest kept in the columns it is stored in, so that checking 100k files creates no object per
 * file: sources, then `numbers` (sizes, modification times, status-change times, inodes, n of each),
 * then every digest in one string (22 NUL characters for a file that was not read).
 */
export class StoredManifest {
  constructor(
    readonly sources: readonly string[],
    readonly numbers: Float64Array,
    readonly digests: string,
  ) {}

  /** `manifest` in columns. */
  static of(manifest: Manifest): StoredManifest {
    const n = manifest.length;
    const numbers = new Float64Array(NUMBER_COLUMNS * n);
    manifest.forEach(([, size, mtimeMs, ctimeMs, ino], i) => [size, mtimeMs, ctimeMs, ino].forEach((value, column) => (numbers[column * n + i] = value)));
    return new StoredManifest(manifest.map((entry) => entry[0]), numbers, manifest.map((entry) => entry[5] ?? '\0'.repeat(DIGEST_CHARS)).join(''));
  }

  get length(): number {
    return this.sources.length;
  }

  /** Entry `i` as `manifestOf` made it. */
  entry(i: number): ManifestEntry {
    const n = this.sources.length;
    const digest = this.digests.slice(i * DIGEST_CHARS, (i + 1) * DIGEST_CHARS);
    const number = (column: number): number => this.numbers[column * n + i] as number;
    return [this.sources[i] as string, number(0), number(1), number(2), number(3), digest.charCodeAt(0) === 0 ? null : digest];
  }

  /** Every entry. */
  entries(): Manifest {
    return this.sources.map((_, i) => this.entry(i));
  }
}

/** Whether `bytes` are a manifest of format 1 or 2 (JSON), which this version no longer reads. */
function isEarlierFormat(bytes: Uint8Array | undefined): boolean {
  try {
    const stored = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return Array.isArray(stored) || (typeof stored === 'object' && stored !== null && 'format' in stored);
  } catch {
    return false;
  }
}

/** The digest of a file's bytes as the manifest stores it. */
export function contentDigest(bytes: Uint8Array): string {
  // One call, no Hash object: it runs once per file of a build (100k at a time).
  return hash('sha256', bytes, 'base64url').slice(0, 22);
}

/**
 * Walks `root` as the corpus loader would (every candidate with its size and time, handed to `onFile`
 * when given, else returned); undefined when the root is missing or unreadable: the corpus loader
 * reports that, with the words an operator needs.
 */
export async function walkForManifest(root: string, onFile?: (file: FileCandidate) => void, excluded: readonly FileIdentity[] = []): Promise<WalkResult | undefined> {
  try {
    return await walkCorpus(realpathSync(root), onFile, { excluded });
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
 * `readTouched: false` it reads no file and throws `UnreadFileError` where it would have to. Each file
 * walked is looked up in the manifest as the walk finds it and kept nowhere.
 */
export async function manifestDifference(
  manifest: Manifest | StoredManifest,
  root: string,
  maxFileBytes: number,
  { readTouched = true, excluded = [] }: { readTouched?: boolean; excluded?: readonly FileIdentity[] } = {},
): Promise<string | undefined> {
  const stored = manifest instanceof StoredManifest ? manifest : StoredManifest.of(manifest);
  const { sources, numbers } = stored;
  const n = stored.length;
  const seen = new Uint8Array(n);
  const added: string[] = [];
  const changed: string[] = [];
  let unread: string | undefined;
  await walkForManifest(root, (candidate) => {
    const i = indexOfSource(sources, candidate.source);
    if (i < 0) {
      added.push(candidate.source);
      return;
    }
    seen[i] = 1;
    if (numbers[i] !== candidate.size) {
      changed.push(candidate.source);
      return;
    }
    if (numbers[n + i] === candidate.mtimeMs && numbers[2 * n + i] === candidate.ctimeMs && numbers[3 * n + i] === candidate.identity.ino) return;
    if (!readTouched) {
      unread ??= candidate.source;
      return;
    }
    const bytes = readCandidateBytes(candidate, maxFileBytes);
    const digest = typeof bytes === 'string' ? null : contentDigest(bytes);
    if (digest !== stored.entry(i)[5]) changed.push(candidate.source);
  }, excluded);
  const removed = sources.filter((_, i) => seen[i] === 0);
  if (added.length + changed.length + removed.length === 0) {
    if (unread !== undefined) throw new UnreadFileError(unread);
    return undefined;
  }
  const part = (count: number, what: string, examples: string[]) =>
    count === 0 ? [] : [`${count} ${what} (${examples.sort().slice(0, 3).map((s) => JSON.stringify(s)).join(', ')}${count > 3 ? ', …' : ''})`];
  return [...part(added.length, 'added', added), ...part(changed.length, 'changed', changed), ...part(removed.length, 'removed', removed)].join(', ');
}

/** Where `source` is in `sources` (sorted as `bySource` sorts), or -1. */
function indexOfSource(sources: readonly string[], source: string): number {
  let lo = 0;
  let hi = sources.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sources[mid] as string;
    if (at === source) return mid;
    if (at < source) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function bySource(files: readonly FileCandidate[]): FileCandidate[] {
  return [...files].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
}
