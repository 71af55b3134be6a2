// A snapshot served partly from its file. The sections read only per document (the texts and the
// document records: READ_ON_DEMAND) stay in the file, read per hit with positioned reads on a file
// descriptor kept open, so a large corpus's RSS is its postings, not its texts. The rest (the
// resident part) was read into memory by the boot's check worker (snapshot-file.ts `readResident`).
//
// Integrity: the whole file is hashed before anything is served (snapshot-digest.ts, on this thread
// or the check worker's), and as it is, a CRC-32 is kept for each BLOCK_BYTES block of the sections
// left in the file. Every later read checks the CRCs of the blocks
// it touches, so a file changed in place or cut short after the boot is never served: the read throws
// a `SnapshotError` with code `damaged`, every later read of the file throws too, and the listeners
// given to `onDamage` hear of it once (the index service reloads, and a reload's index is held in
// memory). A file replaced by a rename is not seen: the descriptor still reads the file that was checked.
import { closeSync } from 'node:fs';
import { SnapshotError } from '../search/index-snapshot.js';
import type { SnapshotHeader, SnapshotSection, SnapshotSource } from '../search/index-snapshot.js';
import type { ReadRange } from '../search/document-table.js';
import { BLOCK_BYTES, BLOCK_CHECKSUM_NAME, blockChecksum, readFullySync, snapshotExtents, verifySnapshot } from './snapshot-digest.js';
import type { Extent, ResidentSnapshot, Verification } from './snapshot-digest.js';

/** The size of a section's read buffer, reused from read to read: most texts and records fit. */
const KEPT_BUFFER_BYTES = 4 * BLOCK_BYTES;

// A descriptor is closed when nothing can read through it any more: an index of an older generation
// may still answer a call that started on it, so the swap does not close it.
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed by `close()`.
  }
});

export class SnapshotInFile implements SnapshotSource {
  readonly header: SnapshotHeader;
  readonly path: string;
  readonly #fd: number;
  readonly #resident: Uint8Array;
  readonly #digest: Uint8Array;
  readonly #extents: Extent[];
  readonly #crcs = new Map<string, Uint32Array>();
  /**
   * Per section, the blocks the last read left in its buffer (`bytes`, reused by the next read): a
   * hit reads its record and then its text, and a scan reads records one after another, so the next
   * read often lies in the same blocks and needs no read or CRC at all.
   */
  readonly #windows = new Map<string, { from: number; length: number; bytes: Uint8Array }>();
  readonly #listeners = new Set<(error: SnapshotError) => void>();
  #verified = false;
  #damage: SnapshotError | undefined;
  #closed = false;

  constructor({ path, fd, header, resident, digest }: ResidentSnapshot) {
    const { extents, residentBytes } = snapshotExtents(header);
    if (resident.byteLength !== residentBytes) throw new RangeError(`resident bytes of snapshot ${path}: ${resident.byteLength}, expected ${residentBytes}`);
    this.path = path;
    this.header = header;
    this.#fd = fd;
    this.#resident = resident;
    this.#digest = digest;
    this.#extents = extents;
    closer.register(this, fd, this);
  }

  /** The bytes held in memory. */
  get residentBytes(): Uint8Array {
    return this.#resident;
  }

