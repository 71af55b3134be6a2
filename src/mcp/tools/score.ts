/** Decimal places of the scores tools return: enough to order them, few enough to read. */
const ROUND = 1e4;

/**
 * `score` rounded for a tool's answer. A score so large that rounding would overflow (a rerank
 * endpoint may answer any finite number) is returned as it is: Infinity would become null in JSON,
 * and the output schema promises a number.
 */
export function roundScore(score: number): number {
  const rounded = Math.round(score * ROUND) / ROUND;
  return Number.isFinite(rounded) ? rounded : score;
}
