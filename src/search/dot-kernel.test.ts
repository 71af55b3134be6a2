import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
          const js = createInt8Kernel(rows, stride, true);
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
        const js = createDotKernel(rows, stride, true);
        for (let i = 0; i < rows * stride; i += 1) simd.rows[i] = js.rows[i] = Math.sin(i * 12.9898) * 0.5;
        for (let d = 0; d < stride; d += 1) simd.query[d] = js.query[d] = Math.cos(d * 78.233) * 0.5;
        simd.run(0, rows);
        js.run(0, rows);
        simd.scores.forEach((s, r) => expect(Math.abs(s - js.scores[r]!)).toBeLessThan(1e-5));
      }),
      { numRuns: 100 },
    );
  });
});
