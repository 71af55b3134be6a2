import { combinedTf, idf, saturate, type Bm25Params } from './bm25.js';

/**
 * The terms of every chunk, field by field, as ids of a vocabulary (see `Vocabulary` in
 * vocabulary.ts), in one array: chunk c's body is `ids[fields[6c] .. fields[6c + 1]]`, its title
 * `ids[fields[6c + 2] .. fields[6c + 3]]` and its heading `ids[fields[6c + 4] .. fields[6c + 5]]`.
 * Chunks may share a range (the title of a document, a heading).
 */
export interface ChunkTerms {
  ids: Uint32Array;
  fields: Uint32Array;
}

/** Entries of `ChunkTerms.fields` per chunk: start and end of the body, the title and the heading. */
export const CHUNK_FIELDS = 6;

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
  termIds: ReadonlyMap<string, number>;
}

/** An index taken apart: its terms in id order and its typed arrays (see the class comment). */
export interface InvertedIndexParts extends InvertedIndexArrays {
  terms: readonly string[];
}

/**
 * Posting lists in compressed-sparse-row form: the postings of term t are the entries
 * `postingStart[t] .. postingStart[t + 1]` of `postingChunk` (ascending chunk numbers) and
 * `postingWeight` (the saturated BM25F weight w(t, c) of bm25.ts, stored as float32).
 * An optional forward copy (`forwardStart`, `forwardTerm`, `forwardTf`) lists each chunk's terms and
 * counts, which pseudo-relevance feedback reads. Built once; nothing here changes afterwards.
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
  readonly #termIds: ReadonlyMap<string, number>;

  private constructor(fields: InvertedIndexFields) {
    this.#termIds = fields.termIds;
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
    const { terms, ...arrays } = parts;
    const termCount = terms.length;
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
    const termIds = new Map<string, number>();
    for (let t = 0; t < termCount; t += 1) termIds.set(terms[t] as string, t);
    if (termIds.size !== termCount) throw new RangeError('inverted index parts repeat a term');
    return new InvertedIndex({ termIds, ...arrays });
  }

  /** Everything the index is made of, terms in id order; `fromParts` turns it back into an equal index. */
  parts(): InvertedIndexParts {
    return {
      terms: [...this.#termIds.keys()],
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
    return this.#termIds.get(term) ?? -1;
  }

  /** Chunks holding term `id`. */
  documentFrequency(id: number): number {
    return (this.postingStart[id + 1] ?? 0) - (this.postingStart[id] ?? 0);
  }

  /**
   * Indexes `chunks`, whose term ids index `vocabulary`; the forward lists are kept only when
   * `keepForward` (feedback needs them). The index numbers terms afresh, in the order chunks first
   * use them (body, title, heading), whatever order the vocabulary saw them in.
   */
  static build(chunks: ChunkTerms, vocabulary: readonly string[], params: Bm25Params, keepForward = true): InvertedIndex {
    // Vocabulary id → index id, -1 until first used; and per chunk, where each term's counts sit.
    const idOf = new Int32Array(vocabulary.length).fill(-1);
    const order: string[] = [];
    const slotOf = new Int32Array(vocabulary.length);
    const seenIn = new Int32Array(vocabulary.length).fill(-1);

    // Pass 1: per chunk, the distinct terms (entries) with their count in each field.
    const { ids, fields } = chunks;
    const chunkCount = fields.length / CHUNK_FIELDS;
    const forwardStart = new Uint32Array(chunkCount + 1);
    const bodyLength = new Uint32Array(chunkCount);
    let fwd = new ForwardCounts(ids.length >>> 1);
    let entries = 0;
    let totalBody = 0;
    for (let c = 0; c < chunkCount; c += 1) {
      const at = c * CHUNK_FIELDS;
      const body = (fields[at + 1] as number) - (fields[at] as number);
      // A chunk adds at most one entry per id it holds: room for all of them, so no array moves below.
      const most = body + (fields[at + 3] as number) - (fields[at + 2] as number) + (fields[at + 5] as number) - (fields[at + 4] as number);
      if (entries + most > fwd.capacity) fwd = fwd.grown(entries + most);
      const { term: fwdTerm } = fwd;
      forwardStart[c] = entries;
      for (let field = 0; field < 3; field += 1) {
        const counts = field === 0 ? fwd.body : field === 1 ? fwd.title : fwd.heading;
        const to = fields[at + field * 2 + 1] as number;
        for (let i = fields[at + field * 2] as number; i < to; i += 1) {
          const term = ids[i] as number;
          let slot: number;
          if (seenIn[term] === c) {
            slot = slotOf[term] as number;
          } else {
            seenIn[term] = c;
            slot = entries;
            entries += 1;
            slotOf[term] = slot;
            let id = idOf[term] as number;
            if (id < 0) {
              id = order.length;
              idOf[term] = id;
              order.push(vocabulary[term] as string);
            }
            fwdTerm[slot] = id;
          }
          counts[slot] = (counts[slot] as number) + 1;
        }
      }
      bodyLength[c] = body;
      totalBody += body;
    }
    const { term: fwdTerm, body: fwdBody, title: fwdTitle, heading: fwdHeading } = fwd;
    const termIds = new Map<string, number>();
    for (let t = 0; t < order.length; t += 1) termIds.set(order[t] as string, t);
    forwardStart[chunkCount] = entries;
    const averageBodyLength = chunkCount > 0 ? totalBody / chunkCount : 0;

    // Pass 2: document frequencies, then postings by counting sort, so each list is in chunk order.
    // A term only in a field of weight 0 gets no posting: it cannot change a score.
    const termCount = termIds.size;
    const weightOf = new Float64Array(entries);
    for (let c = 0; c < chunkCount; c += 1) {
      const length = bodyLength[c] as number;
      for (let e = forwardStart[c] as number; e < (forwardStart[c + 1] as number); e += 1) {
        weightOf[e] = saturate(combinedTf(params, fwdBody[e] as number, fwdTitle[e] as number, fwdHeading[e] as number, length, averageBodyLength), params.k1);
      }
    }
    const postingStart = new Uint32Array(termCount + 1);
    let postings = 0;
    for (let e = 0; e < entries; e += 1) {
      if (weightOf[e] === 0) continue;
      postings += 1;
      const next = (fwdTerm[e] as number) + 1;
      postingStart[next] = (postingStart[next] as number) + 1;
    }
    for (let t = 0; t < termCount; t += 1) postingStart[t + 1] = (postingStart[t + 1] as number) + (postingStart[t] as number);
    const fill = postingStart.slice(0, termCount);
    const postingChunk = new Uint32Array(postings);
    const postingWeight = new Float32Array(postings);
    const maxWeight = new Float32Array(termCount);
    const forwardTerm = new Uint32Array(keepForward ? entries : 0);
    const forwardTf = new Uint16Array(keepForward ? entries : 0);
    for (let c = 0; c < chunkCount; c += 1) {
      for (let e = forwardStart[c] as number; e < (forwardStart[c + 1] as number); e += 1) {
        const term = fwdTerm[e] as number;
        if (keepForward) {
          forwardTerm[e] = term;
          forwardTf[e] = Math.min(fwdBody[e] as number, 0xffff);
        }
        if (weightOf[e] === 0) continue;
        const at = fill[term] as number;
        fill[term] = at + 1;
        postingChunk[at] = c;
        postingWeight[at] = weightOf[e] as number;
        if ((weightOf[e] as number) > (maxWeight[term] as number)) maxWeight[term] = weightOf[e] as number;
      }
    }
    const idfs = new Float64Array(termCount);
    for (let t = 0; t < termCount; t += 1) idfs[t] = idf(chunkCount, (postingStart[t + 1] as number) - (postingStart[t] as number));

    return new InvertedIndex({
      termIds,
      idf: idfs,
      postingStart,
      postingChunk,
      postingWeight,
      maxWeight,
      forwardStart: keepForward ? forwardStart : new Uint32Array(0),
      forwardTerm,
      forwardTf,
      bodyLength,
    });
  }
}

/** Pass 1's per-entry arrays: the term and its count in each field. Fresh room is zero. */
class ForwardCounts {
  readonly capacity: number;
  readonly term: Uint32Array;
  readonly body: Uint32Array;
  readonly title: Uint32Array;
  readonly heading: Uint32Array;

  constructor(capacity: number, from?: ForwardCounts) {
    this.capacity = Math.max(1, capacity);
    this.term = new Uint32Array(this.capacity);
    this.body = new Uint32Array(this.capacity);
    this.title = new Uint32Array(this.capacity);
    this.heading = new Uint32Array(this.capacity);
    if (from !== undefined) {
      this.term.set(from.term);
      this.body.set(from.body);
      this.title.set(from.title);
      this.heading.set(from.heading);
    }
  }

  /** A copy with room for at least `needed` entries. */
  grown(needed: number): ForwardCounts {
    return new ForwardCounts(Math.max(needed, this.capacity * 2), this);
  }
}
