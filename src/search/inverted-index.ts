import { termTableOf } from './term-table.js';
import type { TermTable } from './term-table.js';

interface InvertedIndexArrays {
  idf: Float64Array;
  postingStart: Uint32Array;
  postingChunk: Uint32Array;
  postingWeight: Float32Array;
  maxWeight: Float32Array;
  forwardStart: Uint32Array;
  forwardTerm: Uint32Array;
  forwardTf: Uint16Array;
  bodyLength: Uint32Array;
}

interface InvertedIndexFields extends InvertedIndexArrays {
  terms: TermTable;
}

/**
 * An index taken apart: its terms in id order (a list, or a table already made over a snapshot's
 * bytes: term-table.ts) and its typed arrays (see the class comment).
 */
export interface InvertedIndexParts extends InvertedIndexArrays {
  terms: readonly string[] | TermTable;
}

/**
 * Posting lists in compressed-sparse-row form: the postings of term t are the entries
 * `postingStart[t] .. postingStart[t + 1]` of `postingChunk` (ascending chunk numbers) and
 * `postingWeight` (the saturated BM25F weight w(t, c) of bm25.ts, stored as float32).
 * An optional forward copy (`forwardStart`, `forwardTerm`, `forwardTf`) lists each chunk's terms and
 * counts, which pseudo-relevance feedback reads. Built once (index-assembler.ts); nothing here changes afterwards.
 */
export class InvertedIndex {
  readonly chunkCount: number;
  readonly termCount: number;
  readonly idf: Float64Array;
  readonly postingStart: Uint32Array;
  readonly postingChunk: Uint32Array;
  readonly postingWeight: Float32Array;
  /** The largest w(t, c) of each term: the most one occurrence of it can add to a score. */
  readonly maxWeight: Float32Array;
  readonly forwardStart: Uint32Array;
  readonly forwardTerm: Uint32Array;
  readonly forwardTf: Uint16Array;
  readonly bodyLength: Uint32Array;
  readonly #terms: TermTable;

  private constructor(fields: InvertedIndexFields) {
    this.#terms = fields.terms;
    this.idf = fields.idf;
    this.postingStart = fields.postingStart;
    this.postingChunk = fields.postingChunk;
    this.postingWeight = fields.postingWeight;
    this.maxWeight = fields.maxWeight;
    this.forwardStart = fields.forwardStart;
    this.forwardTerm = fields.forwardTerm;
    this.forwardTf = fields.forwardTf;
    this.bodyLength = fields.bodyLength;
    this.chunkCount = fields.bodyLength.length;
    this.termCount = fields.idf.length;
    Object.freeze(this);
  }

  /**
   * Rebuilds an index from the arrays `parts()` returned (e.g. read back from a snapshot). The
   * arrays are used as they are, not copied. Throws a RangeError when their lengths disagree.
   */
  static fromParts(parts: InvertedIndexParts): InvertedIndex {
    const { terms: given, ...arrays } = parts;
    const terms = Array.isArray(given) ? termTableOf(given) : (given as TermTable);
    const termCount = terms.size;
    const chunkCount = arrays.bodyLength.length;
    const postings = arrays.postingChunk.length;
    const entries = arrays.forwardTerm.length;
    const consistent =
      arrays.idf.length === termCount &&
      arrays.maxWeight.length === termCount &&
      arrays.postingStart.length === termCount + 1 &&
      arrays.postingStart[termCount] === postings &&
      arrays.postingWeight.length === postings &&
      arrays.forwardTf.length === entries &&
      (arrays.forwardStart.length === 0 ? entries === 0 : arrays.forwardStart.length === chunkCount + 1 && arrays.forwardStart[chunkCount] === entries);
    if (!consistent) throw new RangeError('inverted index parts have inconsistent lengths');
    return new InvertedIndex({ terms, ...arrays });
  }

  /** Everything the index is made of, terms in id order; `fromParts` turns it back into an equal index. */
  parts(): InvertedIndexParts & { terms: readonly string[] } {
    return {
      terms: this.#terms.list(),
      idf: this.idf,
      postingStart: this.postingStart,
      postingChunk: this.postingChunk,
      postingWeight: this.postingWeight,
      maxWeight: this.maxWeight,
      forwardStart: this.forwardStart,
      forwardTerm: this.forwardTerm,
      forwardTf: this.forwardTf,
      bodyLength: this.bodyLength,
    };
  }

  /** The id of `term`, or -1 when no chunk holds it. */
  termId(term: string): number {
    return this.#terms.id(term);
  }

  /** Chunks holding term `id`. */
  documentFrequency(id: number): number {
    return (this.postingStart[id + 1] ?? 0) - (this.postingStart[id] ?? 0);
  }
}
