import type { Tokenizer } from './tokenizer.js';
import { NOT_WORDISH, WORD_CHAR } from './word-characters.js';

/** Longest snippet, in UTF-16 code units, ellipses included. */
export const SNIPPET_CHARS = 300;

const ELLIPSIS = '…';
const SPACES = /\s+/g;

/** Query-term matches in a chunk, in text order: match i spans `[start[i], end[i])` and is `term[i]`. */
export interface Matches {
  start: number[];
  end: number[];
  term: string[];
}

/** What a snippet needs of one query term. */
interface SnippetTerm {
  term: string;
  /** The text a word must start with: the term itself, or a Porter stem without its last letter. */
  key: string;
  /** A bigram or emoji term: found as a plain substring, with no word to normalise around it. */
  unspaced: boolean;
}

/**
 * The query side of snippets, worked out once per query and shared by all its hits: the terms, the
 * text each term's words start with, and a table to turn most words away at their first two letters.
 */
export class SnippetQuery {
  readonly terms: readonly SnippetTerm[];
  /**
   * For each ASCII first letter, bit `c & 31` is set for the code c of each such key's second letter
   * (all bits for a one-letter key): a cheap test that turns most words away before any string compare.
   */
  readonly secondMask = new Int32Array(128);
  /** Word terms by the character code their key starts with. */
  readonly byFirstCode = new Map<number, number[]>();
  /** Term → its index in `terms`. */
  readonly indexOf = new Map<string, number>();
  /** Indexes of the unspaced terms. */
  readonly unspaced: number[] = [];
  /**
   * Lowercased word → index of the term it normalises to, or -1: the hits of one query meet the same
   * few words again, and this small map stays in cache where the tokenizer's corpus-wide memo does not.
   */
  readonly wordTerms = new Map<string, number>();

  constructor(queryTerms: Iterable<string>) {
    const terms: SnippetTerm[] = [];
    for (const term of queryTerms) {
      if (term === '' || this.indexOf.has(term)) continue;
      const t = terms.length;
      const unspaced = !isAscii(term) && NOT_WORDISH.test(term);
      // A Porter stem differs from its word at most in its last letter ("studi" ← "study"), so all
      // but that letter is a prefix of the word.
      const key = unspaced || term.length <= 3 ? term : term.slice(0, -1);
      terms.push({ term, key, unspaced });
      this.indexOf.set(term, t);
      if (unspaced) {
        this.unspaced.push(t);
        continue;
      }
      const code = key.charCodeAt(0);
      const bucket = this.byFirstCode.get(code);
      if (bucket === undefined) this.byFirstCode.set(code, [t]);
      else bucket.push(t);
      if (code < 128) this.secondMask[code] = (this.secondMask[code] as number) | (key.length === 1 ? -1 : 1 << (key.charCodeAt(1) & 31));
    }
    this.terms = terms;
  }
}

/** Matches as parallel arrays, with terms as indexes into the query's SnippetTerm list. */
interface FoundMatches {
  start: number[];
  end: number[];
  termIndex: number[];
}

/**
 * A window of at most `maxChars` of `text[start, end)` around the densest cluster of query terms:
 * the span holding the most distinct query terms (then the most matches) that fits, centred, cut at
 * word boundaries, with whitespace runs collapsed and "…" marking each cut. Without any match, the
 * chunk's opening. Pass a SnippetQuery when several chunks are cut for the same query.
 */
