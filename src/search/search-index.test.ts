import { describe, expect, it } from 'vitest';
import { markdownDocument as doc } from '../../test/support/markdown-document.js';
import { SearchError } from './search-error.js';
import { SearchIndex } from './search-index.js';

const deploy = doc(
  'guides/deploy.md',
  '# Deploy\n\n## Fly.io\n\nRun fly launch to deploy the server. Fly machines start quickly.\n\n## Render\n\nUse a render.yaml blueprint to describe the service.',
  'Deploy',
);
const intro = doc('intro.md', 'corpus-mcp serves a folder of documents to language models over MCP.', 'Introduction');
const notes = doc('notes/render.md', 'Rendering pages on the server is a different topic.', 'Notes');

describe('SearchIndex', () => {
  describe('build', () => {
    it('counts documents, chunks and terms in stats', () => {
      const index = SearchIndex.build([deploy, intro]);
      expect(index.stats).toMatchObject({ documents: 2, chunks: 3 });
      expect(index.stats.terms).toBeGreaterThan(10);
      expect(index.stats.buildSeconds).toBeGreaterThanOrEqual(0);
    });

    it('rejects an out-of-range option with a typed error naming it', () => {
      const build = (): SearchIndex => SearchIndex.build([intro], { k1: -1 });
      expect(build).toThrow(SearchError);
      expect(build).toThrow(/k1=-1/);
      expect(build).toThrow(expect.objectContaining({ code: 'invalid_option' }));
    });

    it('rejects two documents with the same source', () => {
      expect(() => SearchIndex.build([intro, intro])).toThrow(expect.objectContaining({ code: 'duplicate_source' }));
    });

    it('is frozen once built', () => {
      const index = SearchIndex.build([intro]);
      expect(Object.isFrozen(index)).toBe(true);
      expect(Object.isFrozen(index.stats)).toBe(true);
      expect(Object.isFrozen(index.listDocuments())).toBe(true);
    });
  });

  describe('search', () => {
    const index = SearchIndex.build([deploy, intro, notes]);

    it('returns the chunk under the matching heading first, with its heading path and offsets', () => {
      const [hit] = index.search('deploy with fly launch');
      expect(hit).toMatchObject({ chunkId: 'guides/deploy.md#0', source: 'guides/deploy.md', title: 'Deploy', heading: 'Deploy › Fly.io' });
      expect(deploy.text.slice(hit!.start, hit!.end)).toContain('fly launch');
      expect(hit!.snippet).toContain('fly launch');
    });

    it('includes the snippet when a hit is serialised to JSON', () => {
      const [hit] = index.search('fly launch');
      const json = JSON.parse(JSON.stringify(hit)) as Record<string, unknown>;
      expect(Object.keys(json).sort()).toEqual(['chunkId', 'end', 'heading', 'score', 'snippet', 'source', 'start', 'title']);
      expect(json.snippet).toBe(hit!.snippet);
    });

    it('keeps the snippet in a spread copy of a hit', () => {
      const [hit] = index.search('fly launch');
      const copy = { ...hit! };
      expect(copy.snippet).toContain('fly launch');
      expect(copy.snippet).toBe(hit!.snippet);
    });

    it('returns [] for an empty query, a query of stop words and a query of punctuation', () => {
      expect(index.search('')).toEqual([]);
      expect(index.search('the of and')).toEqual([]);
      expect(index.search('?!.,')).toEqual([]);
    });

    it('answers a query of thousands of distinct words, ranking by the words it knows', () => {
      const noise = Array.from({ length: 5000 }, (_, i) => `zz${i}`).join(' ');
      expect(index.search(`${noise} blueprint`)[0]?.chunkId).toBe('guides/deploy.md#1');
    });

    it('returns [] when no chunk holds any query term', () => {
      expect(index.search('kubernetes')).toEqual([]);
    });

    it('keeps only sources under pathPrefix', () => {
      expect(index.search('render').map((h) => h.source)).toEqual(expect.arrayContaining(['guides/deploy.md', 'notes/render.md']));
      expect(index.search('render', { pathPrefix: 'notes/' }).map((h) => h.source)).toEqual(['notes/render.md']);
      expect(index.search('render', { pathPrefix: '/guides' }).map((h) => h.source)).toEqual(['guides/deploy.md']);
      expect(index.search('render', { pathPrefix: 'nowhere/' })).toEqual([]);
    });

    it('returns at most topK hits, best first', () => {
      const hits = index.search('server', { topK: 1 });
      expect(hits).toHaveLength(1);
      const all = index.search('server');
      expect(all.map((h) => h.score)).toEqual([...all.map((h) => h.score)].sort((a, b) => b - a));
    });

    it.each([0, -1, 1.5, 1001, Number.NaN])('rejects topK=%s with code invalid_argument', (topK) => {
      expect(() => index.search('server', { topK })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    });

    it('finds Chinese, Japanese, Arabic and emoji text', () => {
      const world = SearchIndex.build([
        doc('zh.md', '我住在东京都的一个小公寓里。'),
        doc('ja.md', '東京都に住んでいます。カタカナもあります。'),
        doc('ar.md', 'مرحبا بالعالم، هذا نص عربي قصير.'),
        doc('emoji.md', 'Party time 🎉 with pizza 🍕'),
      ]);
      expect(world.search('东京')[0]?.source).toBe('zh.md');
      expect(world.search('カタカナ')[0]?.source).toBe('ja.md');
      expect(world.search('بالعالم')[0]?.source).toBe('ar.md');
      expect(world.search('🍕')[0]?.source).toBe('emoji.md');
    });

    it('with feedback on, also finds chunks that share vocabulary with the best hits but not the query term', () => {
      const docs = [
        doc('a.md', 'kinase inhibitor trial results in tumours'),
        doc('b.md', 'kinase inhibitor tumours respond'),
        doc('c.md', 'inhibitor tumours shrink after the trial'),
        doc('d.md', 'unrelated gardening notes'),
      ];
      const plain = SearchIndex.build(docs, { feedbackWeight: 0 });
      const expanded = SearchIndex.build(docs, { feedbackWeight: 0.5, feedbackChunks: 2, feedbackTerms: 5 });
      expect(plain.search('kinase').map((h) => h.source)).toEqual(['b.md', 'a.md']);
      expect(expanded.search('kinase').map((h) => h.source)).toEqual(['b.md', 'a.md', 'c.md']);
    });

    it('breaks score ties by source, then chunk number', () => {
      const twins = SearchIndex.build([doc('b.md', 'alpha beta'), doc('a.md', 'alpha beta'), doc('c.md', 'alpha beta')]);
      expect(twins.search('alpha').map((h) => h.source)).toEqual(['a.md', 'b.md', 'c.md']);
    });
  });

  describe('getChunk', () => {
    const index = SearchIndex.build([deploy, intro]);

    it('returns the chunk text exactly as the document slice, with neighbours', () => {
      const chunk = index.getChunk('guides/deploy.md#1');
      expect(chunk).toMatchObject({ heading: 'Deploy › Render', prevChunkId: 'guides/deploy.md#0', nextChunkId: null });
      expect(chunk!.text).toBe(deploy.text.slice(chunk!.start, chunk!.end));
    });

    it.each(['guides/deploy.md#2', 'guides/deploy.md#01', 'guides/deploy.md#-1', 'guides/deploy.md', 'missing.md#0', 'guides/deploy.md#x'])(
      'returns undefined for %s',
      (id) => {
        expect(index.getChunk(id)).toBeUndefined();
      },
    );
  });

  describe('getDocument', () => {
    it('returns the full text and chunk count, or undefined for an unknown source', () => {
      const index = SearchIndex.build([deploy, intro]);
      expect(index.getDocument('intro.md')).toEqual({ source: 'intro.md', format: 'markdown', title: 'Introduction', text: intro.text, bytes: intro.bytes, chunkCount: 1 });
      expect(index.getDocument('nope.md')).toBeUndefined();
    });
  });

  describe('listDocuments', () => {
    it('lists every document sorted by source with its chunk count', () => {
      const index = SearchIndex.build([intro, notes, deploy]);
      expect(index.listDocuments().map((d) => [d.source, d.chunks])).toEqual([
        ['guides/deploy.md', 2],
        ['intro.md', 1],
        ['notes/render.md', 1],
      ]);
    });
  });
});
