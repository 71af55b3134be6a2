import type { Tokenizer } from './tokenizer.js';

/** Longest snippet, in UTF-16 code units, ellipses included. */
export const SNIPPET_CHARS = 300;

const ELLIPSIS = '…';
const SPACE = /\s/;
const SPACES = /\s+/g;

/**
 * A window of at most `maxChars` of `text[start, end)` around the densest cluster of query terms:
 * the span holding the most distinct query terms (then the most matches) that fits, centred, cut at
 * word boundaries, with whitespace runs collapsed and "…" marking each cut. Without any match, the
 * chunk's opening.
 */
export function makeSnippet(
  tokenizer: Tokenizer,
  text: string,
  start: number,
  end: number,
  queryTerms: ReadonlySet<string>,
  maxChars: number = SNIPPET_CHARS,
): string {
  const chunk = text.slice(start, end);
  if (chunk.length <= maxChars) return chunk.replace(SPACES, ' ').trim();

  const matchStart: number[] = [];
  const matchEnd: number[] = [];
  const matchTerm: string[] = [];
  tokenizer.scan(chunk, (term, from, to) => {
    if (queryTerms.has(term)) {
      matchStart.push(from);
      matchEnd.push(to);
      matchTerm.push(term);
    }
  });

  const budget = maxChars - 2 * ELLIPSIS.length;
  let bestFrom = 0;
  let bestTo = 0;
  if (matchStart.length > 0) {
    let bestDistinct = 0;
    let bestCount = 0;
    let j = 0;
    const inWindow = new Map<string, number>();
    for (let i = 0; i < matchStart.length; i += 1) {
      if (j < i) j = i;
      while (j < matchStart.length && (matchEnd[j] as number) - (matchStart[i] as number) <= budget) {
        const term = matchTerm[j] as string;
        inWindow.set(term, (inWindow.get(term) ?? 0) + 1);
        j += 1;
      }
      const count = j - i;
      if (inWindow.size > bestDistinct || (inWindow.size === bestDistinct && count > bestCount)) {
        bestDistinct = inWindow.size;
        bestCount = count;
        bestFrom = matchStart[i] as number;
        bestTo = matchEnd[j - 1] as number;
      }
      const leaving = matchTerm[i] as string;
      const left = (inWindow.get(leaving) ?? 1) - 1;
      if (left === 0) inWindow.delete(leaving);
      else inWindow.set(leaving, left);
    }
  }

  // Centre the matched span in the budget, then keep the window inside the chunk.
  let from = Math.max(0, bestFrom - Math.floor((budget - (bestTo - bestFrom)) / 2));
  const to = Math.min(chunk.length, from + budget);
  from = Math.max(0, to - budget);
  let cutFrom = from;
  if (cutFrom > 0) {
    while (cutFrom < bestFrom && !SPACE.test(chunk[cutFrom - 1] ?? ' ')) cutFrom += 1;
  }
  let cutTo = to;
  if (cutTo < chunk.length) {
    while (cutTo > Math.max(bestTo, cutFrom + 1) && !SPACE.test(chunk[cutTo] ?? ' ')) cutTo -= 1;
  }
  const body = chunk.slice(cutFrom, cutTo).replace(SPACES, ' ').trim();
  return `${cutFrom > 0 ? ELLIPSIS : ''}${body}${cutTo < chunk.length ? ELLIPSIS : ''}`;
}
