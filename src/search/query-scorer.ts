import type { Bm25Params } from './bm25.js';
import type { InvertedIndex } from './inverted-index.js';
import { TopK } from './top-k.js';

export interface FeedbackParams {
  feedbackWeight: number;
  feedbackChunks: number;
  feedbackTerms: number;
}

/**
 * Scores a query against the inverted index in term-at-a-time order, then refines it with
 * pseudo-relevance feedback in the manner of RM3 (Abdul-Jaleel et al., 2004):
 *
 * 1. First pass: score(c) = Σ qtf(t) · idf(t) · w(t, c) over the query's terms (bm25.ts).
 * 2. Take the F best chunks; weight each by its share s_i of their summed score and form the
 *    feedback model fb(t) = Σ_i s_i · tf(t, c_i) / |c_i| over their body terms.
 * 3. Keep the E terms with the highest fb(t) · idf(t) (idf keeps words common to every abstract,
 *    "cell", "study", from crowding out the distinctive ones) and renormalise them to sum 1.
 * 4. Final query: (1 - λ) · qtf(t) / |q| + λ · fb(t). Scaled by |q| / (1 - λ) so that scores stay
 *    on the first pass's scale, a chunk's final score is
 *    score(c) + μ · Σ_t fb(t) · idf(t) · w(t, c)  with  μ = λ · |q| / (1 - λ).
 *
 * The second pass only walks the feedback terms' postings, adding to the first pass's sums.
 * Scratch buffers are allocated once per index and reused; queries run one at a time on the event
 * loop, so sharing them is safe, and no query can observe another's state.
 */
export class QueryScorer {
  readonly #index: InvertedIndex;
  readonly #feedback: FeedbackParams;
  readonly #scores: Float64Array;
  readonly #seen: Uint8Array;
  readonly #touched: Uint32Array;
  readonly #termWeight: Float64Array;
  readonly #termSeen: Uint8Array;
  readonly #termTouched: Uint32Array;
  readonly #feedbackTop: TopK;
  readonly #termTop: TopK;

  constructor(index: InvertedIndex, params: Bm25Params & FeedbackParams) {
    this.#index = index;
    this.#feedback = { feedbackWeight: params.feedbackWeight, feedbackChunks: params.feedbackChunks, feedbackTerms: params.feedbackTerms };
    this.#scores = new Float64Array(index.chunkCount);
    this.#seen = new Uint8Array(index.chunkCount);
    this.#touched = new Uint32Array(index.chunkCount);
    this.#termWeight = new Float64Array(index.termCount);
    this.#termSeen = new Uint8Array(index.termCount);
    this.#termTouched = new Uint32Array(index.termCount);
    this.#feedbackTop = new TopK(params.feedbackChunks);
    this.#termTop = new TopK(params.feedbackTerms);
    Object.freeze(this);
  }

  /** The `topK` best chunks among chunk numbers `[from, to)` for the query `terms`, best first. */
  rank(terms: readonly string[], topK: number, from: number, to: number): { ids: number[]; scores: number[] } {
    const index = this.#index;
    let touched = 0;
    let queryLength = 0;
    for (const term of terms) {
      const id = index.termId(term);
      if (id >= 0) {
        touched = this.#accumulate(id, index.idf[id] as number, from, to, touched);
        queryLength += 1;
      }
    }
    if (touched === 0) return { ids: [], scores: [] };
    if (this.#feedback.feedbackWeight > 0) touched = this.#expand(queryLength, from, to, touched);

    const top = new TopK(topK);
    const scores = this.#scores;
    const seen = this.#seen;
    for (let i = 0; i < touched; i += 1) {
      const chunk = this.#touched[i] as number;
      const score = scores[chunk] as number;
      if (score > 0) top.push(score, chunk);
      scores[chunk] = 0;
      seen[chunk] = 0;
    }
    return top.drain();
  }

  /** Adds `weight · w(t, c)` to every chunk in range holding term `id`; returns the new touched count. */
  #accumulate(id: number, weight: number, from: number, to: number, touched: number): number {
    const { postingStart, postingChunk, postingWeight } = this.#index;
    const scores = this.#scores;
    const seen = this.#seen;
    const list = this.#touched;
    const end = postingStart[id + 1] as number;
    for (let p = postingStart[id] as number; p < end; p += 1) {
      const chunk = postingChunk[p] as number;
      if (chunk < from || chunk >= to) continue;
      if (seen[chunk] === 0) {
        seen[chunk] = 1;
        list[touched] = chunk;
        touched += 1;
      }
      scores[chunk] = (scores[chunk] as number) + weight * (postingWeight[p] as number);
    }
    return touched;
  }

  /** Steps 2–4 of the class comment: adds the feedback terms' contribution to the first-pass sums. */
  #expand(queryLength: number, from: number, to: number, touched: number): number {
    const index = this.#index;
    const { feedbackWeight } = this.#feedback;
    const best = this.#feedbackTop;
    best.clear();
    for (let i = 0; i < touched; i += 1) {
      const chunk = this.#touched[i] as number;
      best.push(this.#scores[chunk] as number, chunk);
    }
    const { ids, scores } = best.drain();
    let total = 0;
    for (const s of scores) total += s;
    if (total <= 0) return touched;

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
      chosen.push((weights[term] as number) * (index.idf[term] as number), term);
    }
    const picked = chosen.drain().ids;
    let mass = 0;
    for (const term of picked) mass += weights[term] as number;
    const mu = mass > 0 ? (feedbackWeight * queryLength) / (1 - feedbackWeight) / mass : 0;
    for (const term of picked) {
      const weight = mu * (weights[term] as number) * (index.idf[term] as number);
      if (weight > 0) touched = this.#accumulate(term, weight, from, to, touched);
    }
    for (let i = 0; i < terms; i += 1) {
      const term = termList[i] as number;
      weights[term] = 0;
      termSeen[term] = 0;
    }
    return touched;
  }
}
