import { SearchError } from './search-error.js';

/**
 * The most hits one search may return. The engine's bound, not a tool's: the MAX_TOP_K setting (the
 * `top_k` ceiling of search_documents) ranges up to it, so every layer accepts the same numbers.
 */
export const MAX_TOP_K = 1000;

/** Throws a `SearchError` (`invalid_argument`) unless `topK` is a whole number from 1 to MAX_TOP_K. */
export function checkTopK(topK: number): void {
  if (!Number.isInteger(topK) || topK < 1 || topK > MAX_TOP_K) {
    throw new SearchError('invalid_argument', `topK=${String(topK)} is invalid: expected an integer from 1 to ${MAX_TOP_K}`);
  }
}

/**
 * Keeps the k best (score, id) pairs seen, in a bounded min-heap: O(n log k) over n candidates
 * instead of sorting all of them. "Better" means a higher score, then a lower id, so ties are
 * broken the same way on every run. Ids are chunk numbers, assigned in (source, chunk) order.
 */
export class TopK {
  readonly #scores: Float64Array;
  readonly #ids: Uint32Array;
  #size = 0;

  constructor(readonly capacity: number) {
    this.#scores = new Float64Array(capacity);
    this.#ids = new Uint32Array(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** The score of the worst kept candidate; only meaningful when the heap holds any. */
  worstScore(): number {
    return this.#scores[0] as number;
  }

  /** Empties the heap so it can be reused without allocating. */
  clear(): void {
    this.#size = 0;
  }

  /** Offers a candidate; it is kept when it beats the worst of a full heap. */
  push(score: number, id: number): void {
    const scores = this.#scores;
    const ids = this.#ids;
    if (this.#size < this.capacity) {
      let i = this.#size;
      this.#size += 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(score, id, scores[parent] as number, ids[parent] as number)) break;
        scores[i] = scores[parent] as number;
        ids[i] = ids[parent] as number;
        i = parent;
      }
      scores[i] = score;
      ids[i] = id;
      return;
    }
    if (this.capacity === 0 || !worse(scores[0] as number, ids[0] as number, score, id)) return;
    this.#siftDown(score, id, this.#size);
  }

  /** Removes everything and returns it best first, as [ids, scores]. */
  drain(): { ids: number[]; scores: number[] } {
    const n = this.#size;
    const ids = new Array<number>(n);
    const scores = new Array<number>(n);
    for (let out = n - 1; out >= 0; out -= 1) {
      ids[out] = this.#ids[0] as number;
      scores[out] = this.#scores[0] as number;
      const last = out;
      this.#size = last;
      if (last > 0) this.#siftDown(this.#scores[last] as number, this.#ids[last] as number, last);
    }
    this.#size = 0;
    return { ids, scores };
  }

  /** Puts (score, id) at the root of a heap of `size` entries and sifts it down. */
  #siftDown(score: number, id: number, size: number): void {
    const scores = this.#scores;
    const ids = this.#ids;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= size) break;
      const right = left + 1;
      let child = left;
      if (right < size && worse(scores[right] as number, ids[right] as number, scores[left] as number, ids[left] as number)) child = right;
      if (!worse(scores[child] as number, ids[child] as number, score, id)) break;
      scores[i] = scores[child] as number;
      ids[i] = ids[child] as number;
      i = child;
    }
    scores[i] = score;
    ids[i] = id;
  }
}

/** Whether (scoreA, idA) ranks below (scoreB, idB). */
function worse(scoreA: number, idA: number, scoreB: number, idB: number): boolean {
  return scoreA < scoreB || (scoreA === scoreB && idA > idB);
}
