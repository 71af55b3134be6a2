import { describe, expect, it } from 'vitest';
import { roundScore } from './score.js';

describe('roundScore', () => {
  it('rounds to four decimals', () => {
    expect(roundScore(0.123456)).toBe(0.1235);
    expect(roundScore(-2.00004)).toBe(-2);
  });

  it('keeps a finite score that rounding would overflow, so the answer holds a number, not null', () => {
    expect(roundScore(1e305)).toBe(1e305);
    expect(roundScore(-1e305)).toBe(-1e305);
    expect(JSON.stringify({ score: roundScore(1e305) })).toBe('{"score":1e+305}');
  });
});
