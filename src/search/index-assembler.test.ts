import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Document } from '../corpus/document.js';
import { markdownSections } from '../corpus/extract/markdown.js';
import { encodeIndexSnapshot } from './snapshot-encode.js';
import { SearchIndex } from './search-index.js';
import { buildSearchIndexParts, SearchIndexBuild, type BuiltParts } from './search-index-build.js';
import { tokenizeBatch } from './tokenize-batch.js';

/** The snapshot bytes of a build, its wall time set aside (the one field two equal builds differ in). */
function encoded({ parts, inverted }: BuiltParts): Uint8Array {
  return encodeIndexSnapshot(SearchIndex.fromParts({ ...parts, buildSeconds: 0 }, inverted), { engine: 'test' });
}

const word = fc.oneof(
  fc.constantFrom('alpha', 'beta', 'gamma', 'running', 'runs', 'the', 'of', "don't", '東京都', 'ß', 'Café', 'CAFE', '😀'),
  fc.string({ minLength: 1, maxLength: 7, unit: fc.constantFrom(...'abcdefghijklmnopé') }),
);
const sentence = fc.array(word, { minLength: 1, maxLength: 30 }).map((w) => w.join(' '));
const block = fc.oneof(sentence, sentence, sentence, word.map((w) => `# ${w}`), word.map((w) => `## ${w}`));
const document = fc
  .record({
    title: fc.array(word, { minLength: 0, maxLength: 3 }).map((w) => w.join(' ')),
    text: fc.array(block, { minLength: 1, maxLength: 10 }).map((blocks) => blocks.join('\n\n')),
    paged: fc.boolean(),
  })
  .map(({ title, text, paged }): Omit<Document, 'source'> => {
    const half = text.length >> 1;
    return {
      format: paged ? 'pdf' : 'markdown',
      title,
      text,
      bodyStart: 0,
      bytes: text.length,
      sections: markdownSections(text, 0),
      ...(paged ? { pages: [{ start: 0, end: half }, { start: half, end: text.length }] } : {}),
    };
  });
const corpus = fc
  .array(document, { minLength: 1, maxLength: 120 })
  .map((docs) => docs.map((d, i): Document => ({ ...d, source: `folder-${i % 7}/doc-${i}.md` })));
const options = fc.record({
  chunkWords: fc.integer({ min: 20, max: 60 }),
  overlapWords: fc.integer({ min: 0, max: 10 }),
  feedbackWeight: fc.constantFrom(0, 0.3),
  titleWeight: fc.constantFrom(0, 1.5),
  headingWeight: fc.constantFrom(0, 1),
});

describe('IndexAssembler', () => {
  it('gives the index of one batch, byte for byte, however the documents are cut into batches', () => {
    fc.assert(
      fc.property(corpus, options, fc.array(fc.nat(), { maxLength: 12 }), (docs, opts, rawCuts) => {
        const serial = buildSearchIndexParts(docs, opts);
        const build = new SearchIndexBuild(docs, opts);
        const n = build.documents.length;
        const cuts = [...new Set([0, ...rawCuts.map((c) => c % (n + 1)), n])].sort((a, b) => a - b);
        for (let b = 0; b + 1 < cuts.length; b += 1) build.add(tokenizeBatch(build.documents.slice(cuts[b], cuts[b + 1]), build.options));
        expect(encoded(build.finish())).toEqual(encoded(serial));
      }),
      { numRuns: 30 },
    );
  });
});
