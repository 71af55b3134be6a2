import { pageAt, type Document, type DocumentFormat, type PageSpan } from '../corpus/document.js';
import { chunkId, parseChunkId } from './chunk-id.js';
import { InvertedIndex, type InvertedIndexParts } from './inverted-index.js';
import { LazyHit, QueryTerms, type SearchHit } from './lazy-hit.js';
import { QueryScorer } from './query-scorer.js';
import { buildSearchIndexParts, type BuildProgress } from './search-index-build.js';
import type { ResolvedSearchOptions, SearchIndexOptions } from './search-options.js';
import { createTokenizer, type Tokenizer } from './tokenizer.js';
import { checkTopK } from './top-k.js';
import { DocumentArray, indexOfSource, lowerBoundSource, type DocumentTable } from './document-table.js';

export type { SearchIndexOptions } from './search-options.js';
export type { SearchHit } from './lazy-hit.js';

export interface ChunkView {
  chunkId: string;
  source: string;
  title: string;
  heading: string;
  /** Exactly `document.text.slice(start, end)`. */
  text: string;
  start: number;
  end: number;
  prevChunkId: string | null;
  nextChunkId: string | null;
  /** The page (from 1) the chunk begins on; only for paginated formats (PDF). */
  page?: number;
  /** The page the chunk ends on, `page` or later; set with `page`. */
  lastPage?: number;
}

export interface DocumentView {
  source: string;
  format: DocumentFormat;
  title: string;
  text: string;
  bytes: number;
  chunkCount: number;
  /** Page spans of a paginated format (PDF); see `pageAt` for the page of an offset. */
  pages?: readonly PageSpan[];
  /** Front matter `url`. */
  url?: string;
}

export interface DocumentInfo {
  source: string;
  format: DocumentFormat;
  title: string;
  /** The file's size on disk. */
  bytes: number;
  /** The size of the text served for it (the extracted text of HTML, PDF, DOCX), in UTF-8 bytes. */
  textBytes: number;
  chunks: number;
  /** Front matter `url`. */
  url?: string;
}

export interface IndexStats {
  documents: number;
  chunks: number;
  /** Distinct terms in the index. */
  terms: number;
  /** Wall time the build took, in seconds. */
  buildSeconds: number;
}

export interface SearchOptions {
  /** Hits to return. Default 10; a positive integer up to MAX_TOP_K (top-k.ts). */
  topK?: number;
  /** Only chunks whose source starts with this string; a leading '/' or './' is ignored. */
  pathPrefix?: string;
}

const DEFAULT_TOP_K = 10;

/**
 * A search index taken apart into plain data: what a snapshot stores. `SearchIndex.fromParts` puts it
 * back together without chunking or tokenizing anything.
 */
export interface SearchIndexParts {
  options: ResolvedSearchOptions;
  /**
   * Sorted by source, each source once. `text` may be a getter that decodes on demand; a table
   * (a snapshot's) may parse each document only when it is read.
   */
  documents: readonly Document[] | DocumentTable;
  /** Document d owns chunks `firstChunk[d] .. firstChunk[d + 1]`; length documents + 1. */
  firstChunk: Uint32Array;
  /** Offsets of each chunk in its document's text. */
  chunkStart: Uint32Array;
  chunkEnd: Uint32Array;
  /** Page of each chunk from 1; 0 for a document without pages. */
  chunkPage: Uint32Array;
  /** Distinct heading paths; chunk c is under `headings[chunkHeading[c]]`. */
  headings: readonly string[];
  chunkHeading: Uint32Array;
  inverted: InvertedIndexParts;
  /** Wall time of the original build, in seconds. */
  buildSeconds: number;
}

/**
 * The immutable search index over a set of documents: chunked, tokenized and ranked with BM25F
 * (pseudo-relevance feedback only with `feedbackWeight` > 0; off by default). Built once, then only read; one instance can serve every session.
 */
