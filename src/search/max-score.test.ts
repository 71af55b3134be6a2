import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../scripts/lib/stats.js';
import { InvertedIndex } from './inverted-index.js';
import { createScoreScratch, maxScore, SCATTER_SPAN } from './max-score.js';
import { TopK } from './top-k.js';

/** Term t holds each chunk with probability `density[t]`, at a weight in (0, 1]; no forward index. */
function randomIndex(chunkCount: number, density: readonly number[], random: () => number): InvertedIndex {
  const postingStart = [0];
  const postingChunk: number[] = [];
  const postingWeight: number[] = [];
  const maxWeight: number[] = [];
  for (const d of density) {
    let max = 0;
    for (let c = 0; c < chunkCount; c += 1) {
      if (random() >= d) continue;
      const w = Math.fround(0.05 + random() * 0.95);
      postingChunk.push(c);
      postingWeight.push(w);
      if (w > max) max = w;
    }
    postingStart.push(postingChunk.length);
    maxWeight.push(max);
  }
  return InvertedIndex.fromParts({
    terms: density.map((_, t) => `t${t}`),
    idf: new Float64Array(density.map(() => 1)),
    postingStart: Uint32Array.from(postingStart),
    postingChunk: Uint32Array.from(postingChunk),
    postingWeight: Float32Array.from(postingWeight),
    maxWeight: Float32Array.from(maxWeight),
    forwardStart: new Uint32Array(0),
    forwardTerm: new Uint32Array(0),
    forwardTf: new Uint16Array(0),
    bodyLength: new Uint32Array(chunkCount),
  });
}

/** Every chunk's score, summed in the order maxScore sums it (strongest bound first), then sorted. */
function fullScan(index: InvertedIndex, ids: number[], weights: number[], from: number, to: number, k: number): { ids: number[]; scores: number[] } {
  const order = ids.map((_, i) => i);
  const bound = order.map((i) => (weights[i] as number) * (index.maxWeight[ids[i] as number] as number));
  order.sort((a, b) => (bound[b] as number) - (bound[a] as number) || a - b);
  const scores = new Float64Array(index.chunkCount);
  for (const i of order) {
    const id = ids[i] as number;
    for (let p = index.postingStart[id] as number; p < (index.postingStart[id + 1] as number); p += 1) {
      const chunk = index.postingChunk[p] as number;
      scores[chunk] = (scores[chunk] as number) + (weights[i] as number) * (index.postingWeight[p] as number);
    }
  }
  const ranked = [...scores.keys()].filter((c) => c >= from && c < to && (scores[c] as number) > 0);
  ranked.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
  const top = ranked.slice(0, k);
  return { ids: top, scores: top.map((c) => scores[c] as number) };
}

// Spans up to scatterSpan chunks are summed in an array indexed by chunk, longer ones by merging
// sorted lists: 0 takes the merge for every span, SCATTER_SPAN the array, 2000 both by span.
const PATHS = [
  ['merging sorted lists', 0],
  ['an array indexed by chunk', SCATTER_SPAN],
  ['either, by the span', 2000],
] as const;

describe('maxScore', () => {
  it.each(PATHS)('gives the top k of a full scan, bit for bit, when rare terms meet long common lists (%s)', (_, scatterSpan) => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.array(fc.constantFrom(0.002, 0.01, 0.05, 0.3, 0.6, 0.9), { minLength: 1, maxLength: 8 }),
        fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 1, max: 20 }),
        fc.constantFrom<[number, number]>([0, 4000], [0, 1000], [1500, 3900]),
        (seed, density, weights, k, [from, to]) => {
          const index = randomIndex(4000, density, seededRandom(seed));
          const ids = density.map((_, t) => t);
          const w = ids.map((t) => weights[t] as number);
          const top = new TopK(k);
          maxScore(index, createScoreScratch(index.chunkCount, scatterSpan), { ids, weights: w }, from, to, top);
          expect(top.drain()).toEqual(fullScan(index, ids, w, from, to, k));
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each(PATHS)('answers a query the same after another query used the scratch (%s)', (_, scatterSpan) => {
    const index = randomIndex(4000, [0.002, 0.01, 0.6, 0.9, 0.9], seededRandom(7));
    const run = (scratch: ReturnType<typeof createScoreScratch>, ids: number[], weights: number[]): ReturnType<TopK['drain']> => {
      const top = new TopK(3);
      maxScore(index, scratch, { ids, weights }, 0, 4000, top);
      return top.drain();
    };
    const shared = createScoreScratch(index.chunkCount, scatterSpan);
    run(shared, [0, 1, 2, 3, 4], [5, 4, 1, 0.5, 0.4]);
    expect(run(shared, [2, 4], [1, 2])).toEqual(run(createScoreScratch(index.chunkCount, scatterSpan), [2, 4], [1, 2]));
  });
});
