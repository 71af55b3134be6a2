import { createDotKernel, createInt8Kernel, DOT_LANES, INT8_LANES, type Float32Kernel, type Int8Kernel, type KernelOptions } from './dot-kernel.js';
import { SearchError } from './search-error.js';
import { TopK } from './top-k.js';

/**
 * How the scan stores vectors. `float32`: every score is an exact float32 dot product. `int8`: the
 * scan reads one byte per number (a quarter of the memory traffic, which is what bounds the scan),
 * and the best candidates it finds (4 × topK, at least 64) are rescored exactly in float32, so the
 * scores returned are exact and the order differs from `float32` only when quantization pushes a
 * true top-k chunk out of the candidates (measured in docs/BENCHMARKS.md).
 */
export type VectorPrecision = 'float32' | 'int8';

/**
 * The query is quantized to at most ±QUERY_LEVELS (12 bits), and fewer when the vectors are so long
 * that a dot product of such a query with int8 rows (±127) could pass the int32 the kernel sums in:
 * a row and a query with every number at its largest reach 127 × levels × dimensions.
 */
const QUERY_LEVELS = 4095;
const INT32_MAX = 2 ** 31 - 1;
export const queryLevelsFor = (dimensions: number): number => Math.min(QUERY_LEVELS, Math.floor(INT32_MAX / (127 * dimensions)));
const MIN_CANDIDATES = 64;

/**
 * Unit-length vectors, one per chunk, searched by brute force: the query's dot product (its cosine
 * similarity, for unit vectors) with every chunk in range, then the top k, in a WebAssembly SIMD
 * kernel (dot-kernel.ts). A chunk without a vector is a row of zeros and never ranks.
 */
export class VectorIndex {
  readonly dimensions: number;
  readonly count: number;
  readonly precision: VectorPrecision;
  /** The float32 rows, `dimensions` apart: the kernel's own memory for float32, a separate copy for int8 rescoring. */
  readonly #rows: Float32Array;
  readonly #stride: number;
  readonly #f32: Float32Kernel | undefined;
  readonly #i8: { kernel: Int8Kernel; scale: Float32Array } | undefined;
  readonly #present: Uint8Array;
  readonly #heaps = new Map<number, TopK>();
  /** Candidate heaps of the int8 scan, apart from the result heaps: the two sizes can be equal. */
  readonly #candidateHeaps = new Map<number, TopK>();

  private constructor(fields: {
    dimensions: number;
    count: number;
    precision: VectorPrecision;
    rows: Float32Array;
    stride: number;
    f32?: Float32Kernel;
    i8?: { kernel: Int8Kernel; scale: Float32Array };
    present: Uint8Array;
  }) {
    this.dimensions = fields.dimensions;
    this.count = fields.count;
    this.precision = fields.precision;
    this.#rows = fields.rows;
    this.#stride = fields.stride;
    this.#f32 = fields.f32;
    this.#i8 = fields.i8;
    this.#present = fields.present;
  }

  /**
   * An index over `vectors` (entry i is chunk i's vector, or undefined when the chunk has none).
   * Every vector must have `dimensions` numbers. `forceJs` uses the plain JavaScript kernels;
   * `threads` (default 1) is how many threads one large scan may use (see dot-kernel.ts).
   */
  static build(
    dimensions: number,
    vectors: ReadonlyArray<Float32Array | undefined>,
    options: { precision?: VectorPrecision } & KernelOptions = {},
  ): VectorIndex {
    const { precision = 'float32', ...kernelOptions } = options;
    if (!Number.isInteger(dimensions) || dimensions < 1) {
      throw new SearchError('invalid_option', `vector dimensions=${dimensions} is invalid: expected a positive integer`);
    }
    const count = vectors.length;
    const present = new Uint8Array(count);
    vectors.forEach((vector, i) => {
      if (vector === undefined) return;
      if (vector.length !== dimensions) {
        throw new SearchError('invalid_argument', `vector ${i} has ${vector.length} numbers where the index holds ${dimensions}`);
      }
      present[i] = 1;
    });
    if (precision === 'float32') {
      const stride = Math.ceil(dimensions / DOT_LANES) * DOT_LANES;
      const f32 = createDotKernel(count, stride, kernelOptions);
      vectors.forEach((vector, i) => vector !== undefined && f32.rows.set(vector, i * stride));
      return new VectorIndex({ dimensions, count, precision, rows: f32.rows, stride, f32, present });
    }
    const stride = Math.ceil(dimensions / INT8_LANES) * INT8_LANES;
    const kernel = createInt8Kernel(count, stride, kernelOptions);
    const rows = new Float32Array(count * dimensions);
    const scale = new Float32Array(count);
    vectors.forEach((vector, i) => {
      if (vector === undefined) return;
      rows.set(vector, i * dimensions);
      let max = 0;
      for (const x of vector) max = Math.max(max, Math.abs(x));
      scale[i] = max / 127;
      if (max === 0) return;
      for (let d = 0; d < dimensions; d += 1) kernel.rows[i * stride + d] = Math.round(((vector[d] as number) * 127) / max);
    });
    return new VectorIndex({ dimensions, count, precision, rows, stride: dimensions, i8: { kernel, scale }, present });
  }

