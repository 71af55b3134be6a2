// The inner loop of exact vector search: for each of n stored rows, the dot product with the query.
// Written as a tiny WebAssembly module using 128-bit SIMD (four f32 lanes, two accumulators), which
// runs this loop several times faster than the same loop in JavaScript; its bytes are assembled
// below, opcode by opcode, so nothing is downloaded or compiled at install. Rows are padded to a
// multiple of 8 floats with zeros, which leaves every dot product unchanged.
//
// Equivalent text format:
//   (func (export "dots") (param $q i32) (param $row i32) (param $n i32) (param $dims i32) (param $out i32)
//     (local $qp i32) (local $d i32) (local $a v128) (local $b v128)
//     block loop                                   ;; for each row while n > 0
//       n == 0 → exit;  a = b = 0;  qp = q;  d = dims
//       block loop                                 ;; for each 8 floats while d > 0
//         d == 0 → exit
//         a += load(row) * load(qp);  b += load(row + 16) * load(qp + 16)
//         row += 32; qp += 32; d -= 8
//       end end
//       *out = sum of the lanes of a + b;  out += 4;  n -= 1
//     end end)
//
// A kernel made for several threads imports its memory as shared (`env.memory`) instead of owning
// it, so that scan-threads.ts can run row ranges of one scan on other cores over the same rows.
import { ScanThreads, type SplitScan } from './scan-threads.js';

/** Rows are padded to a multiple of this many floats. */
export const DOT_LANES = 8;
/** Rows of an int8 kernel are padded to a multiple of this many numbers: one step of its loop. */
export const INT8_LANES = 64;

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (l: number) => [0x0c, l],
  brIf: (l: number) => [0x0d, l],
  get: (i: number) => [0x20, i],
  set: (i: number) => [0x21, i],
  i32: (v: number) => [0x41, ...sleb(v)],
  add: [0x6a],
  sub: [0x6b],
  eqz: [0x45],
  ne: [0x47],
  f32add: [0x92],
  f32store: [0x38, 0x02, 0x00],
  v128load: (offset: number) => [0xfd, 0x00, 0x02, ...uleb(offset)],
  load8x8s: (offset: number) => [0xfd, 0x01, 0x03, ...uleb(offset)],
  v128zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  lane: (i: number) => [0xfd, 0x1f, i],
  f32x4add: [0xfd, 0xe4, 0x01],
  f32x4mul: [0xfd, 0xe6, 0x01],
  i32store: [0x36, 0x02, 0x00],
  i32lane: (i: number) => [0xfd, 0x1b, i],
  i32x4add: [0xfd, 0xae, 0x01],
  i32x4dotI16: [0xfd, 0xba, 0x01],
};
// In the int8 function D holds the row's end address, and C, E are two more accumulators.
const [Q, ROW, N, DIMS, OUT, QP, D, A, B, C, E] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const name = (s: string): number[] => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

/** The largest memory a 32-bit WebAssembly module can address, in 64 KiB pages. */
const MAX_PAGES = 65536;

