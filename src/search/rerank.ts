import { fuseRankings } from './rank-fusion.js';
import type { SearchIndex } from './search-index.js';
import type { VectorIndex } from './vector-index.js';

export interface LocalRerankScore {
  /** Position of the chunk in the input list. */
  index: number;
  /** The ordering score: BM25F alone, or the RRF of BM25F and cosine ranks over these chunks. */
  score: number;
  keywordScore: number;
  /** Cosine similarity with the query; undefined without vectors. */
  semanticScore: number | undefined;
}

/**
 * Reorders exactly the given chunks (chunk numbers) for `query`, without a rerank model: by BM25F
 * with the whole index's statistics, and, when vectors and a query vector are given, fused by RRF
 * with their cosine ranking. Best first; ties keep input order.
 */
export function rerankLocally(
  index: SearchIndex,
  chunks: readonly number[],
  query: string,
  vectors?: VectorIndex,
  queryVector?: Float32Array,
): LocalRerankScore[] {
  const keyword = index.scoreChunks(query, chunks);
  const semantic = vectors !== undefined && queryVector !== undefined ? chunks.map((c) => vectors.similarity(queryVector, c)) : undefined;
  const byScore = (scores: ReadonlyArray<number | undefined>): number[] =>
    scores
      .map((score, i) => ({ score, i }))
      .filter((e): e is { score: number; i: number } => e.score !== undefined)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((e) => e.i);
  let order: Array<{ index: number; score: number }>;
  if (semantic === undefined) {
    order = byScore(keyword).map((i) => ({ index: i, score: keyword[i] as number }));
  } else {
    const fused = fuseRankings([{ name: 'keyword', ids: byScore(keyword) }, { name: 'semantic', ids: byScore(semantic) }], chunks.length);
    order = fused.map((f) => ({ index: f.id, score: f.score }));
  }
  return order.map(({ index: i, score }) => ({ index: i, score, keywordScore: keyword[i] as number, semanticScore: semantic?.[i] }));
}
