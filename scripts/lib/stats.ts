// Statistics for retrieval evaluations over a fixed set of queries: a bootstrap confidence interval
// of a mean and a paired randomization (sign-flip) test of two systems' per-query scores. Both use a
// seeded generator so a run prints the same figures every time.

/** Mulberry32: a small seeded 32-bit generator, uniform on [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile bootstrap 95 % interval of the mean of `values` (resampling queries with replacement). */
export function bootstrapCi(values: readonly number[], rounds = 2000, seed = 1): [number, number] {
  const n = values.length;
  if (n === 0) return [0, 0];
  const random = seededRandom(seed);
  const means = new Float64Array(rounds);
  for (let r = 0; r < rounds; r += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += values[Math.floor(random() * n)] as number;
    means[r] = sum / n;
  }
  means.sort();
  return [means[Math.floor(rounds * 0.025)] as number, means[Math.min(rounds - 1, Math.floor(rounds * 0.975))] as number];
}

/**
 * Two-sided p-value of a paired randomization test: under the null hypothesis that the two systems
 * are exchangeable, each query's difference is equally likely to have either sign. The p-value is the
 * share of random sign assignments whose mean difference is at least as far from 0 as the observed
 * one (with the observed assignment counted, so never 0).
 */
export function pairedRandomization(a: readonly number[], b: readonly number[], rounds = 10000, seed = 1): number {
  if (a.length !== b.length) throw new Error(`paired test needs equal lengths, got ${a.length} and ${b.length}`);
  const diffs = a.map((x, i) => x - (b[i] as number));
  const observed = Math.abs(diffs.reduce((s, d) => s + d, 0));
  const random = seededRandom(seed);
  let atLeast = 1;
  for (let r = 0; r < rounds; r += 1) {
    let sum = 0;
    for (const d of diffs) sum += random() < 0.5 ? d : -d;
    if (Math.abs(sum) >= observed - 1e-12) atLeast += 1;
  }
  return atLeast / (rounds + 1);
}
