import type { Tokenizer } from './tokenizer.js';

/** Longest snippet, in UTF-16 code units, ellipses included. */
export const SNIPPET_CHARS = 300;

const ELLIPSIS = '…';
const SPACE = /\s/;
const SPACES = /\s+/g;
const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;
/** Characters that the tokenizer turns into bigrams or single-symbol terms, never into words. */
const NOT_WORDISH = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Extended_Pictographic}]/u;

interface Matches {
  start: number[];
  end: number[];
  term: string[];
}

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
  const matches = findMatches(tokenizer, chunk, queryTerms);

  const budget = maxChars - 2 * ELLIPSIS.length;
  let bestFrom = 0;
  let bestTo = 0;
  let bestDistinct = 0;
  let bestCount = 0;
  let j = 0;
  const inWindow = new Map<string, number>();
  for (let i = 0; i < matches.start.length; i += 1) {
    while (j < matches.start.length && (matches.end[j] as number) - (matches.start[i] as number) <= budget) {
      const term = matches.term[j] as string;
      inWindow.set(term, (inWindow.get(term) ?? 0) + 1);
      j += 1;
    }
    if (j === i) {
      // A single match longer than the budget: show its beginning.
      j = i + 1;
      inWindow.set(matches.term[i] as string, 1);
    }
    const count = j - i;
    if (inWindow.size > bestDistinct || (inWindow.size === bestDistinct && count > bestCount)) {
      bestDistinct = inWindow.size;
      bestCount = count;
      bestFrom = matches.start[i] as number;
      bestTo = Math.min(matches.end[j - 1] as number, bestFrom + budget);
    }
    const leaving = matches.term[i] as string;
    const left = (inWindow.get(leaving) ?? 1) - 1;
    if (left === 0) inWindow.delete(leaving);
    else inWindow.set(leaving, left);
  }

  // Centre the matched span in the budget, keep the window inside the chunk, cut at spaces.
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

/**
 * Where the query terms occur in `chunk`, in text order. Rather than tokenizing the whole chunk,
 * it looks up each term without its last letter with indexOf and normalises only the words found
 * there, which is an order of magnitude faster. A word whose term is not, but for its last letter,
 * a prefix of the lowercased word (a folded diacritic, an apostrophe inside the word, a rare Porter
 * rewrite) can be missed; the snippet is then centred on the other matches, and ranking is unaffected.
 */
export function findMatches(tokenizer: Tokenizer, chunk: string, queryTerms: ReadonlySet<string>): Matches {
  const lower = chunk.toLowerCase();
  // Lowercasing can change the length of a few characters (İ); fall back to a full scan then.
  if (lower.length !== chunk.length) return scanMatches(tokenizer, chunk, queryTerms);
  const found: Array<[number, number, string]> = [];
  for (const term of queryTerms) {
    if (NOT_WORDISH.test(term)) {
      for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + 1)) found.push([at, at + term.length, term]);
      continue;
    }
    // A Porter stem differs from its word at most in its last letter ("studi" ← "study"), so all
    // but that letter is a prefix of the word: a long key that few other words share.
    const key = term.length > 3 ? term.slice(0, -1) : term;
    for (let at = lower.indexOf(key); at >= 0; at = lower.indexOf(key, at + 1)) {
      if (at > 0 && isWordChar(lower, at - 1)) continue;
      if (at > 1 && isApostrophe(lower, at - 1) && isWordChar(lower, at - 2)) continue;
      let wordEnd = at + key.length;
      while (wordEnd < lower.length) {
        if (isWordChar(lower, wordEnd)) wordEnd += 1;
        else if (isApostrophe(lower, wordEnd) && wordEnd + 1 < lower.length && isWordChar(lower, wordEnd + 1)) wordEnd += 2;
        else break;
      }
      if (tokenizer.normalizeWord(chunk.slice(at, wordEnd)) === term) found.push([at, wordEnd, term]);
      at = wordEnd - 1;
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  return { start: found.map((m) => m[0]), end: found.map((m) => m[1]), term: found.map((m) => m[2]) };
}

/** The exact, slower path: tokenize the whole chunk. */
function scanMatches(tokenizer: Tokenizer, chunk: string, queryTerms: ReadonlySet<string>): Matches {
  const matches: Matches = { start: [], end: [], term: [] };
  tokenizer.scan(chunk, (term, from, to) => {
    if (queryTerms.has(term)) {
      matches.start.push(from);
      matches.end.push(to);
      matches.term.push(term);
    }
  });
  return matches;
}

function isWordChar(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  const ch = text[at] ?? '';
  return WORD_CHAR.test(ch) && !NOT_WORDISH.test(ch);
}

function isApostrophe(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code === 39 || code === 0x2019;
}
