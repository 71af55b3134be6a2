import type { InvertedIndex } from './inverted-index.js';
import { MAX_TOP_K, type TopK } from './top-k.js';

/** Query terms as parallel arrays: term ids and their weights (query weight × idf), each > 0. */
export interface WeightedTerms {
  ids: number[];
  weights: number[];
}

/**
 * Chunk spans up to this many chunks are summed in an array indexed by chunk; longer ones by the
 * dense merge. 65,536 float64 sums are 512 KiB, small enough to stay in a core's cache: there a
 * scattered write is as cheap as a sequential one, and the merge's copying of the touched
 * list at every term costs more than it saves. CPU per ranking over SciFact's 809 training claims,
 * array against merge: 30 against 55 µs at ×1 (8,854 chunks), 66 against 91 at ×4 (35,416), 128
 * against 122 at ×10 (88,540), 295 against 225 at ×20 (177,080); see docs/BENCHMARKS.md.
 */
export const SCATTER_SPAN = 65_536;

/** Per-index buffers reused by every query (queries run one at a time on the event loop). */
export interface ScoreScratch {
  /** Two lists of chunk numbers, each as long as the index has chunks: a term's postings merge from one into the other. */
  chunks: [Uint32Array, Uint32Array];
  /** The partial scores of those chunks, parallel to `chunks`. */
  scores: [Float64Array, Float64Array];
  /** Room for the k best partial scores (k ≤ MAX_TOP_K) when pruning the candidates. */
  heap: Float64Array;
  /** The longest chunk span ranked in `sums`; see SCATTER_SPAN. */
  scatterSpan: number;
  /** Partial scores indexed by chunk number minus the span's first; all 0 between queries. */
  sums: Float64Array;
}

/** `scatterSpan` is SCATTER_SPAN but for tests, which set it to take one path or the other. */
export function createScoreScratch(chunkCount: number, scatterSpan = SCATTER_SPAN): ScoreScratch {
  return {
    chunks: [new Uint32Array(chunkCount), new Uint32Array(chunkCount)],
    scores: [new Float64Array(chunkCount), new Float64Array(chunkCount)],
    heap: new Float64Array(MAX_TOP_K),
    scatterSpan,
    sums: new Float64Array(Math.min(chunkCount, scatterSpan)),
  };
}

/**
 * Leaves in `top` the chunks in `[from, to)` with the highest Σ weight(t) · w(t, c), exactly as a
 * full scan ranks them, with MaxScore-style pruning (Turtle & Flood, 1995) in term-at-a-time order:
 *
 * Terms are taken strongest first, by their bound: weight times the term's largest posting weight,
 * the most it can add to any chunk. While the bounds of the terms not yet taken could lift an
 * untouched chunk into the top k, each term's whole posting list is added ("OR mode"). Once k
 * touched chunks already score more than the remaining bounds sum to, no untouched chunk can make
 * it: the remaining terms only add to chunks already touched ("AND mode"), and chunks scoring below
 * that sum at the end are not even offered to the heap. Common words, which have long lists and
 * small bounds, thus stop creating candidates once k good chunks are known.
 *
 * Every chunk's terms are summed in the same order, so equal chunks get bit-identical scores, and a
 * chunk is dropped only when its bound is below the k-th best by more than rounding could explain:
 * pruning never changes the result or the tie-break (higher score, then lower chunk number).
 */
export function maxScore(index: InvertedIndex, scratch: ScoreScratch, terms: WeightedTerms, from: number, to: number, top: TopK): void {
  const { maxWeight } = index;
  const n = terms.ids.length;
  const bound = new Array<number>(n);
  const order = new Array<number>(n);
  let remaining = 0;
  for (let i = 0; i < n; i += 1) {
    const b = (terms.weights[i] as number) * (maxWeight[terms.ids[i] as number] as number);
    bound[i] = b;
    remaining += b;
    order[i] = i;
  }
  // Strongest bound first; ties by position, so the summation order is fixed for a query.
  order.sort((a, b) => (bound[b] as number) - (bound[a] as number) || a - b);
  const plan: Plan = { terms, order, bound, remaining };
  if (to - from <= scratch.scatterSpan) rankByArray(index, scratch.chunks[0], scratch.sums, plan, from, to, top);
  else rankByMerge(index, scratch, plan, from, to, top);
}

/** A query's terms in the order they are summed (strongest bound first), with their bounds and the bounds' sum. */
interface Plan {
  terms: WeightedTerms;
  order: number[];
  bound: number[];
  remaining: number;
}

/**
 * maxScore over a span that fits in cache: each posting adds to `sums[chunk - from]`, the chunks
 * are listed in `touched` as they are first seen, and in AND mode a common word's whole list is
 * read, skipping untouched chunks. Leaves `sums` all 0 again.
 */
