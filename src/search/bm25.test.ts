import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { combinedTf, idf, queryTermWeight, saturate, type Bm25Params } from './bm25.js';

const params: Bm25Params = { k1: 1.2, b: 0.75, queryK3: 1.2, titleWeight: 1.5, headingWeight: 1 };

describe('bm25', () => {
  describe('idf', () => {
    it('is positive even for a term held by every chunk', () => {
      expect(idf(10, 10)).toBeGreaterThan(0);
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 0, max: 1, noNaN: true }), (total, share) => {
          expect(idf(total, Math.round(total * share))).toBeGreaterThan(0);
        }),
      );
    });

    it('falls as more chunks hold the term', () => {
      expect(idf(100, 1)).toBeGreaterThan(idf(100, 10));
      expect(idf(100, 10)).toBeGreaterThan(idf(100, 90));
    });
  });

  describe('saturate', () => {
    it('is 0 at 0, grows with tf and never reaches k1 + 1', () => {
      expect(saturate(0, 1.2)).toBe(0);
      let previous = 0;
      for (const tf of [0.5, 1, 2, 5, 50, 5000]) {
        const value = saturate(tf, 1.2);
        expect(value).toBeGreaterThan(previous);
        expect(value).toBeLessThan(2.2);
        previous = value;
      }
    });

    it('adds less for each further repeat of a term', () => {
      const gains = [1, 2, 3, 4].map((tf) => saturate(tf, 1.2) - saturate(tf - 1, 1.2));
      for (let i = 1; i < gains.length; i += 1) expect(gains[i]).toBeLessThan(gains[i - 1]!);
    });

    it('treats any number of occurrences as one match when k1 is 0', () => {
      expect(saturate(1, 0)).toBe(1);
      expect(saturate(7, 0)).toBe(1);
    });
  });

  describe('combinedTf', () => {
    it('weighs a body occurrence less in a longer chunk', () => {
      expect(combinedTf(params, 1, 0, 0, 200, 100)).toBeLessThan(combinedTf(params, 1, 0, 0, 100, 100));
      expect(combinedTf(params, 1, 0, 0, 50, 100)).toBeGreaterThan(1);
    });

    it('ignores chunk length when b is 0', () => {
      const flat = { ...params, b: 0 };
      expect(combinedTf(flat, 2, 0, 0, 10, 100)).toBe(combinedTf(flat, 2, 0, 0, 1000, 100));
    });

    it('adds title and heading occurrences at their field weights, without length normalisation', () => {
      expect(combinedTf(params, 0, 2, 0, 500, 100)).toBe(3);
      expect(combinedTf(params, 0, 0, 1, 500, 100)).toBe(1);
      expect(combinedTf({ ...params, titleWeight: 0 }, 0, 2, 0, 500, 100)).toBe(0);
    });

    it('stays finite for a chunk with an empty body when b is 1', () => {
      const full = { ...params, b: 1 };
      expect(combinedTf(full, 0, 0, 0, 0, 0.5)).toBe(0);
      expect(combinedTf(full, 0, 2, 1, 0, 0.5)).toBe(4);
    });
  });

  describe('queryTermWeight', () => {
    it('is 1 for a term written once in the query, whatever k3', () => {
      for (const k3 of [0, 0.5, 1.2, 8, 1000]) expect(queryTermWeight(1, k3)).toBeCloseTo(1, 12);
    });

    it('counts a repeated term more than once but never as much as k3 + 1', () => {
      let previous = 1;
      for (const qtf of [2, 3, 5, 50]) {
        const value = queryTermWeight(qtf, 1.2);
        expect(value).toBeGreaterThan(previous);
        expect(value).toBeLessThan(2.2);
        previous = value;
      }
    });

    it('counts each distinct term once when k3 is 0 and repeats almost linearly when k3 is large', () => {
      expect(queryTermWeight(4, 0)).toBe(1);
      expect(queryTermWeight(3, 1000)).toBeCloseTo(3, 1);
    });
  });
});
