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

/** Rows are padded to a multiple of this many floats. */
export const DOT_LANES = 8;

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
  f32add: [0x92],
  f32store: [0x38, 0x02, 0x00],
  v128load: (offset: number) => [0xfd, 0x00, 0x02, ...uleb(offset)],
  v128zero: [0xfd, 0x0c, ...new Array<number>(16).fill(0)],
  lane: (i: number) => [0xfd, 0x1f, i],
  f32x4add: [0xfd, 0xe4, 0x01],
  f32x4mul: [0xfd, 0xe6, 0x01],
};
const [Q, ROW, N, DIMS, OUT, QP, D, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

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

function moduleBytes(): Uint8Array {
  const accumulate = (acc: number, offset: number): number[] => [
    ...op.get(acc), ...op.get(ROW), ...op.v128load(offset), ...op.get(QP), ...op.v128load(offset), ...op.f32x4mul, ...op.f32x4add, ...op.set(acc),
  ];
  const step = (local: number, by: number, sign: number[]): number[] => [...op.get(local), ...op.i32(by), ...sign, ...op.set(local)];
  const lanes = (acc: number): number[] => [...op.get(acc), ...op.lane(0), ...[1, 2, 3].flatMap((i) => [...op.get(acc), ...op.lane(i), ...op.f32add])];
  const code = [
    ...op.block, ...op.loop,
    ...op.get(N), ...op.eqz, ...op.brIf(1),
    ...op.v128zero, ...op.set(A), ...op.v128zero, ...op.set(B),
    ...op.get(Q), ...op.set(QP), ...op.get(DIMS), ...op.set(D),
    ...op.block, ...op.loop,
    ...op.get(D), ...op.eqz, ...op.brIf(1),
    ...accumulate(A, 0), ...accumulate(B, 16),
    ...step(ROW, 32, op.add), ...step(QP, 32, op.add), ...step(D, 8, op.sub),
    ...op.br(0), ...op.end, ...op.end,
    ...op.get(OUT), ...lanes(A), ...lanes(B), ...op.f32add, ...op.f32store,
    ...step(OUT, 4, op.add), ...step(N, 1, op.sub),
    ...op.br(0), ...op.end, ...op.end,
    ...op.end,
  ];
  const body = [2, 2, I32, 2, V128, ...code];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
    ...section(3, [1, 0]),
    ...section(5, [1, 0x00, 1]),
    ...section(7, [2, ...name('dots'), 0x00, 0, ...name('memory'), 0x02, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
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
}

let compiled: object | null | undefined;

/** The compiled kernel, or null where WebAssembly SIMD is unavailable (then callers use plain JavaScript). */
function kernelModule(): object | null {
  if (compiled === undefined) {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    try {
      compiled = api === undefined ? null : new api.Module(moduleBytes());
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/** A block of memory holding rows of `stride` floats, with room for one query and one score per row. */
export interface DotKernel {
  /** The rows, `rows × stride` floats; write them once after creation. */
  readonly rows: Float32Array;
  /** Where the query goes, `stride` floats. */
  readonly query: Float32Array;
  /** One score per row, written by `run`. */
  readonly scores: Float32Array;
  /** Fills `scores[from..to)` with the dot products of rows `[from, to)` with `query`. */
  run(from: number, to: number): void;
}

/**
 * Allocates a kernel for `rows` rows of `stride` floats (a multiple of DOT_LANES). `forceJs` skips
 * WebAssembly: the JavaScript loop is the reference the tests compare the SIMD path with.
 */
export function createDotKernel(rows: number, stride: number, forceJs = false): DotKernel {
  if (stride % DOT_LANES !== 0) throw new RangeError(`stride ${stride} is not a multiple of ${DOT_LANES}`);
  const wasm = forceJs ? null : kernelModule();
  if (wasm === null) return jsKernel(rows, stride);
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly as WasmApi;
  const instance = new api.Instance(wasm, {});
  const memory = instance.exports.memory as WasmMemory;
  const dots = instance.exports.dots as (q: number, row: number, n: number, dims: number, out: number) => void;
  const floats = rows * stride + stride + rows;
  const need = Math.ceil((floats * 4) / 65536) - memory.buffer.byteLength / 65536;
  if (need > 0) memory.grow(need);
  const buffer = memory.buffer;
  const rowsView = new Float32Array(buffer, 0, rows * stride);
  const queryAt = rows * stride * 4;
  const scoresAt = queryAt + stride * 4;
  return {
    rows: rowsView,
    query: new Float32Array(buffer, queryAt, stride),
    scores: new Float32Array(buffer, scoresAt, rows),
    run(from, to) {
      if (to > from) dots(queryAt, from * stride * 4, to - from, stride, scoresAt + from * 4);
    },
  };
}

function jsKernel(rowCount: number, stride: number): DotKernel {
  const rows = new Float32Array(rowCount * stride);
  const query = new Float32Array(stride);
  const scores = new Float32Array(rowCount);
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
  };
}
