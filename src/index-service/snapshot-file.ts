// Snapshot files: the encoded index (src/search/index-snapshot.ts) followed by its digest (snapshot-digest.ts), so a
// file cut short, or changed by a disk or a hand, is recognised before anything in it is trusted.
// Written to a temporary file beside the target and renamed over it, so a reader never sees half a
// file and a crash mid-write leaves the previous snapshot in place. Owner only (0600), whatever the
// umask or the corpus's permissions: the index holds every passage of every document.
import { closeSync, fchmodSync, fstatSync, fsyncSync, openSync, read, readdirSync, readFileSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { readSnapshotHeader, SnapshotError } from '../search/index-snapshot.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';
import { CodedError } from '../coded-error.js';
import { createDigest, DIGEST_BYTES, DIGEST_NAME, digestOf, snapshotExtents } from './snapshot-digest.js';
import type { ResidentSnapshot } from './snapshot-digest.js';

/** Why a snapshot file was not used; each is logged with its reason and the index is rebuilt. */
export type SnapshotRefusalCode =
  | 'missing'
  | 'unreadable'
  | 'not_a_snapshot'
  | 'truncated'
  | 'corrupt'
  | 'foreign_version'
  | 'options_changed'
  | 'corpus_changed';

/** Why a snapshot file was not used. */
export interface SnapshotRefusalReport {
  code: SnapshotRefusalCode;
  reason: string;
}

export class SnapshotRefusal extends CodedError<SnapshotRefusalCode> {}

/** The temporary file this thread writes `path` through. */
const temporaryOf = (path: string): string => `${path}.${process.pid}-${threadId}.tmp`;

/**
 * Removes the temporary files of `path` that a writer killed mid-write left behind (a process that
 * is no longer running), and returns their paths. A file of a running process is left alone.
 */
export function removeLeftoverTemporaryFiles(path: string): string[] {
  const folder = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const writer = name.startsWith(prefix) ? /^(\d+)-\d+\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (writer === null || isRunning(Number(writer[1]))) continue;
    rmSync(join(folder, name), { force: true });
    removed.push(join(folder, name));
  }
  return removed;
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Temporary files are created exclusively ('wx': O_CREAT | O_EXCL), which never follows a link: a
// symbolic link planted at the temporary path cannot redirect the write. Something already there (a
// planted link, or what an earlier write of this process and thread failed to remove) is removed,
// the link itself and never its target, and the create is tried once more.
const EXCLUSIVE = 'wx';
const alreadyThere = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'EEXIST';

// The mode is set again on the open file: the one given to open is narrowed by the umask, and the
// file is to be 0600 exactly, whatever the umask.
const OWNER_ONLY = 0o600;

function createTemporary(temporary: string): number {
  let fd: number;
  try {
    fd = openSync(temporary, EXCLUSIVE, OWNER_ONLY);
  } catch (error) {
    if (!alreadyThere(error)) throw error;
    rmSync(temporary, { force: true });
    fd = openSync(temporary, EXCLUSIVE, OWNER_ONLY);
  }
  try {
    fchmodSync(fd, OWNER_ONLY);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

async function createTemporaryAsync(temporary: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(temporary, EXCLUSIVE, OWNER_ONLY);
  } catch (error) {
    if (!alreadyThere(error)) throw error;
    await rm(temporary, { force: true });
    handle = await open(temporary, EXCLUSIVE, OWNER_ONLY);
  }
  try {
    await handle.chmod(OWNER_ONLY);
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

/** Writes `bytes` and their digest to `path` atomically (temporary file, fsync, rename). */
export function writeSnapshotFile(path: string, bytes: Uint8Array): void {
  const temporary = temporaryOf(path);
  const digest = digestOf(bytes);
  try {
    const fd = createTemporary(temporary);
    try {
      writeSync(fd, bytes);
      writeSync(fd, digest);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * The same file as `writeSnapshotFile` from bytes given in pieces, written without blocking the event
 * loop: each piece is hashed and handed to the file system in turn, so no single buffer of the whole
 * file is built and no step holds the thread for more than one piece.
 */
export async function writeSnapshotFileInPieces(path: string, pieces: Iterable<Uint8Array>): Promise<void> {
  const temporary = temporaryOf(path);
  const hash = createDigest();
  try {
    const handle = await createTemporaryAsync(temporary);
    try {
      for (const piece of pieces) {
        hash.update(piece);
        await handle.write(piece);
      }
      await handle.write(hash.digest());
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A snapshot file read and found whole (magic, layout, length), its checksum not yet compared. */
export interface UnverifiedSnapshot {
  /** The encoded index, without the digest. */
  bytes: Uint8Array;
  header: SnapshotHeader;
  /** The SHA-256 the file ends with: what `bytes` must hash to. */
  digest: Uint8Array;
}

/**
 * Reads the snapshot at `path` and checks that it is whole: magic, layout, length. The digest is
 * returned, not compared: `verifySnapshotDigest` (or `readSnapshotFile`) does that, and nothing may
 * be served before it passes. Records the read in `timings.readMs`. Throws a `SnapshotRefusal`.
 */
export function readSnapshotFileUnverified(path: string, { timings = {} }: { timings?: Record<string, number> } = {}): UnverifiedSnapshot {
  let file: Uint8Array;
  const started = performance.now();
  try {
    file = readFileSync(path);
    timings.readMs = Math.round(performance.now() - started);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotRefusal('missing', `no snapshot at ${path} yet`);
    throw new SnapshotRefusal('unreadable', `snapshot ${path} cannot be read (${code ?? String(error)})`);
  }
  const header = headerOf(path, file, file.length);
  return { bytes: file.subarray(0, header.totalBytes), header, digest: file.subarray(header.totalBytes) };
}

/**
 * The header of the snapshot at `path` from its first bytes (`start`), checked against the file's
 * length (`fileBytes`): magic, layout, length. Throws a `SnapshotRefusal`.
 */
function headerOf(path: string, start: Uint8Array, fileBytes: number): SnapshotHeader {
  let header: SnapshotHeader;
  try {
    header = readSnapshotHeader(start, fileBytes);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    const code = error.code === 'foreign_layout' ? 'foreign_version' : error.code === 'truncated' ? 'truncated' : error.code === 'malformed' ? 'corrupt' : 'not_a_snapshot';
    throw new SnapshotRefusal(code, `snapshot ${path}: ${error.message}`);
  }
  const expected = header.totalBytes + DIGEST_BYTES;
  if (fileBytes < expected) throw new SnapshotRefusal('truncated', `snapshot ${path} is truncated: ${fileBytes} bytes of ${expected}`);
  if (fileBytes > expected) throw new SnapshotRefusal('corrupt', `snapshot ${path} has ${fileBytes - expected} bytes past its end`);
  return header;
}

/** A snapshot file open for a check that goes on while the file is read (see `openSnapshotFile`). */
export interface SnapshotFileReader {
  header: SnapshotHeader;
  /** Section `name` read on its own, or undefined when the snapshot has none. */
  section(name: string): Uint8Array | undefined;
  /**
   * The file's resident part (all but the sections read on demand: `snapshotExtents`) in shared
   * memory, and its digest, found whole, nothing compared yet: `SnapshotInFile.verify` hashes the
   * whole file. Read on the thread pool. The file is left open and its descriptor handed over with
   * the bytes (a descriptor opened here would close with its thread: give one, see `openSnapshotFile`).
   * Call it once.
   */
  readResident(timings?: Record<string, number>): Promise<ResidentSnapshot>;
  /** Closes the file without reading it all. */
  close(): void;
}

/**
 * Opens the snapshot at `path` and reads only its header (checked as `readSnapshotFileUnverified`
 * checks it), so a check can refuse a foreign snapshot, or read its manifest and start on the corpus,
 * before the whole file is in memory. `given`: the file already open, read through and never closed
 * here. Throws a `SnapshotRefusal`.
 */
export function openSnapshotFile(path: string, given?: number): SnapshotFileReader {
  let fd: number;
  let size: number;
  try {
    fd = given ?? openSync(path, 'r');
    size = fstatSync(fd).size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotRefusal('missing', `no snapshot at ${path} yet`);
    throw new SnapshotRefusal('unreadable', `snapshot ${path} cannot be read (${code ?? String(error)})`);
  }
  // A descriptor given is its owner's to close.
  let open = given === undefined;
  const close = (): void => {
    if (open) closeSync(fd);
    open = false;
  };
  const readAt = (position: number, length: number): Uint8Array => {
    const bytes = new Uint8Array(Math.max(0, Math.min(length, size - position)));
    let at = 0;
    while (at < bytes.length) {
      const got = readSync(fd, bytes, at, bytes.length - at, position + at);
      if (got === 0) break;
      at += got;
    }
    return bytes.subarray(0, at);
  };
  let header: SnapshotHeader;
  try {
    const start = readAt(0, HEADER_READ_BYTES);
    // The header's length is in its preamble: read more when it is longer than the first read.
    const headerEnd = start.length >= 16 ? new DataView(start.buffer).getUint32(12, true) + 24 : 0;
    header = headerOf(path, headerEnd > start.length ? readAt(0, headerEnd) : start, size);
  } catch (error) {
    close();
    throw error;
  }
  return {
    header,
    section: (name) => {
      const section = header.sections.find((s) => s.name === name);
      return section === undefined ? undefined : readAt(section.offset, section.byteLength);
    },
    readResident: async (timings = {}) => {
      const started = performance.now();
      try {
        const { extents, residentBytes } = snapshotExtents(header);
        const resident = new Uint8Array(new SharedArrayBuffer(residentBytes));
        // Pieces of the resident runs, read in READ_PIECES lanes side by side.
        const pieces: Array<{ from: number; to: number; at: number }> = [];
        for (const extent of extents) {
          if (!('at' in extent)) continue;
          for (let from = extent.from; from < extent.to; from += RESIDENT_PIECE_BYTES) {
            pieces.push({ from, to: Math.min(extent.to, from + RESIDENT_PIECE_BYTES), at: extent.at + from - extent.from });
          }
        }
        const lane = async (k: number): Promise<void> => {
          for (let p = k; p < pieces.length; p += READ_PIECES) {
            const { from, to, at } = pieces[p] as (typeof pieces)[number];
            const end = await readRange(fd, resident, from, to, at);
            if (end < to) throw new SnapshotRefusal('truncated', `snapshot ${path} is truncated: it ended at byte ${end} while being read`);
          }
        };
        await Promise.all(Array.from({ length: READ_PIECES }, (_, k) => lane(k)));
        const digest = readAt(header.totalBytes, DIGEST_BYTES);
        if (digest.length < DIGEST_BYTES) throw new SnapshotRefusal('truncated', `snapshot ${path} is truncated: its digest is cut short`);
        timings.readMs = Math.round(performance.now() - started);
        return { path, fd, header, resident, digest };
      } catch (error) {
        close();
        if (error instanceof SnapshotRefusal) throw error;
        throw new SnapshotRefusal('unreadable', `snapshot ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
      }
    },
    close,
  };
}

/** The resident part is read in pieces of this size, so the two lanes share the work evenly. */
const RESIDENT_PIECE_BYTES = 8 << 20;

/** Enough for the preamble and the header of a snapshot of any size seen so far (about 2 KiB). */
const HEADER_READ_BYTES = 64 << 10;
/**
 * Reads side by side on the thread pool, which has 4 threads: 2 leave room for the corpus walk's
 * own calls and the module loads of the thread that waits for the snapshot.
 */
const READ_PIECES = 2;

/**
 * Reads `[from, to)` of `fd` into `into` from offset `intoAt` (default the same offsets); where the
 * file ended (`to` when whole).
 */
async function readRange(fd: number, into: Uint8Array, from: number, to: number, intoAt = from): Promise<number> {
  let at = from;
  while (at < to) {
    const got = await new Promise<number>((done, fail) => read(fd, into, intoAt + at - from, to - at, at, (error, bytesRead) => (error ? fail(error) : done(bytesRead))));
    if (got === 0) break;
    at += got;
  }
  return at;
}

/** The refusal of a snapshot whose bytes do not hash to its digest. */
export function checksumRefusal(path: string): SnapshotRefusal {
  return new SnapshotRefusal('corrupt', `snapshot ${path} fails its checksum (${DIGEST_NAME}): the file was damaged or edited`);
}

/**
 * Reads the snapshot at `path` and checks that it is whole and intact: magic, layout, length,
 * digest. Returns the encoded index (without the digest) and its header. Throws a `SnapshotRefusal`.
 * Whether it matches the corpus, options and engine is for the caller to check against the header.
 * Records in `timings` how long the read (`readMs`) and the checksum (`checksumMs`) took.
 */
export function readSnapshotFile(path: string, timings: Record<string, number> = {}): { bytes: Uint8Array; header: SnapshotHeader } {
  const { bytes, header, digest } = readSnapshotFileUnverified(path, { timings });
  const started = performance.now();
  const actual = digestOf(bytes);
  timings.checksumMs = Math.round(performance.now() - started);
  if (!actual.equals(digest)) throw checksumRefusal(path);
  return { bytes, header };
}