function rankByArray(index: InvertedIndex, touched: Uint32Array, sums: Float64Array, plan: Plan, from: number, to: number, top: TopK): void {
  const { postingChunk, postingWeight } = index;
  const { terms, order, bound } = plan;
  const n = order.length;
  let remaining = plan.remaining;
  let count = 0;
  let best = 0;
  let threshold = -Infinity;
  let next = 0;
  for (; next < n; next += 1) {
    const t = order[next] as number;
    const weight = terms.weights[t] as number;
    const [start, stop] = postingRange(index, terms.ids[t] as number, from, to);
    for (let p = start; p < stop; p += 1) {
      const chunk = postingChunk[p] as number;
      const score = sums[chunk - from] as number;
      // Weights are > 0, so a sum of 0 is a chunk not yet touched.
      if (score === 0) touched[count++] = chunk;
      const sum = score + weight * (postingWeight[p] as number);
      sums[chunk - from] = sum;
      if (sum > best) best = sum;
    }
    remaining -= bound[t] as number;
    if (next + 1 >= n || count < top.capacity || mayReach(remaining, best)) continue;
    let above = 0;
    for (let i = 0; i < count && above < top.capacity; i += 1) {
      if (!mayReach(remaining, sums[(touched[i] as number) - from] as number)) above += 1;
    }
    if (above >= top.capacity) {
      threshold = remaining;
      next += 1;
      break;
    }
  }
  for (; next < n; next += 1) {
    const t = order[next] as number;
    const weight = terms.weights[t] as number;
    const [start, stop] = postingRange(index, terms.ids[t] as number, from, to);
    for (let p = start; p < stop; p += 1) {
      const at = (postingChunk[p] as number) - from;
      const score = sums[at] as number;
      if (score !== 0) sums[at] = score + weight * (postingWeight[p] as number);
    }
  }
  for (let i = 0; i < count; i += 1) {
    const chunk = touched[i] as number;
    const score = sums[chunk - from] as number;
    sums[chunk - from] = 0;
    if (mayReach(score, threshold)) top.push(score, chunk);
  }
}

/**
 * maxScore over a span larger than a cache: the touched chunks are kept dense and in order, and
 * in AND mode pruned before each term and looked up in its list.
 */
function rankByMerge(index: InvertedIndex, scratch: ScoreScratch, plan: Plan, from: number, to: number, top: TopK): void {
  const { postingStart, postingChunk, postingWeight } = index;
  const { terms, order, bound } = plan;
  const n = order.length;
  let remaining = plan.remaining;
  // The touched chunks, ascending, and their partial scores: kept dense and merged with each term's
  // list in order, rather than summed in an array indexed by chunk, because reading and writing
  // in sequence stays cheap where scattered writes over a large corpus miss the cache.
  let side = 0;
  let chunks = scratch.chunks[0];
  let scores = scratch.scores[0];
  let count = 0;
  let best = 0;
  let threshold = -Infinity;
  let next = 0;
  // OR mode: every posting counts, and a chunk seen for the first time joins the touched list.
  for (; next < n; next += 1) {
    const t = order[next] as number;
    const weight = terms.weights[t] as number;
    const [start, stop] = postingRange(index, terms.ids[t] as number, from, to);
    let p = start;
    const outChunks = scratch.chunks[1 - side] as Uint32Array;
    const outScores = scratch.scores[1 - side] as Float64Array;
    let i = 0;
    let out = 0;
    for (; p < stop; p += 1) {
      const chunk = postingChunk[p] as number;
      while (i < count && (chunks[i] as number) < chunk) {
        outChunks[out] = chunks[i] as number;
        outScores[out] = scores[i] as number;
        out += 1;
        i += 1;
      }
      let score = 0;
      if (i < count && chunks[i] === chunk) {
        score = scores[i] as number;
        i += 1;
      }
      const sum = score + weight * (postingWeight[p] as number);
      outChunks[out] = chunk;
      outScores[out] = sum;
      out += 1;
      if (sum > best) best = sum;
    }
    outChunks.set(chunks.subarray(i, count), out);
    outScores.set(scores.subarray(i, count), out);
    count = out + count - i;
    side = 1 - side;
    chunks = outChunks;
    scores = outScores;
    remaining -= bound[t] as number;
    if (next + 1 >= n || count < top.capacity) continue;
    // Untouched chunks are out once k touched ones already score more than the remaining terms
    // can add to anything. That needs the best partial score above `remaining` first; then one
    // counting pass over the touched chunks settles it.
    if (!mayReach(remaining, best) && countAbove(scores, count, remaining, top.capacity) >= top.capacity) {
      threshold = remaining;
      next += 1;
      break;
    }
  }
  // AND mode: no untouched chunk can reach the top k any more, so the remaining terms only add to
  // chunks already touched. Before each term the chunks that cannot reach the k-th best partial
  // score even with every remaining term are dropped (usually most of them), and each survivor is
  // looked up in the term's list by galloping: a common word's long list is read only where a
  // candidate may be.
  for (; next < n; next += 1) {
    count = prune(scores, chunks, count, remaining, kthBest(scores, count, top.capacity, scratch.heap));
    const t = order[next] as number;
    const id = terms.ids[t] as number;
    const weight = terms.weights[t] as number;
    const end = postingStart[id + 1] as number;
    let p = postingStart[id] as number;
    for (let i = 0; i < count && p < end; i += 1) {
      const chunk = chunks[i] as number;
      p = seek(postingChunk, p, end, chunk);
      if (p < end && postingChunk[p] === chunk) scores[i] = (scores[i] as number) + weight * (postingWeight[p] as number);
    }
    remaining -= bound[t] as number;
  }
  for (let i = 0; i < count; i += 1) {
    const score = scores[i] as number;
    if (mayReach(score, threshold)) top.push(score, chunks[i] as number);
  }
}

