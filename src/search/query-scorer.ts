import { queryTermWeight, type Bm25Params } from './bm25.js';
import type { InvertedIndex } from './inverted-index.js';
import { createScoreScratch, maxScore, type ScoreScratch, type WeightedTerms } from './max-score.js';
import { TopK } from './top-k.js';

export interface FeedbackParams {
  feedbackWeight: number;
  feedbackChunks: number;
  feedbackTerms: number;
}

/**
 * Ranks chunks for a query: BM25F over the query's terms (bm25.ts), top-k with MaxScore
 * pruning (max-score.ts), optionally refined by pseudo-relevance feedback in the manner of RM3
 * (Abdul-Jaleel et al., 2004):
 *
 * 1. First pass: score(c) = Σ qw(t) · idf(t) · w(t, c) over the query's distinct terms, where
 *    qw(t) is the saturated query term frequency of bm25.ts (1 for a term written once).
 * 2. Take the F best chunks; weight each by its share s_i of their summed score and form the
 *    feedback model fb(t) = Σ_i s_i · tf(t, c_i) / |c_i| over their body terms.
 * 3. Keep the E terms with the highest fb(t) · idf(t) (idf keeps words common to every document
 *    from crowding out the distinctive ones) and renormalise fb over them to sum 1.
 * 4. Final query weight of each term: qw(t) + μ · fb(t) with μ = λ · |q| / (1 - λ), |q| = Σ qw(t),
 *    which is the RM3 mixture (1 - λ) · qw(t) / |q| + λ · fb(t) scaled by |q| / (1 - λ) so scores
 *    stay on the first pass's scale. A chunk's score is Σ weight(t) · idf(t) · w(t, c).
 *
 * Scratch buffers are allocated once per index and reused; queries run one at a time on the event
 * loop, so sharing them is safe, and no query can observe another's state.
 */
export class QueryScorer {
  readonly #index: InvertedIndex;
  readonly #feedback: FeedbackParams;
  readonly #queryK3: number;
  readonly #scratch: ScoreScratch;
  readonly #termWeight: Float64Array;
  readonly #termSeen: Uint8Array;
  readonly #termTouched: Uint32Array;
  readonly #feedbackTop: TopK;
  readonly #termTop: TopK;
  /** Result heaps by size, reused: most callers ask for the same few sizes. */
  readonly #resultHeaps = new Map<number, TopK>();

  constructor(index: InvertedIndex, params: Bm25Params & FeedbackParams) {
    this.#index = index;
    this.#queryK3 = params.queryK3;
    this.#feedback = { feedbackWeight: params.feedbackWeight, feedbackChunks: params.feedbackChunks, feedbackTerms: params.feedbackTerms };
    this.#scratch = createScoreScratch(index.chunkCount);
    this.#termWeight = new Float64Array(index.termCount);
    this.#termSeen = new Uint8Array(index.termCount);
    this.#termTouched = new Uint32Array(index.termCount);
    this.#feedbackTop = new TopK(params.feedbackChunks);
    this.#termTop = new TopK(params.feedbackTerms);
    Object.freeze(this);
  }

