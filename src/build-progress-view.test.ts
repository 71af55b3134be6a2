import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildProgressView } from './build-progress-view.js';

// The view's own timer only re-draws a stalled phase; fake timers keep it still, the clock is the test's.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function screen(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, out: { isTTY, columns: 200, write: (text: string) => writes.push(text) } };
}

describe('buildProgressView', () => {
  describe('on a terminal', () => {
    it('draws a new phase at once, redraws it at most every redrawMs with rate and ETA, and erases the bar at the end', () => {
      let clock = 0;
      const { writes, out } = screen(true);
      const view = buildProgressView({ out, redrawMs: 100, now: () => clock });
      view.update({ phase: 'read', done: 0, total: 1000, read: 0 });
      clock = 50;
      view.update({ phase: 'read', done: 400, total: 1000, read: 410 });
      clock = 2000;
      view.update({ phase: 'read', done: 500, total: 1000, read: 520 });
      view.update({ phase: 'index', done: 0, total: 900, chunks: 0 });
      view.finish();
      expect(writes).toEqual([
        '\r\x1b[Kreading files [░░░░░░░░░░░░░░░░] 0/1,000 extracted · 0 read',
        '\r\x1b[Kreading files [████████░░░░░░░░] 500/1,000 extracted · 250/s · ETA 2 s · 520 read',
        '\r\x1b[Kindexing [░░░░░░░░░░░░░░░░] 0/900 documents · 0 chunks',
        '\r\x1b[K',
      ]);
    });

    it('cuts the line to the width of the terminal', () => {
      const { writes, out } = screen(true);
      out.columns = 20;
      buildProgressView({ out, now: () => 0 }).update({ phase: 'index', done: 1, total: 9, chunks: 3 });
      expect(writes[0]).toBe('\r\x1b[Kindexing [██░░░░░░░');
    });
  });

  describe('off a terminal', () => {
    it('prints a plain line once lineMs have passed since the last, and nothing at the end', () => {
      let clock = 0;
      const { writes, out } = screen(false);
      const view = buildProgressView({ out, lineMs: 5000, prefix: 'corpus-mcp index: ', now: () => clock });
      view.update({ phase: 'walk', done: 0, total: 0 });
      clock = 1000;
      view.update({ phase: 'read', done: 0, total: 100, read: 0 });
      clock = 5000;
      view.update({ phase: 'read', done: 40, total: 100, read: 41 });
      clock = 6000;
      view.update({ phase: 'read', done: 50, total: 100, read: 52 });
      clock = 12_000;
      view.update({ phase: 'encode', done: 0, total: 0 });
      view.finish();
      expect(writes).toEqual(['corpus-mcp index: reading files: 40/100 extracted (40%), 41 read, 10/s, ETA 6 s\n', 'corpus-mcp index: encoding the snapshot…\n']);
    });
  });

  it.each([0, Number.NaN])('refuses a redraw or line interval of %s ms', (ms) => {
    expect(() => buildProgressView({ out: screen(false).out, lineMs: ms })).toThrow(/lineMs must be a number of milliseconds ≥ 1/);
  });
});