export class SearchIndex {
  readonly stats: IndexStats;
  readonly options: ResolvedSearchOptions;
  readonly #tokenizer: Tokenizer;
  readonly #index: InvertedIndex;
  readonly #scorer: QueryScorer;
  /** Sorted by source: binary search finds a source or a path prefix. */
  readonly #documents: DocumentTable;
  /** Built on the first listing, not at boot. */
  #list: readonly DocumentInfo[] | undefined;
  readonly #firstChunk: Uint32Array;
  readonly #chunkRecord: Uint32Array;
  readonly #chunkPage: Uint32Array;
  readonly #chunkStart: Uint32Array;
  readonly #chunkEnd: Uint32Array;
  readonly #headings: readonly string[];
  readonly #chunkHeading: Uint32Array;

  private constructor(parts: SearchIndexParts, index: InvertedIndex) {
    const { firstChunk, chunkStart, chunkEnd, chunkPage, headings, chunkHeading } = parts;
    const documents = Array.isArray(parts.documents) ? new DocumentArray(parts.documents as readonly Document[]) : (parts.documents as DocumentTable);
    const chunkCount = chunkStart.length;
    if (
      firstChunk.length !== documents.length + 1 ||
      firstChunk[documents.length] !== chunkCount ||
      chunkEnd.length !== chunkCount ||
      chunkPage.length !== chunkCount ||
      chunkHeading.length !== chunkCount ||
      index.chunkCount !== chunkCount
    ) {
      throw new RangeError('search index parts have inconsistent lengths');
    }
    this.options = parts.options;
    this.#tokenizer = createTokenizer();
    const chunkRecord = new Uint32Array(chunkCount);
    for (let d = 0; d < documents.length; d += 1) {
      const first = firstChunk[d] as number;
      const next = firstChunk[d + 1] as number;
      if (next < first) throw new RangeError('search index parts have chunks out of order');
      chunkRecord.fill(d, first, next);
    }
    for (let c = 0; c < chunkCount; c += 1) {
      if ((chunkHeading[c] as number) >= headings.length) throw new RangeError('search index parts name a heading that does not exist');
    }
    this.#documents = documents;
    this.#firstChunk = firstChunk;
    this.#chunkRecord = chunkRecord;
    this.#chunkPage = chunkPage;
    this.#chunkStart = chunkStart;
    this.#chunkEnd = chunkEnd;
    this.#headings = Object.freeze([...headings]);
    this.#chunkHeading = chunkHeading;
    this.#index = index;
    this.#scorer = new QueryScorer(this.#index, parts.options);
    this.stats = Object.freeze({
      documents: documents.length,
      chunks: this.#index.chunkCount,
      terms: this.#index.termCount,
      buildSeconds: parts.buildSeconds,
    });
    Object.freeze(this);
  }

  /**
   * Chunks, tokenizes and indexes `documents`. Throws a `SearchError` on a bad option or a repeated
   * source. `onProgress`, when given, is told after each document the documents and chunks done so far.
   */
  static build(documents: readonly Document[], options?: SearchIndexOptions, onProgress?: BuildProgress): SearchIndex {
    const { parts, inverted } = buildSearchIndexParts(documents, options, onProgress);
    return new SearchIndex(parts, inverted);
  }

  /**
   * Puts an index back together from `parts()` of another (e.g. read from a snapshot). Typed arrays
   * are used as they are. `inverted`, when given, must be `InvertedIndex.fromParts(parts.inverted)`
   * (a caller that built it already). Throws a RangeError when the parts do not fit together.
   */
  static fromParts(parts: SearchIndexParts, inverted: InvertedIndex = InvertedIndex.fromParts(parts.inverted)): SearchIndex {
    return new SearchIndex(parts, inverted);
  }

