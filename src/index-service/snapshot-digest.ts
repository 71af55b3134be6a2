// How a snapshot file (and the vectors file, in the same format) is verified, all of it: the digest
// that follows the bytes (SHA-256), the checksum of each block of the sections served from the file
// (CRC-32), and the verification of a file as the boot holds it (the resident runs in memory, the
// sections read on demand left in the file): the whole file hashed in file order, the resident part
// from memory and the rest streamed through one small buffer, recording each block's checksum as it
// goes (snapshot-in-file.ts checks them on every later read). A function of the file and its resident
// bytes alone, owning nothing, so either thread of the boot can run it.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { READ_ON_DEMAND } from '../search/index-snapshot.js';
import type { SnapshotHeader, SnapshotSection } from '../search/index-snapshot.js';

/** The digest's name, as refusals tell it. */
export const DIGEST_NAME = 'SHA-256';
/** The digest's length: the last bytes of a file. */
export const DIGEST_BYTES = 32;

/** A digest fed piece by piece. */
export function createDigest(): Hash {
  return createHash('sha256');
}

/** The digest of `bytes`. */
export function digestOf(bytes: Uint8Array): Buffer {
  return createDigest().update(bytes).digest();
}

/** The bytes of a file in the format (bytes, then their digest) when they hash to the digest; else undefined. */
export function intactBytes(file: Uint8Array): Uint8Array | undefined {
  if (file.length < DIGEST_BYTES) return undefined;
  const bytes = file.subarray(0, file.length - DIGEST_BYTES);
  return digestOf(bytes).equals(file.subarray(bytes.length)) ? bytes : undefined;
}

/** The block checksum's name, as errors tell it. */
export const BLOCK_CHECKSUM_NAME = 'CRC-32';

/** The checksum of one block (at most BLOCK_BYTES) of a section served from the file. */
export function blockChecksum(block: Uint8Array): number {
  return crc32(block);
}

/**
 * The unit a CRC covers: small, because a hit reads and checks every block its text touches (a
 * search reads about 20 texts and records); the CRCs of 185 MiB are then 190 KB.
 */
export const BLOCK_BYTES = 4 << 10;
/** The streaming buffer of `verifySnapshot`: whole blocks, about 3 ms of SHA-256. */
const STREAM_BYTES = 256 * BLOCK_BYTES;

/** A run of the file's bytes `[from, to)`: in memory at `at` of the resident bytes, or in the file (section `section`). */
export type Extent = { from: number; to: number; at: number } | { from: number; to: number; section: SnapshotSection };

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * The file's bytes `[0, totalBytes)` cut into runs, in file order: each section of `inFile` from its
 * offset to the 8-byte boundary after it, and the runs between them resident, packed one after
 * another (each starts on an 8-byte boundary in the file, so it does in memory too).
 */
export function snapshotExtents(header: SnapshotHeader, inFile: readonly string[] = READ_ON_DEMAND): { extents: Extent[]; residentBytes: number } {
  const left = header.sections.filter((s) => inFile.includes(s.name) && s.byteLength > 0).sort((a, b) => a.offset - b.offset);
  const extents: Extent[] = [];
  let at = 0;
  let from = 0;
  const resident = (to: number): void => {
    if (to <= from) return;
    extents.push({ from, to, at });
    at += to - from;
  };
  for (const section of left) {
    resident(section.offset);
    from = Math.min(header.totalBytes, align8(section.offset + section.byteLength));
    extents.push({ from: section.offset, to: from, section });
  }
  resident(header.totalBytes);
  return { extents, residentBytes: at };
}

/** What the check worker hands over: the resident bytes (shared), the descriptor it keeps open, the digest. */
export interface ResidentSnapshot {
  path: string;
  fd: number;
  header: SnapshotHeader;
  /** The resident runs of `snapshotExtents(header)`, packed. */
  resident: Uint8Array;
  /** The SHA-256 the whole file (less these 32 bytes) must hash to. */
  digest: Uint8Array;
}

/** Whether the file hashed to its digest, and the CRC-32 of every block of each section left in the file. */
export interface Verification {
  intact: boolean;
  crcs: Map<string, Uint32Array>;
}

/**
 * Hashes the whole file in file order, with a turn of the event loop between slices, so a thread that
 * verifies a large snapshot keeps answering. `cancelled()` stops it early (not intact).
 */
export async function verifySnapshot(
  { fd, header, resident, digest }: Pick<ResidentSnapshot, 'fd' | 'header' | 'resident' | 'digest'>,
  cancelled: () => boolean = () => false,
): Promise<Verification> {
  const crcTable = new Map<string, Uint32Array>();
  const failed: Verification = { intact: false, crcs: new Map() };
  const hash = createDigest();
  const buffer = new Uint8Array(STREAM_BYTES);
  for (const extent of snapshotExtents(header).extents) {
    if ('at' in extent) {
      for (let from = extent.from; from < extent.to; from += STREAM_BYTES) {
        if (cancelled()) return failed;
        const at = extent.at + from - extent.from;
        hash.update(resident.subarray(at, at + Math.min(STREAM_BYTES, extent.to - from)));
        await new Promise((done) => setImmediate(done));
      }
      continue;
    }
    const { section } = extent;
    const crcs = new Uint32Array(Math.ceil(section.byteLength / BLOCK_BYTES));
    for (let from = extent.from; from < extent.to; from += STREAM_BYTES) {
      if (cancelled()) return failed;
      const length = Math.min(STREAM_BYTES, extent.to - from);
      // Synchronous: through the thread pool each read waited behind the resident part's reads there
      // (tens of ms a piece on a machine where fresh pages are dear); a turn of the loop follows.
      const got = readFullySync(fd, buffer, length, from);
      if (got < length) return failed; // cut short since the worker measured it
      hash.update(buffer.subarray(0, length));
      const base = from - section.offset;
      const sectionEnd = section.byteLength - base;
      for (let b = 0; b < length && b < sectionEnd; b += BLOCK_BYTES) {
        crcs[(base + b) / BLOCK_BYTES] = blockChecksum(buffer.subarray(b, Math.min(b + BLOCK_BYTES, sectionEnd)));
      }
      await new Promise((done) => setImmediate(done));
    }
    crcTable.set(section.name, crcs);
  }
  return Buffer.from(digest).equals(hash.digest()) ? { intact: true, crcs: crcTable } : failed;
}

/** Reads `length` bytes at `position` into `into`, fewer only where the file ends; how many. */
export function readFullySync(fd: number, into: Uint8Array, length: number, position: number): number {
  let at = 0;
  while (at < length) {
    const got = readSync(fd, into, at, length - at, position + at);
    if (got === 0) break;
    at += got;
  }
  return at;
}
