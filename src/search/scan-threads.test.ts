import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../test/support/until.js';
import { ScanThreads } from './scan-threads.js';

// The project's TypeScript lib declares no WebAssembly values.
const wasm = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object; Memory: new (d: object) => { buffer: SharedArrayBuffer } } }).WebAssembly;

// A module over a shared memory with two exports of the kernel's shape (five i32 arguments):
// `mark(address, value, …)` stores value at address; `spin` never returns.
function testModule(): object {
  const name = (s: string): number[] => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  const section = (id: number, body: number[]): number[] => [id, body.length, ...body];
  const body = (code: number[]): number[] => [code.length + 1, 0, ...code];
  const mark = [0x20, 0, 0x20, 1, 0x36, 2, 0, 0x0b];
  const spin = [0x03, 0x40, 0x0c, 0, 0x0b, 0x0b];
  return new wasm.Module(
    Uint8Array.from([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
      ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
      ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x03, 1, 1]),
      ...section(3, [2, 0, 0]),
      ...section(7, [2, ...name('mark'), 0x00, 0, ...name('spin'), 0x00, 1]),
      ...section(10, [2, ...body(mark), ...body(spin)]),
    ]),
  );
}

const pools: ScanThreads[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

function start(exportName: string, count: number, options?: { answerLimitMs: number }): { pool: ScanThreads; cells: Int32Array } {
  const memory = new wasm.Memory({ initial: 1, maximum: 1, shared: true });
  const pool = new ScanThreads(testModule(), memory, exportName, count, options);
  pools.push(pool);
  return { pool, cells: new Int32Array(memory.buffer) };
}

describe('ScanThreads', () => {
  it('runs the first call on the calling thread and each other call on its own thread, over the same memory', async () => {
    const { pool, cells } = start('mark', 3);
    await until(() => pool.ready === 3, 'three threads are ready');
    const local: number[][] = [];
    for (let round = 1; round <= 50; round += 1) {
      local.length = 0;
      pool.run([[0, round, 0, 0, 0], [4, round * 10, 0, 0, 0], [8, round * 100, 0, 0, 0], [12, round * 1000, 0, 0, 0]], (...args) => local.push(args));
      // Every thread's store is visible as soon as run returns.
      expect([...cells.subarray(1, 4)]).toEqual([round * 10, round * 100, round * 1000]);
      expect(local).toEqual([[0, round, 0, 0, 0]]);
    }
  });

  it('runs on the calling thread what no ready thread can take', async () => {
    const { pool } = start('mark', 1);
    const early: number[][] = [];
    // Right after the start, no thread may be ready yet: every call runs here.
    const readyAtStart = pool.ready;
    pool.run([[0, 1, 0, 0, 0], [4, 2, 0, 0, 0]], (...args) => early.push(args));
    expect(early.length).toBe(2 - readyAtStart);
    await until(() => pool.ready === 1, 'the thread is ready');
    const calls: number[][] = [];
    pool.run([[0, 1, 0, 0, 0], [4, 2, 0, 0, 0], [8, 3, 0, 0, 0]], (...args) => calls.push(args));
    expect(calls).toEqual([[0, 1, 0, 0, 0], [8, 3, 0, 0, 0]]);
  });

  it('retires a thread that does not answer in time and runs its part on the calling thread', async () => {
    const { pool } = start('spin', 1, { answerLimitMs: 200 });
    await until(() => pool.ready === 1, 'the thread is ready');
    const calls: number[][] = [];
    const started = performance.now();
    pool.run([[0, 1, 0, 0, 0], [4, 2, 0, 0, 0]], (...args) => calls.push(args));
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(calls).toEqual([[0, 1, 0, 0, 0], [4, 2, 0, 0, 0]]);
    expect(pool.ready).toBe(0);
  });

  it('after close, runs everything on the calling thread', async () => {
    const { pool, cells } = start('mark', 2);
    await until(() => pool.ready === 2, 'two threads are ready');
    pool.close();
    expect(pool.ready).toBe(0);
    const calls: number[][] = [];
    pool.run([[0, 1, 0, 0, 0], [4, 2, 0, 0, 0], [8, 3, 0, 0, 0]], (...args) => calls.push(args));
    expect(calls.length).toBe(3);
    expect(cells[1]).toBe(0);
  });
});
