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
    const model = new TextEncoder().encode(this.model);
    const count = this.#vectors.size;
    const header = 4 + 16 + model.length;
    const keysAt = header;
    const vectorsAt = Math.ceil((keysAt + count * 32) / 4) * 4;
    const bytes = new Uint8Array(vectorsAt + count * this.dimensions * 4);
    const view = new DataView(bytes.buffer);
    bytes.set(MAGIC, 0);
    view.setUint32(4, 1, true);
    view.setUint32(8, this.dimensions, true);
    view.setUint32(12, count, true);
    view.setUint32(16, model.length, true);
    bytes.set(model, 20);
    let i = 0;
    for (const [key, vector] of this.#vectors) {
      bytes.set(Buffer.from(key, 'hex'), keysAt + i * 32);
      const at = vectorsAt + i * this.dimensions * 4;
      if (LITTLE_ENDIAN) bytes.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), at);
      else for (let d = 0; d < this.dimensions; d += 1) view.setFloat32(at + d * 4, vector[d] as number, true);
      i += 1;
    }
    return bytes;
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