export function makeSnippet(
  tokenizer: Tokenizer,
  text: string,
  start: number,
  end: number,
  queryTerms: ReadonlySet<string> | SnippetQuery,
  maxChars: number = SNIPPET_CHARS,
): string {
  const chunk = text.slice(start, end);
  if (chunk.length <= maxChars) return collapseSpaces(chunk);
  const query = queryTerms instanceof SnippetQuery ? queryTerms : new SnippetQuery(queryTerms);
  const matches = collectMatches(tokenizer, chunk, query);
  const count = matches.start.length;

  // Slide a window over the matches (two pointers), counting each term's matches inside it.
  const budget = maxChars - 2 * ELLIPSIS.length;
  const inWindow = new Int32Array(query.terms.length);
  let distinct = 0;
  let bestFrom = 0;
  let bestTo = 0;
  let bestDistinct = 0;
  let bestCount = 0;
  let j = 0;
  for (let i = 0; i < count; i += 1) {
    const from = matches.start[i] as number;
    while (j < count && (matches.end[j] as number) - from <= budget) {
      if (addTo(inWindow, matches.termIndex[j] as number, 1) === 1) distinct += 1;
      j += 1;
    }
    if (j === i) {
      // A single match longer than the budget: show its beginning.
      if (addTo(inWindow, matches.termIndex[i] as number, 1) === 1) distinct += 1;
      j = i + 1;
    }
    if (distinct > bestDistinct || (distinct === bestDistinct && j - i > bestCount)) {
      bestDistinct = distinct;
      bestCount = j - i;
      bestFrom = from;
      bestTo = Math.min(matches.end[j - 1] as number, bestFrom + budget);
    }
    if (addTo(inWindow, matches.termIndex[i] as number, -1) === 0) distinct -= 1;
  }

  // Centre the matched span in the budget, keep the window inside the chunk, cut at spaces.
  let from = Math.max(0, bestFrom - Math.floor((budget - (bestTo - bestFrom)) / 2));
  const to = Math.min(chunk.length, from + budget);
  from = Math.max(0, to - budget);
  let cutFrom = from;
  if (cutFrom > 0) {
    while (cutFrom < bestFrom && !isSpace(chunk.charCodeAt(cutFrom - 1))) cutFrom += 1;
  }
  let cutTo = to;
  if (cutTo < chunk.length) {
    while (cutTo > Math.max(bestTo, cutFrom + 1) && !isSpace(chunk.charCodeAt(cutTo))) cutTo -= 1;
  }
  const body = collapseSpaces(chunk.slice(cutFrom, cutTo));
  return `${cutFrom > 0 ? ELLIPSIS : ''}${body}${cutTo < chunk.length ? ELLIPSIS : ''}`;
}

/**
 * Where the query terms occur in `chunk`, in text order. Rather than tokenizing the whole chunk, it
 * walks the lowercased chunk's words once and normalises only those that start with a query term
 * (without its last letter), which is an order of magnitude faster. A word whose term is not, but for
 * its last letter, a prefix of the lowercased word (a folded diacritic, an apostrophe inside the word,
 * a rare Porter rewrite) can be missed; the snippet is then centred on the other matches, and ranking
 * is unaffected. Bigram and emoji terms are found as substrings.
 */
export function findMatches(tokenizer: Tokenizer, chunk: string, queryTerms: ReadonlySet<string> | SnippetQuery): Matches {
  const query = queryTerms instanceof SnippetQuery ? queryTerms : new SnippetQuery(queryTerms);
  const found = collectMatches(tokenizer, chunk, query);
  return { start: found.start, end: found.end, term: found.termIndex.map((t) => (query.terms[t] as SnippetTerm).term) };
}

