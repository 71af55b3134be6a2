import { describe, expect, it } from 'vitest';
import type { Document } from '../src/corpus/document.js';
import { SearchIndex } from '../src/search/search-index.js';
import { markdownDocument } from './support/markdown-document.js';
import { ENGINE_REFERENCE, fixedWindows, LUCENE_STOP_WORDS, PLAIN_REFERENCE, plainTerms, ReferenceRanker } from '../scripts/lib/plain-bm25.js';
import { seededRandom } from '../scripts/lib/stats.js';

const VOCABULARY = (
  'cell cells protein expression tumour tumours mouse mice increased decreased levels receptor insulin ' +
  'glucose signalling pathway IL-6 TNF-α β-cells patients risk therapy gene genes mutation the of and not in with'
).split(' ');

/** A Markdown file: its title as the one heading, then the body. */
function document(source: string, title: string, body: string): Document {
  return markdownDocument(source, `# ${title}\n\n${body}\n`, title);
}

/** Documents of 5 to 90 words drawn from a small vocabulary, so terms repeat and long ones split into several chunks. */
function randomDocuments(count: number, seed: number): Document[] {
  const random = seededRandom(seed);
  const pick = (): string => VOCABULARY[Math.floor(random() * VOCABULARY.length)] as string;
  return Array.from({ length: count }, (_, d) => {
    const words = Array.from({ length: 5 + Math.floor(random() * 86) }, pick);
    return document(`doc-${String(d).padStart(3, '0')}.md`, `${pick()} ${pick()} ${pick()}`, words.join(' '));
  });
}

describe('plainTerms', () => {
  it('lowercases runs of letters and digits, drops the stop list and stems every token with Porter', () => {
    expect(plainTerms('The IL-6 levels were NOT raised in β-cells', LUCENE_STOP_WORDS)).toEqual(['il', '6', 'level', 'were', 'rais', 'β', 'cell']);
  });

  it('splits at an apostrophe, unlike the engine tokenizer', () => {
    expect(plainTerms("Alzheimer's", new Set())).toEqual(['alzheim', 's']);
  });
});

describe('fixedWindows', () => {
  const text = 'one two three four five six seven';
  const words = (windows: Array<[number, number]>): string[] => windows.map(([s, e]) => text.slice(s, e));

  it('cuts windows of exactly chunkWords words, the last one shorter', () => {
    expect(words(fixedWindows(text, 3, 0))).toEqual(['one two three', 'four five six', 'seven']);
  });

  it('starts each window chunkWords - overlapWords words after the one before and stops at the end', () => {
    expect(words(fixedWindows(text, 3, 1))).toEqual(['one two three', 'three four five', 'five six seven']);
  });

  it('does not count a word without a letter or digit, such as a heading marker', () => {
    expect(fixedWindows('# Title\n\nbody text', 3, 0)).toHaveLength(1);
  });
});

describe('ReferenceRanker', () => {
  it.each([
    ['180 words, overlap 40', 180, 40],
    ['20 words, overlap 5', 20, 5],
    ['25 words, no overlap', 25, 0],
  ])('with the engine settings ranks documents exactly as SearchIndex does (%s)', (_, chunkWords, overlapWords) => {
    const documents = randomDocuments(60, chunkWords);
    const engine = SearchIndex.build(documents, { chunkWords, overlapWords });
    const reference = new ReferenceRanker(documents, { ...ENGINE_REFERENCE, chunkWords, overlapWords });
    expect(reference.chunkCount).toBe(engine.stats.chunks);
    for (const query of ['insulin receptor signalling', 'IL-6 increased in mice mice', 'TNF-α tumour therapy risk', 'not a gene']) {
      const engineOrder = [...new Set(engine.search(query, { topK: 1000 }).map((hit) => hit.source))];
      expect(reference.rank(query, 1000)).toEqual(engineOrder);
    }
  });

  it('ranks a document once, by its best window, when the plain settings split it', () => {
    const filler = Array.from({ length: 200 }, () => 'filler').join(' ');
    const documents = [
      document('late.md', 'Late', `${filler} insulin receptor`),
      document('early.md', 'Early', `insulin ${filler}`),
      document('none.md', 'None', filler),
    ];
    const ranker = new ReferenceRanker(documents, PLAIN_REFERENCE);
    expect(ranker.chunkCount).toBe(6);
    expect(ranker.rank('insulin receptor', 10)).toEqual(['late.md', 'early.md']);
  });

  it('counts a repeated query term every time with the plain settings, once with k3 0', () => {
    const documents = [document('a.md', 'A', 'mice mice filler filler'), document('b.md', 'B', 'tumour filler filler filler'), document('c.md', 'C', 'filler')];
    const query = 'tumour tumour tumour mice';
    // Linear: three times "tumour" outweighs two occurrences of "mice" in a document; counted once, it does not.
    expect(new ReferenceRanker(documents, PLAIN_REFERENCE).rank(query, 10)).toEqual(['b.md', 'a.md']);
    expect(new ReferenceRanker(documents, { ...PLAIN_REFERENCE, queryK3: 0 }).rank(query, 10)).toEqual(['a.md', 'b.md']);
  });
});