function moduleBytes(shared: boolean): Uint8Array {
  const step = (local: number, by: number, sign: number[]): number[] => [...op.get(local), ...op.i32(by), ...sign, ...op.set(local)];
  /** The row loop around `inner` (which consumes `perStep` dimensions) and `store` (which writes *out). */
  const rowLoop = (inner: number[], rowBytes: number, queryBytes: number, perStep: number, store: number[]): number[] => [
    ...op.block, ...op.loop,
    ...op.get(N), ...op.eqz, ...op.brIf(1),
    ...op.v128zero, ...op.set(A), ...op.v128zero, ...op.set(B),
    ...op.get(Q), ...op.set(QP), ...op.get(DIMS), ...op.set(D),
    ...op.block, ...op.loop,
    ...op.get(D), ...op.eqz, ...op.brIf(1),
    ...inner,
    ...step(ROW, rowBytes, op.add), ...step(QP, queryBytes, op.add), ...step(D, perStep, op.sub),
    ...op.br(0), ...op.end, ...op.end,
    ...op.get(OUT), ...store,
    ...step(OUT, 4, op.add), ...step(N, 1, op.sub),
    ...op.br(0), ...op.end, ...op.end,
    ...op.end,
  ];
  // float32 rows · float32 query: a += row[0..4) * q[0..4); b += row[4..8) * q[4..8).
  const f32Accumulate = (acc: number, offset: number): number[] => [
    ...op.get(acc), ...op.get(ROW), ...op.v128load(offset), ...op.get(QP), ...op.v128load(offset), ...op.f32x4mul, ...op.f32x4add, ...op.set(acc),
  ];
  const f32Lanes = (acc: number): number[] => [...op.get(acc), ...op.lane(0), ...[1, 2, 3].flatMap((i) => [...op.get(acc), ...op.lane(i), ...op.f32add])];
  const f32Code = rowLoop([...f32Accumulate(A, 0), ...f32Accumulate(B, 16)], 32, 32, 8, [...f32Lanes(A), ...f32Lanes(B), ...op.f32add, ...op.f32store]);
  // int8 rows · int16 query, 64 row bytes a step: each `v128.load8x8_s` sign-extends 8 row bytes to
  // eight i16 lanes in the load itself (one x64 instruction), `i32x4.dot_i16x8_s` multiplies them with
  // 8 query values and adds pairs into four i32 lanes, and four accumulators keep the additions
  // independent. This does about half the instructions per byte of a 16-byte step that widens both
  // halves of a full v128 load, which is what bounded the scan (docs/BENCHMARKS.md).
  const i8Step = (k: number): number[] => {
    const acc = [A, B, C, E][k % 4] as number;
    return [...op.get(acc), ...op.get(ROW), ...op.load8x8s(k * 8), ...op.get(QP), ...op.v128load(k * 16), ...op.i32x4dotI16, ...op.i32x4add, ...op.set(acc)];
  };
  const i32Lanes = (acc: number): number[] => [...op.get(acc), ...op.i32lane(0), ...[1, 2, 3].flatMap((i) => [...op.get(acc), ...op.i32lane(i), ...op.add])];
  const i8Code = [
    ...op.block, ...op.loop,
    ...op.get(N), ...op.eqz, ...op.brIf(1),
    ...[A, B, C, E].flatMap((acc) => [...op.v128zero, ...op.set(acc)]),
    ...op.get(Q), ...op.set(QP), ...op.get(ROW), ...op.get(DIMS), ...op.add, ...op.set(D),
    // A do-while over the row: strides are whole steps, never zero.
    ...op.loop,
    ...[0, 1, 2, 3, 4, 5, 6, 7].flatMap(i8Step),
    ...step(ROW, INT8_LANES, op.add), ...step(QP, INT8_LANES * 2, op.add),
    ...op.get(ROW), ...op.get(D), ...op.ne, ...op.brIf(0),
    ...op.end,
    ...op.get(OUT),
    ...op.get(A), ...op.get(B), ...op.i32x4add, ...op.get(C), ...op.i32x4add, ...op.get(E), ...op.i32x4add, ...op.set(A),
    ...i32Lanes(A), ...op.i32store,
    ...step(OUT, 4, op.add), ...step(N, 1, op.sub),
    ...op.br(0), ...op.end, ...op.end,
    ...op.end,
  ];
  const body = (code: number[], vectors: number): number[] => {
    const full = [2, 2, I32, vectors, V128, ...code];
    return [...uleb(full.length), ...full];
  };
  // Memory 0: imported shared (limits flag 3: a maximum, shared) or the module's own (flag 0: min 1 page).
  const importedMemory = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(MAX_PAGES)]);
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...(shared ? importedMemory : []),
    ...section(3, [2, 0, 0]),
    ...(shared ? [] : section(5, [1, 0x00, 1])),
    ...section(7, [3, ...name('dots'), 0x00, 0, ...name('dotsI8'), 0x00, 1, ...name('memory'), 0x02, 0]),
    ...section(10, [2, ...body(f32Code, 2), ...body(i8Code, 4)]),
  ]);
}

/** The part of the WebAssembly API used here (the project's TypeScript lib has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
}

const compiled = new Map<boolean, object | null>();

/** The compiled kernel, or null where WebAssembly SIMD (or, `shared`, its threads) is unavailable. */
function kernelModule(shared: boolean): object | null {
  let module = compiled.get(shared);
  if (module === undefined) {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      module = api === undefined ? null : new api.Module(moduleBytes(shared));
    } catch {
      module = null;
    }
    compiled.set(shared, module);
  }
  return module;
}

