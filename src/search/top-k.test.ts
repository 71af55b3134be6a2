import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTopK, MAX_TOP_K, TopK } from './top-k.js';

describe('checkTopK', () => {
  it.each([1, 10, MAX_TOP_K])('accepts %s', (topK) => {
    expect(() => checkTopK(topK)).not.toThrow();
  });

  it.each([0, -1, 2.5, Number.NaN, MAX_TOP_K + 1])('refuses %s with invalid_argument, naming the range', (topK) => {
    expect(() => checkTopK(topK)).toThrow(expect.objectContaining({ code: 'invalid_argument', message: `topK=${topK} is invalid: expected an integer from 1 to ${MAX_TOP_K}` }));
  });
});

describe('TopK', () => {
  describe('drain', () => {
    it('returns the k best of any input, best first, exactly like sorting everything', () => {
      fc.assert(
        fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 200 }), fc.integer({ min: 1, max: 30 }), (values, k) => {
          const top = new TopK(k);
          values.forEach((score, id) => top.push(score, id));
          const expected = values
            .map((score, id) => ({ score, id }))
            .sort((a, b) => b.score - a.score || a.id - b.id)
            .slice(0, k);
          const { ids, scores } = top.drain();
          expect(ids).toEqual(expected.map((e) => e.id));
          expect(scores).toEqual(expected.map((e) => e.score));
        }),
      );
    });

    it('breaks ties by the lower id whatever the order of arrival', () => {
      const top = new TopK(2);
      for (const id of [5, 3, 9, 1]) top.push(1, id);
      expect(top.drain().ids).toEqual([1, 3]);
    });

    it('leaves the heap empty and reusable', () => {
      const top = new TopK(3);
      top.push(1, 1);
      top.drain();
      expect(top.size).toBe(0);
      top.push(2, 7);
      expect(top.drain()).toEqual({ ids: [7], scores: [2] });
    });
  });
});
