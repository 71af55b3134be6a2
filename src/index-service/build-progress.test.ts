import { describe, expect, it } from 'vitest';
import { progressRatio, progressUnit, throttleProgress } from './build-progress.js';
import type { BuildProgress } from './build-progress.js';

const read = (done: number): BuildProgress => ({ phase: 'read', done, total: 10, read: done });

describe('throttleProgress', () => {
  it('passes the first report, then one per interval within a phase, and every change of phase at once', () => {
    let clock = 0;
    const seen: BuildProgress[] = [];
    const report = throttleProgress((p) => seen.push(p), { intervalMs: 250, now: () => clock });
    report(read(1));
    clock = 100;
    report(read(2));
    clock = 249;
    report(read(3));
    report({ phase: 'index', done: 0, total: 10, chunks: 0 });
    clock = 300;
    report({ phase: 'index', done: 4, total: 10, chunks: 9 });
    clock = 499;
    report({ phase: 'index', done: 5, total: 10, chunks: 11 });
    expect(seen.map((p) => `${p.phase} ${p.done}`)).toEqual(['read 1', 'index 0', 'index 5']);
  });

  it.each([-1, Number.NaN, Infinity])('refuses an interval of %s ms', (intervalMs) => {
    expect(() => throttleProgress(() => {}, { intervalMs })).toThrow(/intervalMs must be a number of milliseconds ≥ 0/);
  });
});

describe('progressRatio and progressUnit', () => {
  it('count files while reading and documents while indexing; other phases are not counted', () => {
    expect(progressRatio(read(4))).toBe(0.4);
    expect(progressUnit('read')).toBe('files');
    expect(progressUnit('index')).toBe('documents');
    expect(progressUnit('encode')).toBeUndefined();
    expect(progressRatio({ phase: 'walk', done: 0, total: 0 })).toBe(0);
  });
});