  /** The index as plain data, for a snapshot; `fromParts` of it answers every query the same. */
  parts(): SearchIndexParts & { documents: readonly Document[]; inverted: ReturnType<InvertedIndex['parts']> } {
    return {
      options: this.options,
      documents: Array.from({ length: this.#documents.length }, (_, d) => this.#documents.get(d)),
      firstChunk: this.#firstChunk,
      chunkStart: this.#chunkStart,
      chunkEnd: this.#chunkEnd,
      chunkPage: this.#chunkPage,
      headings: this.#headings,
      chunkHeading: this.#chunkHeading,
      inverted: this.#index.parts(),
      buildSeconds: this.stats.buildSeconds,
    };
  }

  /**
   * The best chunks for `query`, best first. Returns [] when the query has no searchable term
   * (empty, only stop words or punctuation) or no chunk matches. Throws a `SearchError` with code
   * `invalid_argument` when `topK` is not an integer from 1 to MAX_TOP_K.
   */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const topK = options.topK ?? DEFAULT_TOP_K;
    checkTopK(topK);
    const ranked = this.rankChunks(query, topK, options.pathPrefix);
    return this.hits(query, ranked.ids, ranked.scores);
  }

  /**
   * The keyword ranking behind `search`, as chunk numbers (0 … stats.chunks - 1, in source order)
   * and scores, best first; for callers that fuse it with other rankings. `topK` is not checked.
   */
  rankChunks(query: string, topK: number, pathPrefix = ''): { ids: number[]; scores: number[] } {
    const terms = this.#tokenizer.terms(query);
    if (terms.length === 0) return { ids: [], scores: [] };
    const [from, to] = this.chunkRange(pathPrefix);
    if (from >= to) return { ids: [], scores: [] };
    return this.#scorer.rank(terms, topK, from, to);
  }

  /** True when `query` has words and each is a stop word, which keyword search ignores: it can match nothing. */
  onlyStopWords(query: string): boolean {
    return this.#tokenizer.onlyStopWords(query);
  }

  /** The BM25F score `query` gives each of `chunks` (chunk numbers), in order; 0 where no term matches. Feedback is not applied. */
  scoreChunks(query: string, chunks: readonly number[]): number[] {
    return this.#scorer.scoreChunks(this.#tokenizer.terms(query), chunks);
  }

  /** Hits for chunk numbers `ids` with the given scores, in that order; snippets centre on `query`'s words. */
  hits(query: string, ids: readonly number[], scores: readonly number[]): SearchHit[] {
    const queryTerms = new QueryTerms(this.#tokenizer.terms(query));
    const hits: SearchHit[] = [];
    for (let i = 0; i < ids.length; i += 1) {
      const chunk = ids[i] as number;
      const d = this.#chunkRecord[chunk] as number;
      const document = this.#documents.get(d);
      const start = this.#chunkStart[chunk] as number;
      const end = this.#chunkEnd[chunk] as number;
      hits.push(
        new LazyHit({
          chunkId: chunkId(document.source, chunk - (this.#firstChunk[d] as number)),
          document,
          heading: this.#headings[this.#chunkHeading[chunk] as number] as string,
          score: scores[i] as number,
          start,
          end,
          page: this.#chunkPage[chunk] as number,
          lastPage: lastPageOf(document, start, end),
          tokenizer: this.#tokenizer,
          queryTerms,
        }),
      );
    }
    return hits;
  }

  /** The chunk number of `<source>#<n>`, or undefined when there is no such chunk. */
  chunkNumber(id: string): number | undefined {
    const parsed = parseChunkId(id);
    if (parsed === undefined) return undefined;
    const at = indexOfSource(this.#documents, parsed.source);
    if (at < 0) return undefined;
    const first = this.#firstChunk[at] as number;
    return parsed.n < (this.#firstChunk[at + 1] as number) - first ? first + parsed.n : undefined;
  }

  /**
   * What a dense model reads for chunk number `chunk`: the document title, the heading path, then the
   * chunk text, so a passage that only says "it" still carries its topic.
   */
  passage(chunk: number): string {
    const document = this.#documents.get(this.#chunkRecord[chunk] as number);
    const heading = this.#headings[this.#chunkHeading[chunk] as number] as string;
    const text = document.text.slice(this.#chunkStart[chunk] as number, this.#chunkEnd[chunk] as number);
    return [document.title, heading, text].filter((part) => part !== '').join('\n\n');
  }

  /** The chunk with id `<source>#<n>`, or undefined when there is no such chunk. */
  getChunk(id: string): ChunkView | undefined {
    const chunk = this.chunkNumber(id);
    if (chunk === undefined) return undefined;
    const d = this.#chunkRecord[chunk] as number;
    const document = this.#documents.get(d);
    const n = chunk - (this.#firstChunk[d] as number);
    const chunkCount = (this.#firstChunk[d + 1] as number) - (this.#firstChunk[d] as number);
    const source = document.source;
    const start = this.#chunkStart[chunk] as number;
    const end = this.#chunkEnd[chunk] as number;
    const page = this.#chunkPage[chunk] as number;
    return {
      chunkId: chunkId(source, n),
      source,
      title: document.title,
      heading: this.#headings[this.#chunkHeading[chunk] as number] as string,
      text: document.text.slice(start, end),
      start,
      end,
      prevChunkId: n > 0 ? chunkId(source, n - 1) : null,
      nextChunkId: n + 1 < chunkCount ? chunkId(source, n + 1) : null,
      ...(page > 0 ? { page, lastPage: Math.max(page, lastPageOf(document, start, end)) } : {}),
    };
  }

  /** The whole document at `source`, or undefined when it is not in the index. */
  getDocument(source: string): DocumentView | undefined {
    const at = indexOfSource(this.#documents, source);
    if (at < 0) return undefined;
    const document = this.#documents.get(at);
    const chunkCount = (this.#firstChunk[at + 1] as number) - (this.#firstChunk[at] as number);
    return {
      source: document.source,
      format: document.format,
      title: document.title,
      text: document.text,
      bytes: document.bytes,
      chunkCount,
      ...(document.pages === undefined ? {} : { pages: document.pages }),
      ...(document.url === undefined ? {} : { url: document.url }),
    };
  }

  /** The front matter `url` of the document at `source`, read without its text. */
  documentUrl(source: string): string | undefined {
    const at = indexOfSource(this.#documents, source);
    return at < 0 ? undefined : this.#documents.get(at).url;
  }

  /** Every document, sorted by source. */
  listDocuments(): readonly DocumentInfo[] {
    this.#list ??= Object.freeze(
      Array.from({ length: this.#documents.length }, (_, d) => {
        const { source, format, title, bytes, url } = this.#documents.get(d);
        const chunks = (this.#firstChunk[d + 1] as number) - (this.#firstChunk[d] as number);
        return Object.freeze({ source, format, title, bytes, textBytes: this.#documents.textBytes(d), chunks, ...(url === undefined ? {} : { url }) });
      }),
    );
    return this.#list;
  }

  /** The chunk numbers `[from, to)` of documents whose source starts with `prefix`; sources are sorted, so they are contiguous. */
  chunkRange(rawPrefix: string): [number, number] {
    const prefix = normalizePathPrefix(rawPrefix);
    if (prefix === '') return [0, this.#chunkStart.length];
    const documents = this.#documents;
    const first = lowerBoundSource(documents, prefix);
    let last = first;
    let hi = documents.length;
    while (last < hi) {
      const mid = (last + hi) >> 1;
      if (documents.source(mid).startsWith(prefix)) last = mid + 1;
      else hi = mid;
    }
    if (first === last) return [0, 0];
    return [this.#firstChunk[first] as number, this.#firstChunk[last] as number];
  }
}

/**
 * A source path prefix as callers write it, in the form sources have: leading "./" and "/" removed
 * ("./guides/" and "/guides/" → "guides/"). The one place a path_prefix is normalised, for search and
 * listing alike.
 */
export function normalizePathPrefix(prefix: string): string {
  return prefix.replace(/^(?:\.?\/)+/, '');
}

/** The page (from 1) holding the last character of `[start, end)`; 0 for a document without pages. */
function lastPageOf(document: Document, start: number, end: number): number {
  return document.pages === undefined ? 0 : (pageAt(document.pages, Math.max(start, end - 1)) ?? 0);
}
