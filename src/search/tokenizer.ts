import { stemmer } from 'stemmer';
import { STOP_WORDS } from './stop-words.js';
import { UNSPACED, WORD_LETTERS } from './word-characters.js';
import type { TermIdList } from './term-id-list.js';
import { ASCII_HASH_SEED, asciiWordHash, type Vocabulary } from './vocabulary.js';

/**
 * Turns text into index terms. One tokenizer serves documents and queries alike, so a query term
 * matches exactly the document words that normalise to the same term.
 */
export interface Tokenizer {
  /** The terms of `text`, in order, duplicates kept. */
  terms(text: string): string[];
  /** Calls `onTerm` for every term of `text` with the span `[start, end)` it came from. */
  scan(text: string, onTerm: (term: string, start: number, end: number) => void): void;
  /** The term for one word (a run of letters, marks and digits), or '' when the word is a stop word. */
  normalizeWord(word: string): string;
  /** True when `text` has words and every one is a stop word: the terms of it are none, though it is not blank. */
  onlyStopWords(text: string): boolean;
  /**
   * Appends to `into` the terms of `text.slice(start, end)` as `vocabulary` numbers them, in order,
   * duplicates kept: `terms` for a build. `start` and `end` default to the whole text.
   */
  ids(text: string, vocabulary: Vocabulary, into: TermIdList, start?: number, end?: number): void;
}

/**
 * One match per token: an emoji, a run of an unspaced script, or a word of letters, marks and
 * digits (marks included so Devanagari or Arabic words with vowel signs stay whole). Apostrophes
 * inside a word keep it together ("don't", "Alzheimer's").
 */
const TOKEN = new RegExp(
  String.raw`(\p{Extended_Pictographic})|([${UNSPACED}][${UNSPACED}\p{M}]*)|([[${WORD_LETTERS}]--[${UNSPACED}]]+(?:['’][[${WORD_LETTERS}]--[${UNSPACED}]]+)*)`,
  'gv',
);