  /** The `topK` best chunks among chunk numbers `[from, to)` for the query `terms`, best first. */
  rank(terms: readonly string[], topK: number, from: number, to: number): { ids: number[]; scores: number[] } {
    const { query, queryLength } = this.#weigh(terms);
    if (query.ids.length === 0) return { ids: [], scores: [] };
    if (this.#feedback.feedbackWeight > 0) this.#expand(query, queryLength, from, to);
    let top = this.#resultHeaps.get(topK);
    if (top === undefined) {
      top = new TopK(topK);
      if (this.#resultHeaps.size < 16) this.#resultHeaps.set(topK, top);
    }
    top.clear();
    maxScore(this.#index, this.#scratch, query, from, to, top);
    return top.drain();
  }

  /**
   * The first-pass score (step 1 of the class comment, no feedback) of each chunk in `chunks`, in
   * order: what `rank` would give these chunks, found by binary search in each term's postings.
   */
  scoreChunks(terms: readonly string[], chunks: readonly number[]): number[] {
    const index = this.#index;
    const { query } = this.#weigh(terms);
    const scores = new Array<number>(chunks.length).fill(0);
    for (let q = 0; q < query.ids.length; q += 1) {
      const term = query.ids[q] as number;
      const weight = query.weights[q] as number;
      const first = index.postingStart[term] as number;
      const end = index.postingStart[term + 1] as number;
      chunks.forEach((chunk, i) => {
        let lo = first;
        let hi = end;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if ((index.postingChunk[mid] as number) < chunk) lo = mid + 1;
          else hi = mid;
        }
        if (lo < end && index.postingChunk[lo] === chunk) scores[i] = (scores[i] as number) + weight * (index.postingWeight[lo] as number);
      });
    }
    return scores;
  }

  /** The query's distinct known terms with weight qw(t) · idf(t), and |q| = Σ qw(t). */
  #weigh(terms: readonly string[]): { query: WeightedTerms; queryLength: number } {
    const index = this.#index;
    const query: WeightedTerms = { ids: [], weights: [] };
    const slot = new Map<number, number>();
    for (const term of terms) {
      const id = index.termId(term);
      if (id < 0) continue;
      const at = slot.get(id);
      if (at !== undefined) query.weights[at] = (query.weights[at] as number) + 1;
      else {
        slot.set(id, query.ids.length);
        query.ids.push(id);
        query.weights.push(1);
      }
    }
    let queryLength = 0;
    for (let i = 0; i < query.ids.length; i += 1) {
      const qw = queryTermWeight(query.weights[i] as number, this.#queryK3);
      queryLength += qw;
      query.weights[i] = qw * (index.idf[query.ids[i] as number] as number);
    }
    return { query, queryLength };
  }

  /** Steps 2–4 of the class comment: adds the feedback terms to `query`, in place. */
  #expand(query: WeightedTerms, queryLength: number, from: number, to: number): void {
    const index = this.#index;
    const { feedbackWeight } = this.#feedback;
    const best = this.#feedbackTop;
    best.clear();
    maxScore(index, this.#scratch, query, from, to, best);
    const { ids, scores } = best.drain();
    let total = 0;
    for (const s of scores) total += s;
    if (total <= 0) return;

    const weights = this.#termWeight;
    const termSeen = this.#termSeen;
    const termList = this.#termTouched;
    let terms = 0;
    for (let i = 0; i < ids.length; i += 1) {
      const chunk = ids[i] as number;
      const length = index.bodyLength[chunk] as number;
      if (length === 0) continue;
      const share = (scores[i] as number) / total / length;
      for (let e = index.forwardStart[chunk] as number; e < (index.forwardStart[chunk + 1] as number); e += 1) {
        const term = index.forwardTerm[e] as number;
        if (termSeen[term] === 0) {
          termSeen[term] = 1;
          termList[terms] = term;
          terms += 1;
        }
        weights[term] = (weights[term] as number) + share * (index.forwardTf[e] as number);
      }
    }
    const chosen = this.#termTop;
    chosen.clear();
    for (let i = 0; i < terms; i += 1) {
      const term = termList[i] as number;
      const weight = weights[term] as number;
      if (weight > 0 && index.documentFrequency(term) > 0) chosen.push(weight * (index.idf[term] as number), term);
    }
    const picked = chosen.drain().ids;
    let mass = 0;
    for (const term of picked) mass += weights[term] as number;
    const mu = mass > 0 ? (feedbackWeight * queryLength) / (1 - feedbackWeight) / mass : 0;
    for (const term of picked) {
      const add = mu * (weights[term] as number) * (index.idf[term] as number);
      const at = query.ids.indexOf(term);
      if (at >= 0) query.weights[at] = (query.weights[at] as number) + add;
      else {
        query.ids.push(term);
        query.weights.push(add);
      }
    }
    for (let i = 0; i < terms; i += 1) {
      const term = termList[i] as number;
      weights[term] = 0;
      termSeen[term] = 0;
    }
  }
}
