import { SearchError } from './search-error.js';

/** How the index cuts and ranks documents. Every field is optional; defaults are listed. */
export interface SearchIndexOptions {
  /** Longest chunk, in words. Default 180; an integer from 20 to 5000. */
  chunkWords?: number;
  /** Words a chunk shares with the previous window of the same section. Default 40; an integer from 0 to chunkWords / 2. */
  overlapWords?: number;
  /** BM25 term-frequency saturation: how fast repeats of a term stop adding score. Default 1.2; from 0 to 10. */
  k1?: number;
  /** BM25 length normalisation of the body, 0 (none) to 1 (full). Default 0.75. */
  b?: number;
  /**
   * Saturation of a term repeated in the query (Robertson's k3): a term written qtf times weighs
   * qtf · (k3 + 1) / (k3 + qtf). 0 counts each distinct term once; 1000 counts repeats practically
   * linearly. Default 1.2 (the same curve as k1 for documents); from 0 to 1000.
   */
  queryK3?: number;
  /** How much one occurrence in the document title counts against one in the body. Default 1; from 0 to 20. */
  titleWeight?: number;
  /** How much one occurrence in the chunk's heading path counts against one in the body. Default 1; from 0 to 20. */
  headingWeight?: number;
  /**
   * Pseudo-relevance feedback: share of the final query given to terms drawn from the best first-pass
   * chunks (RM3-style). 0 turns feedback off, so one pass. Default 0 (off: on SciFact it lifted Recall@100 but lowered nDCG@10 on both halves of the claims, see docs/BENCHMARKS.md); from 0 to 0.9.
   */
  feedbackWeight?: number;
  /** Best first-pass chunks that feedback terms are drawn from. Default 5; an integer from 1 to 50. */
  feedbackChunks?: number;
  /** Feedback terms added to the query. Default 10; an integer from 1 to 100. */
  feedbackTerms?: number;
}

export type ResolvedSearchOptions = Required<SearchIndexOptions>;

export const DEFAULT_SEARCH_OPTIONS: ResolvedSearchOptions = Object.freeze({
  chunkWords: 180,
  overlapWords: 40,
  k1: 1.2,
  b: 0.75,
  queryK3: 1.2,
  titleWeight: 1,
  headingWeight: 1,
  feedbackWeight: 0,
  feedbackChunks: 5,
  feedbackTerms: 10,
});

interface Range {
  min: number;
  max: number;
  integer: boolean;
}

/** Each option's valid range; src/config/schema.ts checks the environment against the same table. */
export const SEARCH_OPTION_RANGES: Readonly<Record<keyof SearchIndexOptions, Range>> = {
  chunkWords: { min: 20, max: 5000, integer: true },
  overlapWords: { min: 0, max: 2500, integer: true },
  k1: { min: 0, max: 10, integer: false },
  b: { min: 0, max: 1, integer: false },
  queryK3: { min: 0, max: 1000, integer: false },
  titleWeight: { min: 0, max: 20, integer: false },
  headingWeight: { min: 0, max: 20, integer: false },
  feedbackWeight: { min: 0, max: 0.9, integer: false },
  feedbackChunks: { min: 1, max: 50, integer: true },
  feedbackTerms: { min: 1, max: 100, integer: true },
};

/** Fills in defaults and rejects any value out of range with a `SearchError` naming it. */
export function resolveSearchOptions(options: SearchIndexOptions = {}): ResolvedSearchOptions {
  for (const key of Object.keys(options)) {
    if (!(key in SEARCH_OPTION_RANGES)) {
      throw new SearchError('invalid_option', `unknown search option "${key}": expected one of ${Object.keys(SEARCH_OPTION_RANGES).join(', ')}`);
    }
  }
  const resolved = { ...DEFAULT_SEARCH_OPTIONS };
  for (const key of Object.keys(SEARCH_OPTION_RANGES) as Array<keyof SearchIndexOptions>) {
    const value = options[key];
    if (value === undefined) continue;
    const range = SEARCH_OPTION_RANGES[key];
    const kind = range.integer ? 'an integer' : 'a number';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < range.min || value > range.max || (range.integer && !Number.isInteger(value))) {
      throw new SearchError('invalid_option', `search option ${key}=${String(value)} is invalid: expected ${kind} from ${range.min} to ${range.max}`);
    }
    resolved[key] = value;
  }
  if (overlapTooLong(resolved.chunkWords, resolved.overlapWords)) {
    throw new SearchError(
      'invalid_option',
      `search option overlapWords=${resolved.overlapWords} is invalid: it must be at most half of chunkWords (${resolved.chunkWords})`,
    );
  }
  return Object.freeze(resolved);
}

/** The overlap rule: consecutive windows share at most half of a chunk. */
export function overlapTooLong(chunkWords: number, overlapWords: number): boolean {
  return overlapWords * 2 > chunkWords;
}