const ASCII_LOWER = /^[a-z]+$/;
const NEEDS_FOLDING = /[^\p{ASCII}]/u;
const MARKS = /\p{M}/gu;
const LATIN_WITH_MARKS = /^[\p{Script=Latin}\p{M}\p{N}]+$/u;
const POSSESSIVE = /['’]s$/;
const APOSTROPHES = /['’]/g;
const APOSTROPHE = 0x27;

/** Longest token kept, in UTF-16 code units; longer runs (hashes, base64) are not words anyone types. */
const MAX_TOKEN_LENGTH = 64;

/** Bound on the stem memo so a long-running server answering arbitrary queries stays bounded. */
const STEM_CACHE_LIMIT = 100_000;

/**
 * Creates a tokenizer: NFKC and lowercase, Latin diacritics folded ("café" → "cafe"), possessive
 * "'s" dropped, stop words removed, English words stemmed with the Porter stemmer (`stemmer`),
 * unspaced scripts as character bigrams, each emoji as a term of its own.
 */
export function createTokenizer(): Tokenizer {
  const stems = new Map<string, string>();

  /** The term for one word match, or '' when the word is dropped. */
  function normalizeWord(raw: string): string {
    if (raw.length > MAX_TOKEN_LENGTH) return '';
    const cached = stems.get(raw);
    if (cached !== undefined) return cached;
    let word = raw.toLowerCase();
    if (NEEDS_FOLDING.test(word)) {
      word = word.normalize('NFKC');
      if (LATIN_WITH_MARKS.test(word)) word = word.normalize('NFD').replace(MARKS, '');
    }
    word = word.replace(POSSESSIVE, '').replace(APOSTROPHES, '');
    let term = '';
    if (word !== '' && !STOP_WORDS.has(word)) term = ASCII_LOWER.test(word) ? stemmer(word) : word;
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stems.set(raw, term);
    return term;
  }

  function scan(text: string, onTerm: TermSink): void {
    eachToken(text, onTerm, (raw, start) => {
      const term = normalizeWord(raw);
      if (term !== '') onTerm(term, start, start + raw.length);
    });
  }

  function ids(text: string, vocabulary: Vocabulary, out: TermIdList, start = 0, end = text.length): void {
    // The regex runs on the slice, as `terms` would see it; made only when a token needs it.
    let span: string | undefined;
    let onTerm: TermSink | undefined;
    let onWord: ((raw: string) => void) | undefined;
    let at = start;
    while (at < end) {
      const code = text.charCodeAt(at);
      if (code < 0x80) {
        if (!isAsciiWordCode(code)) {
          at += 1;
          continue;
        }
        // Fast path, the same tokens as TOKEN: a run of ASCII letters and digits followed by ASCII
        // other than an apostrophe is a whole word. Anything else may extend it: the regex decides.
        let hash = ASCII_HASH_SEED;
        let wordEnd = at;
        for (; wordEnd < end; wordEnd += 1) {
          const next = text.charCodeAt(wordEnd);
          if (!isAsciiWordCode(next)) break;
          hash = asciiWordHash(hash, next);
        }
        const after = wordEnd < end ? text.charCodeAt(wordEnd) : 0;
        if (after < 0x80 && after !== APOSTROPHE) {
          const id = vocabulary.asciiWordId(text, at, wordEnd, hash, normalizeWord);
          if (id >= 0) out.push(id);
          at = wordEnd;
          continue;
        }
      }
      span ??= start === 0 && end === text.length ? text : text.slice(start, end);
      onTerm ??= (term) => {
        out.push(vocabulary.termId(term));
      };
      // A build meets each distinct word many times: the vocabulary remembers its term id.
      onWord ??= (raw) => {
        const id = vocabulary.wordId(raw, normalizeWord);
        if (id >= 0) out.push(id);
      };
      const tokenEnd = nextToken(span, at - start, onTerm, onWord);
      if (tokenEnd < 0) break;
      at = start + tokenEnd;
    }
  }

  function onlyStopWords(text: string): boolean {
    let words = 0;
    let kept = 0;
    eachToken(
      text,
      () => (kept += 1),
      (raw) => {
        words += 1;
        if (raw.length > MAX_TOKEN_LENGTH || normalizeWord(raw) !== '') kept += 1;
      },
    );
    return words > 0 && kept === 0;
  }

  function terms(text: string): string[] {
    const out: string[] = [];
    scan(text, (term) => {
      out.push(term);
    });
    return out;
  }

  return Object.freeze({ terms, scan, normalizeWord, onlyStopWords, ids });
}

type TermSink = (term: string, start: number, end: number) => void;

/**
 * The one token loop: an emoji is a term as it stands, a run of an unspaced script becomes its
 * bigrams, and each word goes to `onWord` with its offset, for the caller to normalise (or look up).
 */
function eachToken(text: string, onTerm: TermSink, onWord: (raw: string, start: number) => void): void {
  for (let at = 0; at >= 0; ) at = nextToken(text, at, onTerm, onWord);
}

/** Handles the first token at or after `from` as `eachToken` does; returns where it ends, or -1 when there is none. */
function nextToken(text: string, from: number, onTerm: TermSink, onWord: (raw: string, start: number) => void): number {
  TOKEN.lastIndex = from;
  const m = TOKEN.exec(text);
  if (m === null) return -1;
  const raw = m[0];
  if (m[1] !== undefined) onTerm(raw, m.index, m.index + raw.length);
  else if (m[2] !== undefined) emitBigrams(raw, m.index, onTerm);
  else onWord(raw, m.index);
  return m.index + raw.length;
}

/** An ASCII letter or digit: the only ASCII characters a token holds, apostrophes apart. */
function isAsciiWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/** Splits a run of an unspaced script into characters (code points, marks attached) and emits bigrams. */
function emitBigrams(run: string, offset: number, onTerm: TermSink): void {
  const starts: number[] = [];
  const chars: string[] = [];
  let i = 0;
  while (i < run.length) {
    const begin = i;
    i += (run.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    // Combining marks (Thai vowel signs, tone marks) stay with the character before them.
    while (i < run.length && /\p{M}/u.test(run[i] ?? '')) i += 1;
    starts.push(begin);
    chars.push(run.slice(begin, i).normalize('NFKC').toLowerCase());
  }
  if (chars.length === 1) {
    onTerm(chars[0] ?? '', offset, offset + run.length);
    return;
  }
  for (let c = 0; c + 1 < chars.length; c += 1) {
    const end = c + 2 < starts.length ? (starts[c + 2] ?? run.length) : run.length;
    onTerm(`${chars[c] ?? ''}${chars[c + 1] ?? ''}`, offset + (starts[c] ?? 0), offset + end);
  }
}
