import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { ScanThreads, type ScanThreadsOptions, type SplitScan } from './scan-threads.js';

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

function start(exportName: string, count: number, options?: ScanThreadsOptions): { pool: ScanThreads; cells: Int32Array } {
  const memory = new wasm.Memory({ initial: 1, maximum: 1, shared: true });
  const pool = new ScanThreads(testModule(), memory, exportName, count, options);
  pools.push(pool);
  return { pool, cells: new Int32Array(memory.buffer) };
}

/**
 * A split scan over the test module: helper `slot` stores `round * 10000 + from` in its own cell
 * (address 4 × (slot + 1)); collecting reads that cell; local parts are only recorded.
 */
function recorder(cells: Int32Array, round = 1) {
  const local: Array<[number, number]> = [];
  const collected: Array<{ slot: number; from: number; value: number }> = [];
  const scan: SplitScan = {
    local: (from, to) => void local.push([from, to]),
    helperArgs: (slot, from) => [4 * (slot + 1), round * 10000 + from, 0, 0, 0],
    collect: (slot, from) => void collected.push({ slot, from, value: Atomics.load(cells, slot + 1) }),
  };
  return { scan, local, collected };
}

const PARTS: Array<[number, number]> = [[0, 10], [10, 20], [20, 30], [30, 40]];

describe('ScanThreads', () => {
  it('runs the first part on the calling thread and each other part on its own thread, and collects what each wrote', async () => {
    const { pool, cells } = start('mark', 3);
    await eventually(() => pool.ready === 3, { what: 'three threads are ready' });
    for (let round = 1; round <= 50; round += 1) {
      const { scan, local, collected } = recorder(cells, round);
      pool.run(PARTS, scan);
      expect(local).toEqual([[0, 10]]);
      // What each thread stored is visible as soon as it said it was done.
      expect(collected).toEqual([
        { slot: 0, from: 10, value: round * 10000 + 10 },
        { slot: 1, from: 20, value: round * 10000 + 20 },
        { slot: 2, from: 30, value: round * 10000 + 30 },
      ]);
    }
    expect(pool.helperParts).toBe(150);
  });

  it('runs on the calling thread the parts no ready thread can take', async () => {
    const { pool, cells } = start('mark', 1);
    await eventually(() => pool.ready === 1, { what: 'the thread is ready' });
    const { scan, local, collected } = recorder(cells);
    pool.run(PARTS.slice(0, 3), scan);
    expect(local).toEqual([PARTS[0], PARTS[2]]);
    expect(collected).toEqual([{ slot: 0, from: 10, value: 10010 }]);
  });

  it('never uses a thread that failed to start, and says why', async () => {
    const reasons: string[] = [];
    // Two pages where the module accepts at most one: the thread cannot instantiate it.
    const memory = new wasm.Memory({ initial: 1, maximum: 2, shared: true });
    const pool = new ScanThreads(testModule(), memory, 'mark', 1, { onRetire: (reason) => reasons.push(reason) });
    pools.push(pool);
    await eventually(() => reasons.length > 0, { what: 'the failure is reported' });
    expect(reasons[0]).toMatch(/^scan thread 0 failed: /);
    const { scan, local } = recorder(new Int32Array(memory.buffer));
    pool.run(PARTS.slice(0, 2), scan);
    expect(local).toEqual(PARTS.slice(0, 2));
    expect(pool.ready).toBe(0);
  });

  it('retires a thread that does not answer in time, runs its part here, never collects it, says why, and stops the thread', async () => {
    const reasons: string[] = [];
    const { pool, cells } = start('spin', 1, { answerLimitMs: 200, onRetire: (reason) => reasons.push(reason) });
    await eventually(() => pool.ready === 1, { what: 'the thread is ready' });
    const { scan, local, collected } = recorder(cells);
    pool.run(PARTS.slice(0, 2), scan);
    expect(local).toEqual(PARTS.slice(0, 2));
    expect(collected).toEqual([]);
    expect(pool.ready).toBe(0);
    expect(reasons).toEqual(['scan thread 0 did not answer within 200 ms; its part ran on the calling thread']);
    // Terminating interrupts even a thread stuck in WebAssembly.
    await eventually(() => pool.alive === 0, { what: 'the late thread has exited' });
    expect(reasons.length).toBe(1);
  });

  it('waits one answer limit for all late threads together, not one limit each', async () => {
    const { pool, cells } = start('spin', 3, { answerLimitMs: 500 });
    await eventually(() => pool.ready === 3, { what: 'three threads are ready' });
    const started = performance.now();
    pool.run(PARTS, recorder(cells).scan);
    // The one assertion here on elapsed time, as what is tested is how long run() blocks (it waits
    // with Atomics.wait, which no fake clock reaches). One limit is 500 ms; a limit per thread would
    // be at least 1500. The bound sits near the latter, so a loaded machine has 900 ms of slack.
    expect(performance.now() - started).toBeLessThan(1400);
  });

  it('after close, runs everything on the calling thread, stops every thread, and reports no retirement', async () => {
    const reasons: string[] = [];
    const { pool, cells } = start('mark', 2, { onRetire: (reason) => reasons.push(reason) });
    await eventually(() => pool.ready === 2, { what: 'two threads are ready' });
    pool.close();
    expect(pool.ready).toBe(0);
    const { scan, local, collected } = recorder(cells);
    pool.run(PARTS.slice(0, 3), scan);
    expect(local).toEqual(PARTS.slice(0, 3));
    expect(collected).toEqual([]);
    await eventually(() => pool.alive === 0, { what: 'both threads have exited' });
    expect(reasons).toEqual([]);
  });
});
