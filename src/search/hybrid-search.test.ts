import { describe, expect, it } from 'vitest';
import type { Document } from '../corpus/document.js';
import { hybridSearch } from './hybrid-search.js';
import { rerankLocally } from './rerank.js';
import { SearchIndex } from './search-index.js';
import { VectorIndex } from './vector-index.js';

// Vectors by hand on three axes (vehicles, cooking, weather) stand in for an embedding model: the
// point is the plumbing (which list finds what, and how fusion orders it), not a model's quality.
const doc = (source: string, text: string): Document => ({ source, format: 'text', title: source, text, bodyStart: 0, bytes: text.length, sections: [] });
const docs = [
  doc('a.md', 'The automobile needs new tyres before winter.'),
  doc('b.md', 'A car park next to the bakery; bread every morning.'),
  doc('c.md', 'Rain and snow are expected on Tuesday.'),
];
const axes: Record<string, number[]> = { 'a.md': [1, 0, 0], 'b.md': [0.6, 0.8, 0], 'c.md': [0, 0, 1] };
const index = SearchIndex.build(docs);
const vectors = VectorIndex.build(
  3,
  index.listDocuments().map((d) => Float32Array.from(axes[d.source]!)),
);
const carQuery = Float32Array.from([1, 0, 0]);

describe('hybridSearch', () => {
  it('keyword mode misses a paraphrase ("car" for "automobile") that semantic mode finds first', () => {
    const keyword = hybridSearch(index, vectors, 'car', { mode: 'keyword', topK: 3 });
    expect(keyword.map((r) => r.hit.chunkId)).toEqual(['b.md#0']);
    const semantic = hybridSearch(index, vectors, 'car', { mode: 'semantic', topK: 3, queryVector: carQuery });
    expect(semantic.map((r) => r.hit.chunkId)).toEqual(['a.md#0', 'b.md#0', 'c.md#0']);
    expect(semantic[0]!.foundBy).toEqual(['semantic']);
    expect(semantic[0]!.score).toBeCloseTo(1, 6);
  });

  it('hybrid mode ranks a chunk both lists found above one only a single list found, and says which lists found each', () => {
    const hybrid = hybridSearch(index, vectors, 'car', { mode: 'hybrid', topK: 3, queryVector: carQuery });
    expect(hybrid.map((r) => [r.hit.chunkId, r.foundBy])).toEqual([
      ['b.md#0', ['keyword', 'semantic']],
      ['a.md#0', ['semantic']],
      ['c.md#0', ['semantic']],
    ]);
  });

  it('keeps path_prefix in semantic mode', () => {
    const semantic = hybridSearch(index, vectors, 'car', { mode: 'semantic', topK: 3, queryVector: carQuery, pathPrefix: 'c' });
    expect(semantic.map((r) => r.hit.chunkId)).toEqual(['c.md#0']);
  });

  it('refuses semantic mode without vectors rather than answering as if nothing matched', () => {
    expect(() => hybridSearch(index, undefined, 'car', { mode: 'semantic', topK: 3 })).toThrow(/needs chunk vectors/);
  });
});

describe('rerankLocally', () => {
  const chunks = ['c.md#0', 'a.md#0', 'b.md#0'].map((id) => index.chunkNumber(id)!);

  it('orders exactly the given chunks by BM25F when there are no vectors; non-matching chunks keep their input order', () => {
    const order = rerankLocally(index, chunks, 'bakery bread');
    expect(order.map((o) => o.index)).toEqual([2, 0, 1]);
    expect(order[0]!.keywordScore).toBeGreaterThan(0);
    expect(order[0]!.semanticScore).toBeUndefined();
  });

  it('fuses BM25F and cosine ranks when vectors are given', () => {
    const order = rerankLocally(index, chunks, 'car', vectors, carQuery);
    expect(order.map((o) => o.index)).toEqual([2, 1, 0]);
    expect(order[1]!.semanticScore).toBeCloseTo(1, 6);
  });
});
