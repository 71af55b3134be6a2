import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import { SearchError } from './search-error.js';

/**
 * Chunk vectors kept by a hash of what was embedded, so a rebuild or a reboot embeds only new or
 * changed chunks. The key covers the model, the requested dimensions and the passage text; a
 * different model or dimension never reuses a vector. Serialises to bytes for the file kept beside
 * the index snapshot (`<INDEX_FILE>.vectors`):
 *
 *   "CMVC" · u32 version (1) · u32 dimensions · u32 count · u32 model length · model (UTF-8)
 *   · count × 32-byte SHA-256 key · count × dimensions float32 (little-endian)
 */
export class VectorCache {
  readonly #vectors = new Map<string, Float32Array>();

  constructor(
    /** The model (and dimension request) the vectors belong to, e.g. "text-embedding-3-small@512". */
    readonly model: string,
    readonly dimensions: number,
  ) {}

  /** The key of a passage: hex SHA-256 over the model and the text. */
  key(passage: string): string {
    return createHash('sha256').update(this.model).update('\u0000').update(passage).digest('hex');
  }

  get size(): number {
    return this.#vectors.size;
  }

  get(key: string): Float32Array | undefined {
    return this.#vectors.get(key);
  }

  set(key: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new SearchError('invalid_argument', `vector of ${vector.length} numbers for a cache of ${this.dimensions}`);
    }
    this.#vectors.set(key, vector);
  }

  toBytes(): Uint8Array {
    return Buffer.concat([...this.pieces()]);
  }

  /**
   * The bytes of `toBytes` in pieces of about `pieceBytes` (the header and keys, then groups of
   * vectors), from the entries as they are now: entries set later are not in them. On a
   * little-endian host each group of vectors is copied as bytes.
   */
  pieces(pieceBytes = 4 << 20): Iterable<Uint8Array> {
    return piecesOf([...this.#vectors], this.model, this.dimensions, pieceBytes);
  }

  /** Reads `toBytes` output; throws a `SearchError` (`invalid_snapshot`) on anything else. */
  static fromBytes(bytes: Uint8Array): VectorCache {
    const bad = (why: string): never => {
      throw new SearchError('invalid_snapshot', `vector cache is unreadable: ${why}`);
    };
    if (bytes.length < 20 || MAGIC.some((b, i) => bytes[i] !== b)) bad('wrong magic bytes');
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (view.getUint32(4, true) !== 1) bad(`version ${view.getUint32(4, true)} is not 1`);
    const dimensions = view.getUint32(8, true);
    const count = view.getUint32(12, true);
    const modelLength = view.getUint32(16, true);
    const keysAt = 20 + modelLength;
    const vectorsAt = Math.ceil((keysAt + count * 32) / 4) * 4;
    if (dimensions < 1 || bytes.length !== vectorsAt + count * dimensions * 4) bad(`${bytes.length} bytes do not hold ${count} vectors of ${dimensions}`);
    const cache = new VectorCache(new TextDecoder().decode(bytes.subarray(20, keysAt)), dimensions);
    // One block for all vectors, each entry a view of it: one allocation instead of one per vector.
    const all = new Float32Array(count * dimensions);
    if (LITTLE_ENDIAN) new Uint8Array(all.buffer).set(bytes.subarray(vectorsAt, vectorsAt + count * dimensions * 4));
    else for (let n = 0; n < count * dimensions; n += 1) all[n] = view.getFloat32(vectorsAt + n * 4, true);
    for (let i = 0; i < count; i += 1) {
      const key = Buffer.from(bytes.subarray(keysAt + i * 32, keysAt + (i + 1) * 32)).toString('hex');
      cache.#vectors.set(key, all.subarray(i * dimensions, (i + 1) * dimensions));
    }
    return cache;
  }
}

const MAGIC = [0x43, 0x4d, 0x56, 0x43];
/** The file is little-endian; on such a host (every platform Node ships for but s390x) a vector is copied as bytes, 100× faster than a number at a time. */
const LITTLE_ENDIAN = endianness() === 'LE';

/** The pieces of a cache file holding `entries` (see VectorCache.pieces). */
function* piecesOf(entries: Array<[string, Float32Array]>, model: string, dimensions: number, pieceBytes: number): Generator<Uint8Array> {
  const modelBytes = new TextEncoder().encode(model);
  const count = entries.length;
  const keysAt = 4 + 16 + modelBytes.length;
  const vectorsAt = Math.ceil((keysAt + count * 32) / 4) * 4;
  const head = new Uint8Array(vectorsAt);
  const view = new DataView(head.buffer);
  head.set(MAGIC, 0);
  view.setUint32(4, 1, true);
  view.setUint32(8, dimensions, true);
  view.setUint32(12, count, true);
  view.setUint32(16, modelBytes.length, true);
  head.set(modelBytes, 20);
  entries.forEach(([key], i) => head.set(Buffer.from(key, 'hex'), keysAt + i * 32));
  yield head;
  const vectorBytes = dimensions * 4;
  const perPiece = Math.max(1, Math.floor(pieceBytes / vectorBytes));
  for (let first = 0; first < count; first += perPiece) {
    const group = entries.slice(first, first + perPiece);
    const piece = new Uint8Array(group.length * vectorBytes);
    const out = new DataView(piece.buffer);
    group.forEach(([, vector], i) => {
      if (LITTLE_ENDIAN) piece.set(new Uint8Array(vector.buffer, vector.byteOffset, vectorBytes), i * vectorBytes);
      else for (let d = 0; d < dimensions; d += 1) out.setFloat32(i * vectorBytes + d * 4, vector[d] as number, true);
    });
    yield piece;
  }
}
