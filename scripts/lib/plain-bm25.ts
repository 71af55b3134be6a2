// A reference BM25 ranker for the eval, written apart from the engine so that each choice the engine
// makes (chunking, fields, query-term saturation, tokenizer, stop list, k1 and b) can be swapped for
// a plain one, one at a time. With every option set to the engine's choice it ranks as
// `SearchIndex` does; with every option plain it is the textbook system: lowercased runs of letters
// and digits, a standard stop list, the Porter stemmer, fixed windows of N words, one field, each
// query word counted every time it occurs, and a document ranked by its best window.
import { stemmer } from 'stemmer';
import type { Document } from '../../src/corpus/document.js';
import { combinedTf, idf, queryTermWeight, saturate, type Bm25Params } from '../../src/search/bm25.js';
import { chunkText } from '../../src/search/chunker.js';
import { STOP_WORDS } from '../../src/search/stop-words.js';
import { createTokenizer } from '../../src/search/tokenizer.js';

/**
 * Lucene's English stop set (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`), the list a plain Lucene or
 * Anserini BM25 removes: 33 words, negations ("no", "not") among them.
 */
export const LUCENE_STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not',
  'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was',
  'will', 'with',
]);

export interface ReferenceOptions {
  /**
   * 'engine': the server's tokenizer as it is (its stop list, Porter on ASCII words, folding,
   * apostrophes kept inside a word). 'plain': lowercased runs of letters and digits, `stopWords`
   * removed, every token through the Porter stemmer.
   */
  tokenizer: 'engine' | 'plain';
  /** Stop list of the plain tokenizer; ignored by the engine's, which has its own. */
  stopWords: 'engine' | 'lucene' | 'none';
  /**
   * 'engine': the server's chunker (sections, evenly sized windows, cuts moved to paragraph breaks).
   * 'fixed': windows of exactly `chunkWords` words from the start of the body, the last one shorter,
   * each starting `chunkWords - overlapWords` words after the one before.
   */
  chunking: 'engine' | 'fixed';
  chunkWords: number;
  overlapWords: number;
  /** The title as a field of every chunk (weight 1, not length-normalised), as the engine does; else only where the text holds it. */
  titleField: boolean;
  k1: number;
  b: number;
  /** Query-side saturation k3 as in bm25.ts; `Infinity` counts a repeated query term linearly. */
  queryK3: number;
}

/** The engine's shipped choices, in this ranker's terms. */
export const ENGINE_REFERENCE: Readonly<ReferenceOptions> = Object.freeze({
  tokenizer: 'engine',
  stopWords: 'engine',
  chunking: 'engine',
  chunkWords: 180,
  overlapWords: 40,
  titleField: true,
  k1: 1.2,
  b: 0.75,
  queryK3: 1.2,
});

/** Plain BM25 + Porter over 180-word windows, Lucene's stop list; k1 and b are Anserini's. */
export const PLAIN_REFERENCE: Readonly<ReferenceOptions> = Object.freeze({
  tokenizer: 'plain',
  stopWords: 'lucene',
  chunking: 'fixed',
  chunkWords: 180,
  overlapWords: 0,
  titleField: false,
  k1: 0.9,
  b: 0.4,
  queryK3: Infinity,
});

const PLAIN_TOKEN = /[\p{L}\p{N}]+/gu;
/** A whitespace-separated word counts towards a window only when it holds a letter or digit (not a lone "#"). */
const WORD = /\S+/g;
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;

/** The plain tokenizer: lowercased runs of letters and digits, stop words out, Porter on the rest. */
export function plainTerms(text: string, stopWords: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(PLAIN_TOKEN)) {
    const token = match[0];
    if (!stopWords.has(token)) out.push(stemmer(token));
  }
  return out;
}

/** Fixed windows of `chunkWords` words over `text`, as [start, end) offsets. */
export function fixedWindows(text: string, chunkWords: number, overlapWords: number): Array<[number, number]> {
  const words: Array<[number, number]> = [];
  for (const m of text.matchAll(WORD)) if (HAS_WORD_CHARACTER.test(m[0])) words.push([m.index, m.index + m[0].length]);
  const windows: Array<[number, number]> = [];
  const stride = chunkWords - overlapWords;
  for (let from = 0; from < words.length; from += stride) {
    const to = Math.min(from + chunkWords, words.length);
    windows.push([(words[from] as [number, number])[0], (words[to - 1] as [number, number])[1]]);
    if (to === words.length) break;
  }
  return windows;
}