  /**
   * Bytes of typed memory the index holds: the kernel's block (rows, query, scores and the scan
   * threads' scratch areas) and, for int8, the float32 rows kept for rescoring and the scales.
   */
  get bytes(): number {
    const rescoring = this.#i8 === undefined ? 0 : this.#rows.byteLength + this.#i8.scale.byteLength;
    return this.#kernel.rows.buffer.byteLength + rescoring + this.#present.byteLength;
  }

  /** How many threads a scan of the whole index uses now (1 until its helper threads are up). */
  get threads(): number {
    return this.#kernel.threads;
  }

  /** Parts of scans that helper threads have run so far. */
  get helperParts(): number {
    return this.#kernel.helperParts;
  }

  /** Helper threads not yet exited. */
  get helpersAlive(): number {
    return this.#kernel.helpersAlive;
  }

  get #kernel(): Float32Kernel | Int8Kernel {
    return this.#f32 ?? (this.#i8 as { kernel: Int8Kernel }).kernel;
  }

  /** Stops the scan's helper threads (an index being replaced); it still answers, on the calling thread. */
  close(): void {
    this.#kernel.close();
  }

  /** Whether chunk `i` has a vector. */
  has(i: number): boolean {
    return this.#present[i] === 1;
  }

  /** Chunk `i`'s vector (a copy), or undefined. */
  vector(i: number): Float32Array | undefined {
    if (!this.has(i)) return undefined;
    return this.#rows.slice(i * this.#stride, i * this.#stride + this.dimensions);
  }

  /**
   * Chunk `i`'s vector without a copy where the index allows it, or undefined: with int8 scanning (the
   * server's), a view of the float32 rows kept for rescoring, so a cache holding these views keeps no
   * second copy of the vectors; with float32 scanning, a copy (those rows are the kernel's memory).
   * Never to be written to.
   */
  row(i: number): Float32Array | undefined {
    if (!this.has(i)) return undefined;
    return this.#i8 === undefined ? this.vector(i) : this.#rows.subarray(i * this.dimensions, (i + 1) * this.dimensions);
  }

  /** Cosine similarity of `query` (unit length) with chunk `i`, exact in float32; undefined when the chunk has no vector. */
  similarity(query: Float32Array, i: number): number | undefined {
    this.#check(query);
    if (!this.has(i)) return undefined;
    return this.#exact(query, i);
  }

  /** The `topK` chunks among `[from, to)` most similar to `query`, best first (ties: lower chunk number). */
  nearest(query: Float32Array, topK: number, from = 0, to = this.count): { ids: number[]; scores: number[] } {
    this.#check(query);
    const present = this.#present;
    const top = this.#heap(topK);
    if (this.#f32 !== undefined) {
      const kernel = this.#f32;
      kernel.query.set(query);
      kernel.run(from, to);
      const scores = kernel.scores;
      for (let i = from; i < to; i += 1) if (present[i] === 1) top.push(scores[i] as number, i);
      return top.drain();
    }
    const { kernel, scale } = this.#i8 as { kernel: Int8Kernel; scale: Float32Array };
    let max = 0;
    for (const x of query) max = Math.max(max, Math.abs(x));
    const step = max > 0 ? max / queryLevelsFor(this.dimensions) : 1;
    for (let d = 0; d < this.dimensions; d += 1) kernel.query[d] = Math.round((query[d] as number) / step);
    kernel.run(from, to);
    const candidates = this.#heap(Math.min(Math.max(topK * 4, MIN_CANDIDATES), Math.max(1, to - from)), this.#candidateHeaps);
    const raw = kernel.scores;
    for (let i = from; i < to; i += 1) if (present[i] === 1) candidates.push((raw[i] as number) * (scale[i] as number), i);
    for (const id of candidates.drain().ids) top.push(this.#exact(query, id), id);
    return top.drain();
  }

  #exact(query: Float32Array, i: number): number {
    const rows = this.#rows;
    const base = i * this.#stride;
    let sum = 0;
    for (let d = 0; d < this.dimensions; d += 1) sum += (rows[base + d] as number) * (query[d] as number);
    return Math.fround(sum);
  }

  #heap(size: number, heaps = this.#heaps): TopK {
    let heap = heaps.get(size);
    if (heap === undefined) {
      heap = new TopK(size);
      if (heaps.size < 16) heaps.set(size, heap);
    }
    heap.clear();
    return heap;
  }

  #check(query: Float32Array): void {
    if (query.length !== this.dimensions) {
      throw new SearchError('invalid_argument', `query vector has ${query.length} numbers where the index holds ${this.dimensions}`);
    }
  }
}
