import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { createDotKernel, createInt8Kernel, DOT_LANES, INT8_LANES } from './dot-kernel.js';

describe('dot kernels', () => {
  it('compute in WebAssembly SIMD exactly the int8 · int16 dot products plain JavaScript computes, over any row range', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }).map((blocks) => blocks * INT8_LANES),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (stride, rows, seed) => {
          const simd = createInt8Kernel(rows, stride);
          const js = createInt8Kernel(rows, stride, { forceJs: true });
          let state = seed;
          const next = (): number => (state = (state * 1103515245 + 12345) % 2147483648);
          for (let i = 0; i < rows * stride; i += 1) simd.rows[i] = js.rows[i] = (next() % 255) - 127;
          for (let d = 0; d < stride; d += 1) simd.query[d] = js.query[d] = (next() % 8191) - 4095;
          const from = next() % rows;
          simd.run(from, rows);
          js.run(from, rows);
          expect([...simd.scores.subarray(from)]).toEqual([...js.scores.subarray(from)]);
          // Rows before `from` are not touched.
          expect([...simd.scores.subarray(0, from)].every((s) => s === 0)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('compute in WebAssembly SIMD the float32 dot products plain JavaScript computes, up to rounding', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }).map((blocks) => blocks * DOT_LANES), fc.integer({ min: 1, max: 20 }), (stride, rows) => {
        const simd = createDotKernel(rows, stride);
        const js = createDotKernel(rows, stride, { forceJs: true });
        for (let i = 0; i < rows * stride; i += 1) simd.rows[i] = js.rows[i] = Math.sin(i * 12.9898) * 0.5;
        for (let d = 0; d < stride; d += 1) simd.query[d] = js.query[d] = Math.cos(d * 78.233) * 0.5;
        simd.run(0, rows);
        js.run(0, rows);
        simd.scores.forEach((s, r) => expect(Math.abs(s - js.scores[r]!)).toBeLessThan(1e-5));
      }),
      { numRuns: 100 },
    );
  });

  it('split a large scan over threads and give exactly the one-thread scores, over any row range, and after close', async () => {
    // 4096 rows × 512 bytes = 2 MiB: room for up to four parts of the minimum size.
    const [rows, stride] = [4096, 8 * INT8_LANES];
    const threaded = createInt8Kernel(rows, stride, { threads: 3 });
    const single = createInt8Kernel(rows, stride);
    const floats = createDotKernel(1024, 256, { threads: 2 });
    const floatsSingle = createDotKernel(1024, 256);
    try {
      for (let i = 0; i < rows * stride; i += 1) threaded.rows[i] = single.rows[i] = ((i * 2654435761) % 255) - 127;
      for (let i = 0; i < 1024 * 256; i += 1) floats.rows[i] = floatsSingle.rows[i] = Math.sin(i * 12.9898) * 0.5;
      await eventually(() => threaded.threads === 3 && floats.threads === 2, { what: 'the helper threads are ready' });
      const ranges: Array<[number, number]> = [[0, rows], [1, rows - 1], [1000, 3100], [4000, rows], [7, 8]];
      for (const [from, to] of ranges) {
        for (let d = 0; d < stride; d += 1) threaded.query[d] = single.query[d] = ((d + from) * 7919) % 8191 - 4095;
        threaded.scores.fill(0);
        single.scores.fill(0);
        threaded.run(from, to);
        single.run(from, to);
        expect([...threaded.scores]).toEqual([...single.scores]);
      }
      // Parts of at least 512 KiB, at most one per thread: 3, 3, 2, 1 and 1 parts, so 2 + 2 + 1 on helpers.
      expect(threaded.helperParts).toBe(5);
      for (let d = 0; d < 256; d += 1) floats.query[d] = floatsSingle.query[d] = Math.cos(d * 78.233) * 0.5;
      floats.run(0, 1024);
      floatsSingle.run(0, 1024);
      expect([...floats.scores]).toEqual([...floatsSingle.scores]);
      expect(floats.helperParts).toBe(1);
      threaded.close();
      expect(threaded.threads).toBe(1);
      threaded.scores.fill(0);
      threaded.run(0, rows);
      single.run(0, rows);
      expect([...threaded.scores]).toEqual([...single.scores]);
    } finally {
      threaded.close();
      floats.close();
    }
  });
});
