import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Document } from '../corpus/document.js';
import { markdownDocument as doc } from '../../test/support/markdown-document.js';
import { decodeIndexSnapshot, readSnapshotHeader, SNAPSHOT_LAYOUT, snapshotSection } from './index-snapshot.js';
import { encodeIndexSnapshot } from './snapshot-encode.js';
import { SearchIndex } from './search-index.js';
import type { SearchIndexOptions } from './search-index.js';

const paragraph = (topic: string, n: number) =>
  `Paragraph ${n} about ${topic}: the keeper logs the weather, trims the wick and polishes the lens.\n\n`;

const DOCS: Document[] = [
  doc('guides/deploy.md', '# Deploy\n\n## Fly.io\n\nRun fly launch to deploy the server.\n\n## Render\n\nUse a render.yaml blueprint.', 'Deploy'),
  doc('lighthouse.md', `# Lighthouse\n\n${Array.from({ length: 30 }, (_, i) => `## Duty ${i}\n\n${paragraph('duties', i)}`).join('')}`, 'Lighthouse'),
  doc('notes/emoji-😀.txt', 'Unicode notes: café, naïve, 東京, and an emoji 😀 in the middle of the text.', 'Emoji', { format: 'text', sections: [] }),
  // A paginated document: pages travel through the snapshot and hits keep their page numbers.
  doc('papers/tides.pdf', `Tide tables page one. ${paragraph('tides', 1)}Second page about the harbour master and storm surge.`, 'Tides', {
    format: 'pdf',
    sections: [],
    pages: [
      { start: 0, end: 110 },
      { start: 110, end: 162 },
    ],
  }),
  doc('notes/weather.md', 'Storm warnings are raised with flags and a bell when the barometer falls quickly.', 'Weather'),
];

const QUERIES = ['harbour master storm surge', 'deploy server', 'lighthouse keeper weather', 'café 東京', '😀', 'barometer storm', 'lens wick duty 7', 'nothing-matches-this'];

/** Everything a caller can observe of a search, snippets included. */
const observe = (index: SearchIndex, query: string, pathPrefix?: string) =>
  index.search(query, { topK: 20, ...(pathPrefix === undefined ? {} : { pathPrefix }) }).map((hit) => JSON.parse(JSON.stringify(hit)) as unknown);

const roundTrip = (index: SearchIndex, meta?: unknown) => decodeIndexSnapshot(encodeIndexSnapshot(index, { engine: 'test-engine', meta }));

describe('index snapshot', () => {
  describe('round trip', () => {
    it.each<[string, SearchIndexOptions]>([
      ['default options', {}],
      ['feedback on (forward lists kept)', { feedbackWeight: 0.5, feedbackChunks: 2, feedbackTerms: 5 }],
      ['small chunks', { chunkWords: 20, overlapWords: 5 }],
    ])('answers every query with identical hits and snippets (%s)', (_name, options) => {
      const built = SearchIndex.build(DOCS, options);
      const { index: restored } = roundTrip(built);
      for (const query of QUERIES) {
        expect(observe(restored, query)).toEqual(observe(built, query));
        expect(observe(restored, query, 'notes/')).toEqual(observe(built, query, 'notes/'));
      }
      expect(restored.stats).toEqual(built.stats);
      expect(restored.options).toEqual(built.options);
    });

    it('serves the same chunks, documents and listing, pages included', () => {
      const built = SearchIndex.build(DOCS, { chunkWords: 20, overlapWords: 5 });
      const { index: restored } = roundTrip(built);
      expect(restored.search('storm surge').find((hit) => hit.source === 'papers/tides.pdf')?.page).toBeGreaterThanOrEqual(1);
      expect(restored.getDocument('papers/tides.pdf')?.pages).toHaveLength(2);
      expect(restored.listDocuments()).toEqual(built.listDocuments());
      for (const { source, chunks } of built.listDocuments()) {
        expect(restored.getDocument(source)).toEqual(built.getDocument(source));
        for (let n = 0; n <= chunks; n += 1) expect(restored.getChunk(`${source}#${n}`)).toEqual(built.getChunk(`${source}#${n}`));
      }
    });

    it('keeps document fields it does not know about, and the text', () => {
      const { index: restored } = roundTrip(SearchIndex.build(DOCS));
      const documents = restored.parts().documents;
      expect(documents.map((d) => ({ ...d }))).toEqual(DOCS.map((d) => ({ ...d })).sort((a, b) => (a.source < b.source ? -1 : 1)));
    });

    it('carries the caller meta, the engine and optional sections', () => {
      const extra = { vectors: new Uint8Array([1, 2, 3, 4, 5]) };
      const bytes = encodeIndexSnapshot(SearchIndex.build(DOCS), { engine: 'engine-7', meta: { manifest: [{ path: 'a.md', size: 3 }] }, extra });
      const header = readSnapshotHeader(bytes);
      expect(header).toMatchObject({ layout: SNAPSHOT_LAYOUT, engine: 'engine-7', meta: { manifest: [{ path: 'a.md', size: 3 }] }, documents: DOCS.length });
      expect([...(snapshotSection(bytes, header, 'vectors') ?? [])]).toEqual([1, 2, 3, 4, 5]);
      expect(snapshotSection(bytes, header, 'absent')).toBeUndefined();
      expect(observe(decodeIndexSnapshot(bytes).index, 'deploy')).toEqual(observe(SearchIndex.build(DOCS), 'deploy'));
    });

    it('reads a snapshot that does not start on an 8-byte boundary', () => {
      const bytes = encodeIndexSnapshot(SearchIndex.build(DOCS), { engine: 'e' });
      const shifted = new Uint8Array(bytes.length + 3).subarray(3);
      shifted.set(bytes);
      expect(observe(decodeIndexSnapshot(shifted).index, 'storm')).toEqual(observe(SearchIndex.build(DOCS), 'storm'));
    });

    it('ranks exactly like a fresh build over random documents and queries', () => {
      const word = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'café', 'storm', 'lens', '東京', 'deploy', 'wick');
      const text = fc.array(word, { minLength: 1, maxLength: 60 }).map((words) => words.join(' '));
      fc.assert(
        fc.property(fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-c]{1,3}\/[a-z]{1,4}\.md$/), text), { minLength: 1, maxLength: 12, selector: ([s]) => s }), fc.array(word, { minLength: 1, maxLength: 4 }), (files, query) => {
          const built = SearchIndex.build(files.map(([source, body]) => doc(source, body)), { chunkWords: 20, overlapWords: 5 });
          const { index: restored } = roundTrip(built);
          expect(observe(restored, query.join(' '))).toEqual(observe(built, query.join(' ')));
          expect(observe(restored, query.join(' '), 'a')).toEqual(observe(built, query.join(' '), 'a'));
        }),
        { numRuns: 60 },
      );
    });
  });

  describe('refusals', () => {
    const bytes = encodeIndexSnapshot(SearchIndex.build(DOCS), { engine: 'e' });

    it.each<[string, () => Uint8Array, string]>([
      ['an empty input', () => new Uint8Array(0), 'not_a_snapshot'],
      ['another file', () => new TextEncoder().encode('# just some markdown, not a snapshot at all'), 'not_a_snapshot'],
      ['a truncated snapshot', () => bytes.subarray(0, bytes.length - 100), 'truncated'],
      ['a snapshot cut inside its header', () => bytes.subarray(0, 40), 'truncated'],
      [
        'another layout version',
        () => {
          const copy = bytes.slice();
          new DataView(copy.buffer).setUint32(8, SNAPSHOT_LAYOUT + 1, true);
          return copy;
        },
        'foreign_layout',
      ],
      [
        'a header that is not JSON',
        () => {
          const copy = bytes.slice();
          copy[24] = 0x7b; // '{'
          copy[25] = 0x7b;
          return copy;
        },
        'malformed',
      ],
    ])('refuses %s with a typed error', (_name, make, code) => {
      expect(() => decodeIndexSnapshot(make())).toThrow(expect.objectContaining({ name: 'SnapshotError', code }));
    });
  });
});