/** Chunks, indexes and ranks `documents` (by source) with BM25 over every chunk, brute force. */
export class ReferenceRanker {
  readonly chunkCount: number;
  readonly #terms: (text: string) => string[];
  readonly #params: Bm25Params;
  readonly #postings = new Map<string, { chunks: number[]; weights: number[] }>();
  readonly #chunkSource: string[] = [];
  readonly #scores: Float64Array;

  constructor(documents: readonly Document[], options: ReferenceOptions) {
    const sorted = [...documents].sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    if (options.tokenizer === 'engine') {
      const tokenizer = createTokenizer();
      this.#terms = (text) => tokenizer.terms(text);
    } else {
      const stop = options.stopWords === 'engine' ? STOP_WORDS : options.stopWords === 'lucene' ? LUCENE_STOP_WORDS : new Set<string>();
      this.#terms = (text) => plainTerms(text, stop);
    }
    this.#params = { k1: options.k1, b: options.b, queryK3: options.queryK3, titleWeight: options.titleField ? 1 : 0, headingWeight: 0 };

    const chunks: Array<{ body: string[]; title: readonly string[] }> = [];
    for (const document of sorted) {
      const title = options.titleField ? this.#terms(document.title) : [];
      const spans =
        options.chunking === 'engine'
          ? chunkText(document.text, document.bodyStart, document.sections, options).map((s): [number, number] => [s.start, s.end])
          : fixedWindows(document.text.slice(document.bodyStart), options.chunkWords, options.overlapWords).map(
              ([s, e]): [number, number] => [s + document.bodyStart, e + document.bodyStart],
            );
      for (const [start, end] of spans) {
        chunks.push({ body: this.#terms(document.text.slice(start, end)), title });
        this.#chunkSource.push(document.source);
      }
    }
    this.chunkCount = chunks.length;
    this.#scores = new Float64Array(chunks.length);
    const averageBody = chunks.reduce((sum, c) => sum + c.body.length, 0) / Math.max(1, chunks.length);
    chunks.forEach((chunk, c) => {
      const counts = new Map<string, [number, number]>();
      for (const term of chunk.body) (counts.get(term) ?? counts.set(term, [0, 0]).get(term)!)[0] += 1;
      for (const term of chunk.title) (counts.get(term) ?? counts.set(term, [0, 0]).get(term)!)[1] += 1;
      for (const [term, [tfBody, tfTitle]] of counts) {
        // Stored as float32, as the engine stores its postings, so equal scores tie the same way.
        const weight = Math.fround(saturate(combinedTf(this.#params, tfBody, tfTitle, 0, chunk.body.length, averageBody), this.#params.k1));
        if (weight === 0) continue;
        const list = this.#postings.get(term) ?? this.#postings.set(term, { chunks: [], weights: [] }).get(term)!;
        list.chunks.push(c);
        list.weights.push(weight);
      }
    });
  }

  /** Sources, best first, each once at the score of its best chunk (ties: the earlier chunk); at most `limit`. */
  rank(query: string, limit: number): string[] {
    const qtf = new Map<string, number>();
    for (const term of this.#terms(query)) if (this.#postings.has(term)) qtf.set(term, (qtf.get(term) ?? 0) + 1);
    const scores = this.#scores;
    scores.fill(0);
    for (const [term, count] of qtf) {
      const { chunks, weights } = this.#postings.get(term)!;
      const qw = Number.isFinite(this.#params.queryK3) ? queryTermWeight(count, this.#params.queryK3) : count;
      const weight = qw * idf(this.chunkCount, chunks.length);
      for (let i = 0; i < chunks.length; i += 1) scores[chunks[i]!] = scores[chunks[i]!]! + weight * weights[i]!;
    }
    const best = new Map<string, { score: number; chunk: number }>();
    for (let c = 0; c < scores.length; c += 1) {
      const score = scores[c]!;
      if (score <= 0) continue;
      const source = this.#chunkSource[c]!;
      const seen = best.get(source);
      if (seen === undefined || score > seen.score) best.set(source, { score, chunk: c });
    }
    return [...best.entries()]
      .sort((a, b) => b[1].score - a[1].score || a[1].chunk - b[1].chunk)
      .slice(0, limit)
      .map(([source]) => source);
  }
}