/**
 * A lower bound on the k-th best final score: the k-th best partial score among the touched
 * chunks (scores only grow), found with a min-heap of the k best in `heap`. -Infinity with fewer.
 */
function kthBest(scores: Float64Array, count: number, k: number, heap: Float64Array): number {
  if (count < k || k === 0 || k > heap.length) return -Infinity;
  let size = 0;
  for (let i = 0; i < count; i += 1) {
    const score = scores[i] as number;
    if (size < k) {
      let at = size;
      size += 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((heap[parent] as number) <= score) break;
        heap[at] = heap[parent] as number;
        at = parent;
      }
      heap[at] = score;
    } else if (score > (heap[0] as number)) {
      let at = 0;
      for (;;) {
        let child = 2 * at + 1;
        if (child >= k) break;
        if (child + 1 < k && (heap[child + 1] as number) < (heap[child] as number)) child += 1;
        if ((heap[child] as number) >= score) break;
        heap[at] = heap[child] as number;
        at = child;
      }
      heap[at] = score;
    }
  }
  return heap[0] as number;
}

/**
 * Keeps at the front of `scores` and `touched` (parallel) the chunks whose partial score plus
 * `remaining` (the most the terms left can add) may still reach `floor`; returns how many. A
 * dropped chunk ends below `floor` by more than rounding, and `floor` is at most the k-th best
 * final score, so it could not have made the top k. The order is kept.
 */
function prune(scores: Float64Array, touched: Uint32Array, count: number, remaining: number, floor: number): number {
  let kept = 0;
  for (let i = 0; i < count; i += 1) {
    const score = scores[i] as number;
    if (!mayReach(score + remaining, floor)) continue;
    scores[kept] = score;
    touched[kept] = touched[i] as number;
    kept += 1;
  }
  return kept;
}

/** How many of the touched chunks score clearly above `floor`, counting no further than `enough`. */
function countAbove(scores: Float64Array, count: number, floor: number, enough: number): number {
  let found = 0;
  for (let i = 0; i < count && found < enough; i += 1) {
    const score = scores[i] as number;
    if (!mayReach(floor, score)) found += 1;
  }
  return found;
}

/** The postings `[p, stop)` of term `id` on chunks in `[from, to)`. */
function postingRange(index: InvertedIndex, id: number, from: number, to: number): [number, number] {
  const { postingStart, postingChunk } = index;
  const start = postingStart[id] as number;
  const end = postingStart[id + 1] as number;
  if (from === 0 && to === index.chunkCount) return [start, end];
  const p = seek(postingChunk, start, end, from);
  return [p, seek(postingChunk, p, end, to)];
}

/** Whether something bounded by `bound` could still reach `threshold`, with room for rounding. */
function mayReach(bound: number, threshold: number): boolean {
  return bound >= threshold - Math.abs(threshold) * 1e-9;
}

/** The first position in `[lo, hi)` of the ascending `list` holding a value ≥ `target`, by galloping then bisecting. */
function seek(list: Uint32Array, lo: number, hi: number, target: number): number {
  if (lo >= hi || (list[lo] as number) >= target) return lo;
  let bottom = lo;
  let step = 1;
  let probe = lo + 1;
  while (probe < hi && (list[probe] as number) < target) {
    bottom = probe;
    step *= 2;
    probe = lo + step;
  }
  let top = Math.min(probe, hi);
  while (bottom + 1 < top) {
    const mid = (bottom + top) >> 1;
    if ((list[mid] as number) < target) bottom = mid;
    else top = mid;
  }
  return top;
}
