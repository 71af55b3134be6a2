import { describe, expect, it } from 'vitest';
import type { Document } from '../corpus/document.js';
import { markdownSections } from '../corpus/extract/markdown.js';
import { encodeIndexSnapshot } from '../search/index-snapshot.js';
import { SearchIndex, type SearchIndexOptions } from '../search/search-index.js';
import { buildSearchIndex } from './parallel-build.js';

/** The snapshot bytes of an index, its build time set aside (the one field two equal builds differ in). */
function encoded(index: SearchIndex): Uint8Array {
  return encodeIndexSnapshot(SearchIndex.fromParts({ ...index.parts(), buildSeconds: 0 }), { engine: 'test' });
}

/** A seeded corpus of `count` documents: Zipf-ish words over a few thousand, headings, some pages, some scripts. */
function corpusOf(count: number, seed: number): Document[] {
  let state = seed;
  const random = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  const special = ['東京都', 'Café', "don't", '😀', 'ß', 'running', 'runs', 'the'];
  const word = (): string => (random() < 0.05 ? (special[Math.floor(random() * special.length)] as string) : `w${Math.floor(4000 * random() ** 3)}`);
  const words = (n: number): string => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, i) => {
    const text = [`# ${words(2)}`, words(20 + Math.floor(random() * 300)), `## ${words(2)}`, words(Math.floor(random() * 200))].join('\n\n');
    const paged = random() < 0.2;
    const half = text.length >> 1;
    return {
      source: `part-${i % 13}/doc-${i}.md`,
      format: paged ? 'pdf' : 'markdown',
      title: words(1 + Math.floor(random() * 3)),
      text,
      bodyStart: 0,
      bytes: text.length,
      sections: markdownSections(text, 0),
      ...(paged ? { pages: [{ start: 0, end: half }, { start: half, end: text.length }] } : {}),
    } satisfies Document;
  });
}

describe('buildSearchIndex', () => {
  it.each<[string, SearchIndexOptions]>([
    ['the default options', {}],
    ['feedback on (forward lists kept) and short chunks', { feedbackWeight: 0.3, chunkWords: 40, overlapWords: 10 }],
  ])('builds on worker threads exactly the index a serial build makes, with %s', async (_, options) => {
    const documents = corpusOf(400, options.feedbackWeight === undefined ? 1 : 2);
    const serial = SearchIndex.build(documents, options);
    const { index, report } = await buildSearchIndex(documents, options, { threads: 2, minParallelChars: 0, batchChars: 10_000 });
    expect(report).toMatchObject({ threads: 2, fallbacks: 0 });
    expect(report.batches).toBeGreaterThan(10);
    expect(index.stats).toEqual({ ...serial.stats, buildSeconds: index.stats.buildSeconds });
    expect(encoded(index)).toEqual(encoded(serial));
    // A bound on hangs: starting two threads from TypeScript sources takes seconds on a loaded machine.
  }, 180_000);

  it('stays on this thread for a corpus smaller than minParallelChars, or with one thread', async () => {
    const documents = corpusOf(50, 3);
    const small = await buildSearchIndex(documents, {}, { threads: 2, minParallelChars: 10_000_000 });
    const single = await buildSearchIndex(documents, {}, { threads: 1, minParallelChars: 0 });
    expect(small.report).toEqual({ threads: 1, batches: 1, fallbacks: 0 });
    expect(single.report).toEqual({ threads: 1, batches: 1, fallbacks: 0 });
    expect(encoded(small.index)).toEqual(encoded(SearchIndex.build(documents)));
  });

  it('refuses a repeated source before starting any thread, as a serial build does', async () => {
    const [first] = corpusOf(1, 4) as [Document];
    await expect(buildSearchIndex([first, { ...first }], {}, { threads: 2, minParallelChars: 0 })).rejects.toMatchObject({ code: 'duplicate_source' });
  });
});
