import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../test/support/eventually.js';
import { queryLevelsFor, VectorIndex } from './vector-index.js';

const unit = (values: number[]): Float32Array => {
  const norm = Math.hypot(...values) || 1;
  return Float32Array.from(values, (v) => v / norm);
};
/** Seeded numbers in [-1, 1): the same vectors on every run. */
const uniform = (seed: number) => (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
const vectorOf = (dims: number) => fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: dims, maxLength: dims }).map(unit);

describe('VectorIndex', () => {
  describe('nearest', () => {
    it('ranks exactly like sorting every dot product, in float32 and int8 (rescored), with the SIMD kernels and with plain JavaScript', () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 21 }).chain((dims) =>
            fc.tuple(fc.constant(dims), fc.array(fc.option(vectorOf(dims), { nil: undefined, freq: 6 }), { minLength: 1, maxLength: 40 }), vectorOf(dims)),
          ),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 0, max: 45 }),
          fc.integer({ min: 0, max: 45 }),
          ([dims, vectors, query], topK, a, b) => {
            const from = Math.min(a, b, vectors.length);
            const to = Math.min(Math.max(a, b), vectors.length);
            const expected = vectors
              .map((v, i) => ({ i, score: v === undefined ? undefined : v.reduce((s, x, d) => s + x * query[d]!, 0) }))
              .filter((e): e is { i: number; score: number } => e.score !== undefined && e.i >= from && e.i < to)
              .sort((x, y) => y.score - x.score || x.i - y.i)
              .slice(0, topK);
            for (const [precision, forceJs] of [['float32', false], ['float32', true], ['int8', false], ['int8', true]] as const) {
              const index = VectorIndex.build(dims, vectors, { precision, forceJs });
              const got = index.nearest(query, topK, from, to);
              expect(got.ids.length).toBe(expected.length);
              got.ids.forEach((id, r) => {
                expect(Math.abs(got.scores[r]! - expected[r]!.score)).toBeLessThan(1e-5);
                // The same chunk at each rank unless two scores tie up to float32 rounding.
                if (id !== expected[r]!.i) expect(Math.abs(got.scores[r]! - expected[r]!.score)).toBeLessThan(1e-5);
              });
            }
          },
        ),
        { numRuns: 300 },
      );
    });

    it('finds the exact top chunks in int8 among many near neighbours (candidates rescored in float32)', () => {
      const dims = 128; // a multiple of both kernels' lanes, so no row padding
      const random = uniform(7);
      const vectors = Array.from({ length: 3000 }, () => unit(Array.from({ length: dims }, random)));
      const query = unit(Array.from({ length: dims }, random));
      const exact = VectorIndex.build(dims, vectors).nearest(query, 10);
      const int8 = VectorIndex.build(dims, vectors, { precision: 'int8' }).nearest(query, 10);
      expect(int8.ids).toEqual(exact.ids);
      int8.scores.forEach((s, i) => expect(s).toBeCloseTo(exact.scores[i]!, 5));
    });

    it('answers the same with its scan split over threads, and on one thread again after close', async () => {
      const dims = 384;
      const random = uniform(11);
      // 6000 × 384 bytes of int8 rows (2.2 MiB), or 4 bytes a number in float32: the whole range is split, the subrange (1.6 MiB) too.
      const vectors = Array.from({ length: 6000 }, (_, i) => (i % 7 === 3 ? undefined : unit(Array.from({ length: dims }, random))));
      const queries = Array.from({ length: 5 }, () => unit(Array.from({ length: dims }, random)));
      for (const precision of ['int8', 'float32'] as const) {
        const one = VectorIndex.build(dims, vectors, { precision });
        const split = VectorIndex.build(dims, vectors, { precision, threads: 2 });
        try {
          await eventually(() => split.threads === 2, { what: 'the scan thread is ready' });
          for (const query of queries) {
            expect(split.nearest(query, 20)).toEqual(one.nearest(query, 20));
            expect(split.nearest(query, 5, 1234, 5678)).toEqual(one.nearest(query, 5, 1234, 5678));
          }
          // Each query's two scans, whole range and subrange, each cut in two: one part each on the helper.
          expect(split.helperParts).toBe(2 * queries.length);
          split.close();
          expect(split.threads).toBe(1);
          expect(split.nearest(queries[0]!, 20)).toEqual(one.nearest(queries[0]!, 20));
        } finally {
          split.close();
        }
      }
    });

    it('never returns a chunk that has no vector', () => {
      const index = VectorIndex.build(2, [undefined, unit([1, 0]), undefined]);
      expect(index.nearest(unit([1, 0]), 5).ids).toEqual([1]);
      expect(index.has(0)).toBe(false);
      expect(index.similarity(unit([1, 0]), 0)).toBeUndefined();
    });

    it('ranks a vector first against itself at 8192 dimensions, where a 12-bit query could overflow the int32 sum', () => {
      const dims = 8192;
      const flat = new Float32Array(dims).fill(1 / Math.sqrt(dims));
      // Every other vector leans towards `flat` (cosine about 0.46) without overflowing: at one sum that
      // wrapped below zero, `flat` would drop out of the int8 scan's 64 candidates.
      const random = uniform(13);
      const others = Array.from({ length: 200 }, () => unit(Array.from({ length: dims }, () => 0.3 + random())));
      for (const forceJs of [false, true]) {
        const index = VectorIndex.build(dims, [...others, flat], { precision: 'int8', forceJs });
        const { ids, scores } = index.nearest(flat, 1);
        expect(ids).toEqual([200]);
        expect(scores[0]).toBeCloseTo(1, 5);
      }
      expect(queryLevelsFor(8192) * 127 * 8192).toBeLessThanOrEqual(2 ** 31 - 1);
      expect(queryLevelsFor(1536)).toBe(4095);
    });

    it('counts the bytes it holds: about 4 a number in float32, 5 in int8 (the float32 rows kept for rescoring)', () => {
      const count = 20_000;
      const dims = 128; // a multiple of both kernels' lanes, so no row padding
      const vectors = Array.from({ length: count }, (_, i) => unit(Array.from({ length: dims }, (_, d) => Math.sin(i + d))));
      const numbers = count * dims;
      const page = 65536;
      const f32 = VectorIndex.build(dims, vectors);
      expect(f32.bytes).toBeGreaterThanOrEqual(numbers * 4 + count * 4);
      expect(f32.bytes).toBeLessThan(numbers * 4 + count * 5 + dims * 4 + page);
      const i8 = VectorIndex.build(dims, vectors, { precision: 'int8' });
      expect(i8.bytes).toBeGreaterThanOrEqual(numbers * 5 + count * 8);
      expect(i8.bytes).toBeLessThan(numbers * 5 + count * 9 + dims * 2 + page);
      // Each helper thread adds a scratch area of one score per chunk.
      const split = VectorIndex.build(dims, vectors, { precision: 'int8', threads: 3 });
      expect(split.bytes - i8.bytes).toBeGreaterThanOrEqual(2 * count * 4 - page);
      expect(split.bytes - i8.bytes).toBeLessThan(2 * count * 4 + page);
      split.close();
    });

    it('hands out a chunk\'s vector without a copy in int8 (a view of the rescoring rows), a copy in float32', () => {
      const vectors = [unit([1, 2, 3]), undefined, unit([3, 2, 1])];
      const i8 = VectorIndex.build(3, vectors, { precision: 'int8' });
      expect([...i8.row(0)!]).toEqual([...vectors[0]!]);
      expect([...i8.row(2)!]).toEqual([...vectors[2]!]);
      expect(i8.row(1)).toBeUndefined();
      expect(i8.row(0)!.buffer).toBe(i8.row(2)!.buffer);
      const f32 = VectorIndex.build(3, vectors);
      expect([...f32.row(2)!]).toEqual([...vectors[2]!]);
      expect(f32.row(0)!.buffer).not.toBe(f32.row(2)!.buffer);
    });

    it('refuses a query or a stored vector of the wrong length, naming both lengths', () => {
      expect(() => VectorIndex.build(3, [new Float32Array(2)])).toThrow(/vector 0 has 2 numbers where the index holds 3/);
      const index = VectorIndex.build(3, [unit([1, 0, 0])]);
      expect(() => index.nearest(new Float32Array(4), 1)).toThrow(/query vector has 4 numbers where the index holds 3/);
    });
  });
});
