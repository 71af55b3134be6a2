import { createDotKernel, DOT_LANES, type DotKernel } from './dot-kernel.js';
import { SearchError } from './search-error.js';
import { TopK } from './top-k.js';

/**
 * Unit-length vectors, one per chunk, searched exactly: the query's dot product (its cosine
 * similarity, for unit vectors) with every chunk in range, then the top k. Stored as Float32 rows
 * padded to a multiple of 8 floats inside the SIMD kernel's memory (dot-kernel.ts); a chunk
 * without a vector is a row of zeros and never ranks.
 */
export class VectorIndex {
  readonly dimensions: number;
  readonly count: number;
  readonly #stride: number;
  readonly #kernel: DotKernel;
  readonly #present: Uint8Array;
  readonly #heaps = new Map<number, TopK>();

  private constructor(dimensions: number, count: number, kernel: DotKernel, present: Uint8Array) {
    this.dimensions = dimensions;
    this.count = count;
    this.#stride = kernel.query.length;
    this.#kernel = kernel;
    this.#present = present;
  }

  /**
   * An index over `vectors` (entry i is chunk i's vector, or undefined when the chunk has none).
   * Every vector must have `dimensions` numbers. `forceJs` uses the plain JavaScript kernel.
   */
  static build(dimensions: number, vectors: ReadonlyArray<Float32Array | undefined>, forceJs = false): VectorIndex {
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new SearchError('invalid_option', `vector dimensions=${dimensions} is invalid: expected a positive integer`);
    }
    const stride = Math.ceil(dimensions / DOT_LANES) * DOT_LANES;
    const kernel = createDotKernel(vectors.length, stride, forceJs);
    const present = new Uint8Array(vectors.length);
    vectors.forEach((vector, i) => {
      if (vector === undefined) return;
      if (vector.length !== dimensions) {
        throw new SearchError('invalid_argument', `vector ${i} has ${vector.length} numbers where the index holds ${dimensions}`);
      }
      kernel.rows.set(vector, i * stride);
      present[i] = 1;
    });
    return new VectorIndex(dimensions, vectors.length, kernel, present);
  }

  /** Whether chunk `i` has a vector. */
  has(i: number): boolean {
    return this.#present[i] === 1;
  }

  /** Chunk `i`'s vector (a copy), or undefined. */
  vector(i: number): Float32Array | undefined {
    if (!this.has(i)) return undefined;
    return this.#kernel.rows.slice(i * this.#stride, i * this.#stride + this.dimensions);
  }

  /** Cosine similarity of `query` (unit length) with chunk `i`; undefined when the chunk has no vector. */
  similarity(query: Float32Array, i: number): number | undefined {
    if (!this.has(i)) return undefined;
    this.#loadQuery(query);
    this.#kernel.run(i, i + 1);
    return this.#kernel.scores[i] as number;
  }

  /** The `topK` chunks among `[from, to)` most similar to `query`, best first (ties: lower chunk number). */
  nearest(query: Float32Array, topK: number, from = 0, to = this.count): { ids: number[]; scores: number[] } {
    this.#loadQuery(query);
    const kernel = this.#kernel;
    kernel.run(from, to);
    let heap = this.#heaps.get(topK);
    if (heap === undefined) this.#heaps.set(topK, (heap = new TopK(topK)));
    heap.clear();
    const scores = kernel.scores;
    const present = this.#present;
    for (let i = from; i < to; i += 1) {
      if (present[i] === 1) heap.push(scores[i] as number, i);
    }
    return heap.drain();
  }

  #loadQuery(query: Float32Array): void {
    if (query.length !== this.dimensions) {
      throw new SearchError('invalid_argument', `query vector has ${query.length} numbers where the index holds ${this.dimensions}`);
    }
    this.#kernel.query.set(query);
  }
}
