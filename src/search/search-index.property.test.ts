import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Document } from '../corpus/document.js';
import { markdownSections } from '../corpus/extract/markdown.js';
import { combinedTf, idf, queryTermWeight, saturate } from './bm25.js';
import { SearchIndex } from './search-index.js';
import { resolveSearchOptions, type SearchIndexOptions } from './search-options.js';
import { createTokenizer } from './tokenizer.js';

const tokenizer = createTokenizer();

/**
 * The naive model: score every chunk of the index by the BM25F formula of bm25.ts in double
 * precision, straight from the chunk texts, then sort everything. No posting lists, no pruning.
 */
function bruteForce(index: SearchIndex, options: SearchIndexOptions, query: string, topK: number, prefix: string): Array<{ chunkId: string; score: number }> {
  const params = resolveSearchOptions(options);
  const chunks: Array<{ chunkId: string; source: string; body: string[]; title: string[]; heading: string[] }> = [];
  for (const info of index.listDocuments()) {
    for (let n = 0; n < info.chunks; n += 1) {
      const view = index.getChunk(`${info.source}#${n}`)!;
      const parts = view.heading === '' ? [] : view.heading.split(' › ');
      const own = parts[0]?.trim().toLowerCase() === info.title.trim().toLowerCase() ? parts.slice(1) : parts;
      chunks.push({
        chunkId: view.chunkId,
        source: info.source,
        body: tokenizer.terms(view.text),
        title: tokenizer.terms(info.title),
        heading: tokenizer.terms(own.join(' ')),
      });
    }
  }
  const total = chunks.length;
  const averageLength = chunks.reduce((sum, c) => sum + c.body.length, 0) / total;
  const count = (terms: string[], term: string): number => terms.filter((t) => t === term).length;
  const tf = (chunk: (typeof chunks)[number], term: string): number =>
    combinedTf(params, count(chunk.body, term), count(chunk.title, term), count(chunk.heading, term), chunk.body.length, averageLength);
  const queryTerms = tokenizer.terms(query);
  const scores = chunks.map((chunk) => {
    let score = 0;
    for (const term of new Set(queryTerms)) {
      const weight = tf(chunk, term);
      if (weight === 0) continue;
      const holding = chunks.filter((c) => tf(c, term) > 0).length;
      score += queryTermWeight(count(queryTerms, term), params.queryK3) * idf(total, holding) * saturate(weight, params.k1);
    }
    return score;
  });
  // Chunks are listed in (source, chunk number) order, so a stable sort by score keeps the tie-break.
  return chunks
    .map((chunk, i) => ({ chunkId: chunk.chunkId, source: chunk.source, score: scores[i]! }))
    .filter((c) => c.score > 0 && c.source.startsWith(prefix))
    .sort((a, b) => b.score - a.score)
    .slice(0, topK)
    .map(({ chunkId, score }) => ({ chunkId, score }));
}

const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'epsilon', 'running', 'runs', 'the', 'of', '東京', 'ß');
const sentence = fc.array(word, { minLength: 1, maxLength: 25 }).map((w) => w.join(' '));
const block = fc.oneof(sentence, sentence, word.map((w) => `# ${w}`), word.map((w) => `## ${w}`));
const documentText = fc.array(block, { minLength: 1, maxLength: 8 }).map((blocks) => blocks.join('\n\n'));
const documents = fc
  .uniqueArray(fc.constantFrom('a.md', 'a/b.md', 'a/c.md', 'b.md', 'b/a.md', 'c.md', 'd/e/f.md', 'z.md'), { minLength: 1, maxLength: 8 })
  .chain((sources) =>
    fc.tuple(...sources.map((source) =>
      fc.record({ title: fc.array(word, { minLength: 1, maxLength: 3 }).map((w) => w.join(' ')), text: documentText }).map(
        ({ title, text }): Document => ({ source, format: 'markdown', title, text, bodyStart: 0, bytes: text.length, sections: markdownSections(text, 0) }),
      ),
    )),
  );
const options = fc.record({
  k1: fc.double({ min: 0, max: 3, noNaN: true }),
  b: fc.double({ min: 0, max: 1, noNaN: true }),
  queryK3: fc.constantFrom(0, 1.2, 8, 1000),
  titleWeight: fc.constantFrom(0, 0.5, 1, 1.5, 3),
  headingWeight: fc.constantFrom(0, 1, 2),
  chunkWords: fc.integer({ min: 20, max: 40 }),
  overlapWords: fc.integer({ min: 0, max: 10 }),
  feedbackWeight: fc.constant(0),
});

describe('SearchIndex', () => {
  describe('search', () => {
    it('ranks exactly like a brute-force BM25F scan over the same chunks', () => {
      fc.assert(
        fc.property(
          documents,
          options,
          fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')),
          fc.integer({ min: 1, max: 15 }),
          fc.constantFrom('', 'a', 'a/', 'b', 'd/'),
          (docs, opts, query, topK, prefix) => {
            const index = SearchIndex.build(docs, opts);
            const hits = index.search(query, { topK, pathPrefix: prefix });
            const expected = bruteForce(index, opts, query, topK, prefix);
            expect(hits.map((h) => h.chunkId).length).toBe(expected.length);
            const modelScore = new Map(bruteForce(index, opts, query, 10_000, prefix).map((e) => [e.chunkId, e.score]));
            const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b));
            hits.forEach((hit, i) => {
              const want = expected[i]!;
              expect(close(hit.score, modelScore.get(hit.chunkId) ?? Number.NaN)).toBe(true);
              // The same chunk at each rank, unless two chunks score the same up to float32 rounding.
              if (hit.chunkId !== want.chunkId) expect(close(hit.score, want.score)).toBe(true);
            });
          },
        ),
        { numRuns: 300 },
      );
    });

    it('gives a heading-only chunk of stop words no share of a term when b is 1 (a counterexample once found)', () => {
      const text = 'alpha\n\n# of';
      const docs: Document[] = [{ source: 'a.md', format: 'markdown', title: 'alpha', text, bodyStart: 0, bytes: 11, sections: markdownSections(text, 0) }];
      const opts: SearchIndexOptions = { k1: 0, b: 1, queryK3: 0, titleWeight: 0, headingWeight: 0, chunkWords: 20, overlapWords: 0, feedbackWeight: 0 };
      const index = SearchIndex.build(docs, opts);
      const hits = index.search('alpha', { topK: 5 });
      expect(hits.map((h) => h.chunkId)).toEqual(['a.md#0']);
      expect(hits[0]!.score).toBeCloseTo(bruteForce(index, opts, 'alpha', 5, '')[0]!.score, 6);
      expect(Number.isFinite(index.search('of alpha', { topK: 5 })[0]!.score)).toBe(true);
    });
  });
});

describe('SearchIndex', () => {
  describe('scoreChunks', () => {
    it('gives every chunk the score a brute-force BM25F scan gives it', () => {
      fc.assert(
        fc.property(documents, options, fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' ')), (docs, opts, query) => {
          const index = SearchIndex.build(docs, opts);
          const model = new Map(bruteForce(index, opts, query, 10_000, '').map((e) => [e.chunkId, e.score]));
          const ids = index.listDocuments().flatMap((d) => Array.from({ length: d.chunks }, (_, n) => `${d.source}#${n}`));
          const scores = index.scoreChunks(query, ids.map((id) => index.chunkNumber(id)!));
          ids.forEach((id, i) => {
            const want = model.get(id) ?? 0;
            expect(Math.abs(scores[i]! - want)).toBeLessThanOrEqual(1e-5 * Math.max(1, want));
          });
        }),
        { numRuns: 200 },
      );
    });
  });
});
