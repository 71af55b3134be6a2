import { fuseRankings } from './rank-fusion.js';
import type { SearchHit, SearchIndex } from './search-index.js';
import { SearchError } from './search-error.js';
import { checkTopK } from './top-k.js';
import type { VectorIndex } from './vector-index.js';

/** How a query is matched: by words (BM25F), by meaning (embeddings), or both fused with RRF. */
export type SearchMode = 'keyword' | 'semantic' | 'hybrid';
export const SEARCH_MODES: readonly SearchMode[] = Object.freeze(['hybrid', 'keyword', 'semantic']);

/** A ranking a hit came from. */
export type RankingName = 'keyword' | 'semantic';

export interface RankedHit {
  hit: SearchHit;
  /** BM25F score (keyword), cosine similarity (semantic) or reciprocal-rank-fusion score (hybrid). */
  score: number;
  /** The rankings that found this chunk among their candidates. */
  foundBy: RankingName[];
}

export interface HybridSearchOptions {
  mode: SearchMode;
  /** Hits to return, 1 to MAX_TOP_K (top-k.ts). */
  topK: number;
  pathPrefix?: string;
  /** The query's unit vector, from the same model as the chunk vectors; needed by semantic and hybrid. */
  queryVector?: Float32Array;
  /**
   * Candidates each ranking contributes to hybrid fusion. Default max(topK, 50): RRF needs each list
   * deeper than the answer, or a chunk ranked 11th by both lists could never surface.
   */
  depth?: number;
}

const MIN_FUSION_DEPTH = 50;

/**
 * Keyword, semantic or hybrid search over one index and its chunk vectors. Pure and synchronous:
 * the caller embeds the query. Semantic and hybrid throw a `SearchError` (`invalid_argument`)
 * without vectors or a query vector; callers that want a fallback check first.
 */
export function hybridSearch(index: SearchIndex, vectors: VectorIndex | undefined, query: string, options: HybridSearchOptions): RankedHit[] {
  const { mode, topK, pathPrefix = '', queryVector } = options;
  checkTopK(topK);
  if (mode === 'keyword') {
    const { ids, scores } = index.rankChunks(query, topK, pathPrefix);
    return index.hits(query, ids, scores).map((hit, i) => ({ hit, score: scores[i] as number, foundBy: ['keyword'] }));
  }
  if (vectors === undefined || queryVector === undefined) {
    throw new SearchError('invalid_argument', `mode "${mode}" needs chunk vectors and a query vector`);
  }
  if (vectors.count !== index.stats.chunks) {
    throw new SearchError('invalid_argument', `the vector index holds ${vectors.count} chunks where the search index holds ${index.stats.chunks}`);
  }
  const [from, to] = index.chunkRange(pathPrefix);
  if (mode === 'semantic') {
    const { ids, scores } = vectors.nearest(queryVector, topK, from, to);
    return index.hits(query, ids, scores).map((hit, i) => ({ hit, score: scores[i] as number, foundBy: ['semantic'] }));
  }
  const depth = Math.max(options.depth ?? MIN_FUSION_DEPTH, topK);
  const keyword = index.rankChunks(query, depth, pathPrefix);
  const semantic = vectors.nearest(queryVector, depth, from, to);
  const fused = fuseRankings<RankingName>(
    [
      { name: 'keyword', ids: keyword.ids },
      { name: 'semantic', ids: semantic.ids },
    ],
    topK,
  );
  const hits = index.hits(
    query,
    fused.map((f) => f.id),
    fused.map((f) => f.score),
  );
  return hits.map((hit, i) => ({ hit, score: (fused[i] as (typeof fused)[number]).score, foundBy: (fused[i] as (typeof fused)[number]).foundBy }));
}