/** A block of memory holding rows of `stride` numbers, with room for one query and one score per row. */
export interface DotKernel<Row, Query, Scores> {
  /** The rows, `rows × stride` numbers; write them once after creation. */
  readonly rows: Row;
  /** Where the query goes, `stride` numbers. */
  readonly query: Query;
  /** One score per row, written by `run`. */
  readonly scores: Scores;
  /** Fills `scores[from..to)` with the dot products of rows `[from, to)` with `query`. */
  run(from: number, to: number): void;
  /** How many threads a large `run` uses now: 1, or more while its helper threads are up. */
  readonly threads: number;
  /** Parts of scans its helper threads have run so far. */
  readonly helperParts: number;
  /** Helper threads not yet exited. */
  readonly helpersAlive: number;
  /** Stops the helper threads; later runs use the calling thread only. */
  close(): void;
}

export interface KernelOptions {
  /** Use the plain JavaScript loop (the reference the tests compare the SIMD path with). */
  forceJs?: boolean;
  /**
   * Threads a large scan may use, the calling one included. Default 1. Above 1, the rows live in
   * shared memory and helper threads start in the background (scan-threads.ts).
   */
  threads?: number;
  /** Told why a helper thread will no longer be used (it failed, exited or answered late). */
  onThreadRetired?: (reason: string) => void;
}

/** A scan splits across threads only in parts of at least this many row bytes: below, waking a thread costs more than it saves. */
const MIN_PART_BYTES = 512 * 1024;

export type Float32Kernel = DotKernel<Float32Array, Float32Array, Float32Array>;
/** int8 rows, int16 query, int32 dot products (exact integer arithmetic: no rounding in the kernel). */
export type Int8Kernel = DotKernel<Int8Array, Int16Array, Int32Array>;

type KernelCall = (q: number, row: number, n: number, dims: number, out: number) => void;

interface Instantiated {
  buffer: ArrayBufferLike;
  run: KernelCall;
  pool: ScanThreads | undefined;
}

/**
 * A kernel instance whose export `name` does the scan, with `bytes` of memory plus, for each helper
 * thread, `scratchBytes` where that thread writes its scores; null without WebAssembly SIMD.
 */
function instantiate(bytes: number, scratchBytes: number, name: string, options: KernelOptions): Instantiated | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly as WasmApi;
  const helpers = (options.threads ?? 1) - 1;
  const sharedPages = Math.max(1, Math.ceil((bytes + helpers * scratchBytes) / 65536));
  const sharedModule = helpers > 0 && sharedPages <= MAX_PAGES ? kernelModule(true) : null;
  if (sharedModule !== null) {
    try {
      const memory = new api.Memory({ initial: sharedPages, maximum: sharedPages, shared: true });
      const instance = new api.Instance(sharedModule, { env: { memory } });
      const pool = new ScanThreads(sharedModule, memory, name, helpers, { onRetire: options.onThreadRetired });
      return { buffer: memory.buffer, run: instance.exports[name] as KernelCall, pool };
    } catch {
      // No shared memory or no threads here: one thread, as below.
    }
  }
  const wasm = kernelModule(false);
  if (wasm === null) return null;
  const instance = new api.Instance(wasm, {});
  const memory = instance.exports.memory as WasmMemory;
  const need = Math.max(1, Math.ceil(bytes / 65536)) - memory.buffer.byteLength / 65536;
  if (need > 0) memory.grow(need);
  return { buffer: memory.buffer, run: instance.exports[name] as KernelCall, pool: undefined };
}

/**
 * A WebAssembly kernel over `rows`, whose rows are `rowBytes` apart from address 0, whose query and
 * scores start at `queryAt` and `scoresAt`, and whose helper threads' scratch areas (one score per
 * row each) follow the scores. A large range is cut into one part per ready thread.
 */
