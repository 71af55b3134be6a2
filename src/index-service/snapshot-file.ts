// Snapshot files: the encoded index (src/search/index-snapshot.ts) followed by a SHA-256 of it, so a
// file cut short, or changed by a disk or a hand, is recognised before anything in it is trusted.
// Written to a temporary file beside the target and renamed over it, so a reader never sees half a
// file and a crash mid-write leaves the previous snapshot in place.
import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { readSnapshotHeader, SnapshotError } from '../search/index-snapshot.js';
import type { SnapshotHeader } from '../search/index-snapshot.js';
import { CodedError } from '../coded-error.js';

const DIGEST_BYTES = 32;

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

/** Writes `bytes` and their digest to `path` atomically (temporary file, fsync, rename). */
export function writeSnapshotFile(path: string, bytes: Uint8Array): void {
  const temporary = temporaryOf(path);
  const digest = createHash('sha256').update(bytes).digest();
  try {
    const fd = openSync(temporary, 'w', 0o644);
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
  const hash = createHash('sha256');
  try {
    const handle = await open(temporary, 'w', 0o644);
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

/**
 * Reads the snapshot at `path` and checks that it is whole and intact: magic, layout, length,
 * digest. Returns the encoded index (without the digest) and its header. Throws a `SnapshotRefusal`.
 * Whether it matches the corpus, options and engine is for the caller to check against the header.
 * Records in `timings` how long the read (`readMs`) and the checksum (`checksumMs`) took.
 */
export function readSnapshotFile(path: string, timings: Record<string, number> = {}): { bytes: Uint8Array; header: SnapshotHeader } {
  let file: Buffer;
  let started = performance.now();
  try {
    file = readFileSync(path);
    timings.readMs = Math.round(performance.now() - started);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new SnapshotRefusal('missing', `no snapshot at ${path} yet`);
    throw new SnapshotRefusal('unreadable', `snapshot ${path} cannot be read (${code ?? String(error)})`);
  }
  let header: SnapshotHeader;
  try {
    header = readSnapshotHeader(file);
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    const code = error.code === 'foreign_layout' ? 'foreign_version' : error.code === 'truncated' ? 'truncated' : error.code === 'malformed' ? 'corrupt' : 'not_a_snapshot';
    throw new SnapshotRefusal(code, `snapshot ${path}: ${error.message}`);
  }
  const expected = header.totalBytes + DIGEST_BYTES;
  if (file.length < expected) throw new SnapshotRefusal('truncated', `snapshot ${path} is truncated: ${file.length} bytes of ${expected}`);
  if (file.length > expected) throw new SnapshotRefusal('corrupt', `snapshot ${path} has ${file.length - expected} bytes past its end`);
  const bytes = file.subarray(0, header.totalBytes);
  started = performance.now();
  const digest = createHash('sha256').update(bytes).digest();
  timings.checksumMs = Math.round(performance.now() - started);
  if (!digest.equals(file.subarray(header.totalBytes))) {
    throw new SnapshotRefusal('corrupt', `snapshot ${path} fails its checksum (SHA-256): the file was damaged or edited`);
  }
  return { bytes, header };
}