function collectMatches(tokenizer: Tokenizer, chunk: string, query: SnippetQuery): FoundMatches {
  const lower = chunk.toLowerCase();
  // Lowercasing can change the length of a few characters (İ); fall back to a full scan then.
  if (lower.length !== chunk.length) return scanMatches(tokenizer, chunk, query);
  const found: FoundMatches = { start: [], end: [], termIndex: [] };
  const { terms, secondMask, byFirstCode, indexOf, wordTerms } = query;
  const length = lower.length;
  let at = 0;
  while (at < length) {
    const first = lower.charCodeAt(at);
    if (!isWordCode(first)) {
      at += 1;
      continue;
    }
    let candidates: readonly number[] | undefined;
    if (first >= 128 || (((secondMask[first] as number) >>> (lower.charCodeAt(at + 1) & 31)) & 1) === 1) candidates = byFirstCode.get(first);
    // A word: letters, marks and digits, with apostrophes inside it ("alzheimer's").
    let wordEnd = at + 1;
    while (wordEnd < length) {
      const code = lower.charCodeAt(wordEnd);
      if (isWordCode(code)) wordEnd += 1;
      else if (isApostrophe(code) && wordEnd + 1 < length && isWordCode(lower.charCodeAt(wordEnd + 1))) wordEnd += 2;
      else break;
    }
    if (candidates !== undefined) {
      for (const t of candidates) {
        const { term, key } = terms[t] as SnippetTerm;
        if (key.length > wordEnd - at || !lower.startsWith(key, at)) continue;
        // The word spelled exactly as a term reuses that string as the memo key. The tokenizer
        // lowercases first, so the lowercased word normalises as the original does.
        const word = wordEnd - at === term.length && lower.startsWith(term, at) ? term : lower.slice(at, wordEnd);
        let matched = wordTerms.get(word);
        if (matched === undefined) {
          matched = indexOf.get(tokenizer.normalizeWord(word)) ?? -1;
          wordTerms.set(word, matched);
        }
        if (matched >= 0) {
          found.start.push(at);
          found.end.push(wordEnd);
          found.termIndex.push(matched);
        }
        break;
      }
    }
    at = wordEnd;
  }
  if (query.unspaced.length === 0) return found;

  for (const t of query.unspaced) {
    const { key } = terms[t] as SnippetTerm;
    for (let from = lower.indexOf(key); from >= 0; from = lower.indexOf(key, from + 1)) {
      found.start.push(from);
      found.end.push(from + key.length);
      found.termIndex.push(t);
    }
  }
  const { start, end, termIndex } = found;
  const order = start.map((_, i) => i).sort((a, b) => (start[a] as number) - (start[b] as number) || a - b);
  return { start: order.map((i) => start[i] as number), end: order.map((i) => end[i] as number), termIndex: order.map((i) => termIndex[i] as number) };
}

/** The exact, slower path: tokenize the whole chunk. */
function scanMatches(tokenizer: Tokenizer, chunk: string, { indexOf }: SnippetQuery): FoundMatches {
  const found: FoundMatches = { start: [], end: [], termIndex: [] };
  tokenizer.scan(chunk, (term, from, to) => {
    const t = indexOf.get(term);
    if (t !== undefined) {
      found.start.push(from);
      found.end.push(to);
      found.termIndex.push(t);
    }
  });
  return found;
}

/**
 * `text` with each whitespace run made one space and the ends trimmed, as `replace(/\s+/g, ' ').trim()`
 * does; most windows already are, and a scan of their character codes is cheaper than the regex.
 */
function collapseSpaces(text: string): string {
  const last = text.length - 1;
  for (let i = 0; i <= last; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 32) {
      if (i === 0 || i === last || text.charCodeAt(i + 1) === 32) return text.replace(SPACES, ' ').trim();
    } else if (code < 32 || (code >= 0xa0 && isSpace(code))) {
      return text.replace(SPACES, ' ').trim();
    }
  }
  return text;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) >= 128) return false;
  return true;
}

/** Adds `delta` to `counts[at]` and returns the new count. */
function addTo(counts: Int32Array, at: number, delta: number): number {
  const count = (counts[at] as number) + delta;
  counts[at] = count;
  return count;
}

/** Exactly the characters of the regex class `\s`. */
function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** 1 for the ASCII letters and digits. */
const ASCII_WORD = Uint8Array.from({ length: 128 }, (_, code) => (/[a-z0-9]/i.test(String.fromCharCode(code)) ? 1 : 0));

/** Word characters outside ASCII, memoised per UTF-16 code unit: 0 not yet known, 1 word, 2 not. */
const wordCodes = new Uint8Array(0x10000);

/** Whether a code unit is a letter, mark or digit of a spaced script (as the tokenizer's words are). */
function isWordCode(code: number): boolean {
  if (code < 128) return ASCII_WORD[code] === 1;
  let known = wordCodes[code] as number;
  if (known === 0) {
    const ch = String.fromCharCode(code);
    known = WORD_CHAR.test(ch) && !NOT_WORDISH.test(ch) ? 1 : 2;
    wordCodes[code] = known;
  }
  return known === 1;
}

function isApostrophe(code: number): boolean {
  return code === 39 || code === 0x2019;
}