  /**
   * Whether the whole file hashes to its digest (`verifySnapshot`), verified on this thread; records
   * the CRC of every block of the sections left in the file. `cancelled()` stops it early (false).
   */
  async verify(cancelled: () => boolean = () => false): Promise<boolean> {
    return this.adopt(await verifySnapshot({ fd: this.#fd, header: this.header, resident: this.#resident, digest: this.#digest }, cancelled));
  }

  /** Takes a verification of this file done elsewhere (the check worker's); returns whether it passed. */
  adopt(verification: Verification): boolean {
    for (const [name, crcs] of verification.crcs) this.#crcs.set(name, crcs);
    this.#verified = verification.intact;
    return this.#verified;
  }

  resident(name: string): Uint8Array | undefined {
    const extent = this.#extents.find((e): e is Extent & { at: number } => 'at' in e && this.#sectionIn(name, e));
    if (extent === undefined) return undefined;
    const section = this.#section(name) as SnapshotSection;
    const at = extent.at + section.offset - extent.from;
    return this.#resident.subarray(at, at + section.byteLength);
  }

  reader(name: string): ReadRange | undefined {
    const extent = this.#extents.find((e) => 'section' in e && e.section.name === name);
    if (extent === undefined || !('section' in extent)) return undefined;
    const { section } = extent;
    return (start, end) => this.#read(section, start, end);
  }

  /** Calls `listener` once when a read finds the file damaged. */
  onDamage(listener: (error: SnapshotError) => void): void {
    this.#listeners.add(listener);
  }

  /** Closes the file now (a snapshot refused before it served). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closer.unregister(this);
    closeSync(this.#fd);
  }

  #section(name: string): SnapshotSection | undefined {
    return this.header.sections.find((s) => s.name === name);
  }

  #sectionIn(name: string, extent: { from: number; to: number }): boolean {
    const section = this.#section(name);
    return section !== undefined && section.offset >= extent.from && section.offset + section.byteLength <= extent.to;
  }

  #read(section: SnapshotSection, start: number, end: number): Uint8Array {
    if (this.#damage !== undefined) throw this.#damage;
    if (start < 0 || end > section.byteLength || start > end) throw new RangeError(`bytes ${start}–${end} lie outside section "${section.name}" (${section.byteLength} bytes)`);
    const window = this.#windows.get(section.name);
    if (window !== undefined && start >= window.from && end <= window.from + window.length) {
      return window.bytes.subarray(start - window.from, end - window.from);
    }
    const crcs = this.#crcs.get(section.name);
    if (!this.#verified || crcs === undefined || this.#closed) throw new SnapshotError('damaged', `snapshot ${this.path} is not open for reading: it was not verified, or was closed`);
    // Only the blocks the range touches: each is read and checked whole, and a SciFact text or record
    // lies in one or two.
    const from = Math.floor(start / BLOCK_BYTES) * BLOCK_BYTES;
    const to = Math.min(section.byteLength, Math.max(Math.ceil(end / BLOCK_BYTES) * BLOCK_BYTES, from + BLOCK_BYTES));
    // The section's buffer is overwritten by its next read, so the caller decodes what it gets at once
    // (ReadRange's contract). Filled whole or refused below, so it need not be zeroed first.
    // A buffer grown for a long text is not kept for the short reads after it.
    const reuse = window !== undefined && window.bytes.length >= to - from && window.bytes.length <= Math.max(to - from, KEPT_BUFFER_BYTES);
    const bytes: Uint8Array = reuse ? window.bytes : Buffer.allocUnsafeSlow(Math.max(to - from, KEPT_BUFFER_BYTES));
    this.#windows.delete(section.name);
    let got = 0;
    try {
      got = readFullySync(this.#fd, bytes, to - from, section.offset + from);
    } catch (error) {
      this.#damaged(section, from, to, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    if (got < to - from) this.#damaged(section, from, to, `the file was cut short (it ends before byte ${section.offset + from + got + 1})`);
    for (let b = 0; b < to - from; b += BLOCK_BYTES) {
      if (blockChecksum(bytes.subarray(b, Math.min(b + BLOCK_BYTES, to - from))) !== crcs[(from + b) / BLOCK_BYTES]) {
        this.#damaged(section, from + b, Math.min(to, from + b + BLOCK_BYTES), `they no longer match their ${BLOCK_CHECKSUM_NAME} from the boot`);
      }
    }
    this.#windows.set(section.name, { from, length: to - from, bytes });
    return bytes.subarray(start - from, end - from);
  }

  #damaged(section: SnapshotSection, from: number, to: number, why: string): never {
    const error = new SnapshotError(
      'damaged',
      `snapshot ${this.path} was changed or damaged after it was checked: bytes ${from}–${to} of its "${section.name}" section are not what was verified (${why}); nothing more is served from it`,
    );
    this.#damage = error;
    this.#windows.clear();
    for (const listener of this.#listeners) listener(error);
    this.#listeners.clear();
    throw error;
  }
}