function wasmKernel<Row, Query, Scores>(
  wasm: Instantiated,
  arrays: { rows: Row; query: Query; scores: Scores },
  layout: { rowCount: number; queryAt: number; scoresAt: number; rowBytes: number; stride: number },
): DotKernel<Row, Query, Scores> {
  const { run: dots, pool } = wasm;
  const { rowCount, queryAt, scoresAt, rowBytes, stride } = layout;
  const bytes = new Uint8Array(wasm.buffer);
  const scratchAt = (slot: number): number => scoresAt + (slot + 1) * rowCount * 4;
  const split: SplitScan = {
    local: (from, to) => dots(queryAt, from * rowBytes, to - from, stride, scoresAt + from * 4),
    helperArgs: (slot, from, to) => [queryAt, from * rowBytes, to - from, stride, scratchAt(slot) + from * 4],
    collect: (slot, from, to) => bytes.copyWithin(scoresAt + from * 4, scratchAt(slot) + from * 4, scratchAt(slot) + to * 4),
  };
  return {
    ...arrays,
    run(from, to) {
      if (to <= from) return;
      const parts = pool === undefined ? 1 : Math.min(pool.ready + 1, Math.floor(((to - from) * rowBytes) / MIN_PART_BYTES));
      if (parts <= 1) {
        split.local(from, to);
        return;
      }
      const size = Math.ceil((to - from) / parts);
      const ranges: Array<[number, number]> = [];
      for (let start = from; start < to; start += size) ranges.push([start, Math.min(start + size, to)]);
      (pool as ScanThreads).run(ranges, split);
    },
    get threads() {
      return pool === undefined ? 1 : pool.ready + 1;
    },
    get helperParts() {
      return pool?.helperParts ?? 0;
    },
    get helpersAlive() {
      return pool?.alive ?? 0;
    },
    close() {
      pool?.close();
    },
  };
}

/** Allocates a float32 kernel for `rows` rows of `stride` floats (a multiple of DOT_LANES). */
export function createDotKernel(rows: number, stride: number, options: KernelOptions = {}): Float32Kernel {
  if (stride % DOT_LANES !== 0) throw new RangeError(`stride ${stride} is not a multiple of ${DOT_LANES}`);
  const queryAt = rows * stride * 4;
  const scoresAt = queryAt + stride * 4;
  const wasm = options.forceJs === true ? null : instantiate(scoresAt + rows * 4, rows * 4, 'dots', options);
  if (wasm === null) {
    return jsKernel(new Float32Array(rows * stride), new Float32Array(stride), new Float32Array(rows), stride);
  }
  const arrays = {
    rows: new Float32Array(wasm.buffer, 0, rows * stride),
    query: new Float32Array(wasm.buffer, queryAt, stride),
    scores: new Float32Array(wasm.buffer, scoresAt, rows),
  };
  return wasmKernel(wasm, arrays, { rowCount: rows, queryAt, scoresAt, rowBytes: stride * 4, stride });
}

/** Allocates an int8 kernel for `rows` rows of `stride` bytes (a multiple of INT8_LANES). */
export function createInt8Kernel(rows: number, stride: number, options: KernelOptions = {}): Int8Kernel {
  if (stride % INT8_LANES !== 0) throw new RangeError(`stride ${stride} is not a multiple of ${INT8_LANES}`);
  const queryAt = Math.ceil((rows * stride) / 16) * 16;
  const scoresAt = queryAt + stride * 2;
  const wasm = options.forceJs === true ? null : instantiate(scoresAt + rows * 4, rows * 4, 'dotsI8', options);
  if (wasm === null) return jsKernel(new Int8Array(rows * stride), new Int16Array(stride), new Int32Array(rows), stride);
  const arrays = {
    rows: new Int8Array(wasm.buffer, 0, rows * stride),
    query: new Int16Array(wasm.buffer, queryAt, stride),
    scores: new Int32Array(wasm.buffer, scoresAt, rows),
  };
  return wasmKernel(wasm, arrays, { rowCount: rows, queryAt, scoresAt, rowBytes: stride, stride });
}

type NumberArray = Float32Array | Int8Array | Int16Array | Int32Array;

function jsKernel<Row extends NumberArray, Query extends NumberArray, Scores extends NumberArray>(
  rows: Row,
  query: Query,
  scores: Scores,
  stride: number,
): DotKernel<Row, Query, Scores> {
  return {
    rows,
    query,
    scores,
    run(from, to) {
      for (let r = from; r < to; r += 1) {
        let sum = 0;
        const base = r * stride;
        for (let d = 0; d < stride; d += 1) sum += (rows[base + d] as number) * (query[d] as number);
        scores[r] = sum;
      }
    },
    threads: 1,
    helperParts: 0,
    helpersAlive: 0,
    close() {},
  };
}
