// The hits a search returns: plain data fields set at once, the snippet computed only when read.
import type { Document } from '../corpus/document.js';
import { makeSnippet, SnippetQuery } from './snippet.js';
import type { Tokenizer } from './tokenizer.js';

/** One ranked chunk. */
export interface SearchHit {
  /** `<source>#<n>`, n counted from 0 in document order. */
  chunkId: string;
  source: string;
  title: string;
  /** Heading path joined with ' › ', e.g. 'Deploy › Fly.io'; '' when the chunk is under no heading. */
  heading: string;
  /** BM25F score (see bm25.ts and query-scorer.ts; pseudo-relevance feedback is off unless feedbackWeight > 0); higher is better. */
  score: number;
  /**
   * At most ~300 characters of the chunk around its densest cluster of query terms. Computed on
   * first read and then kept (an own enumerable getter), so a caller that shows only some hits pays
   * only for those; a spread copy and JSON.stringify read it.
   */
  snippet: string;
  /** Offsets of the chunk in the document text. */
  start: number;
  end: number;
  /** The page (from 1) the chunk begins on; only for paginated formats (PDF). */
  page?: number;
  /** The page the chunk ends on, `page` or later; set with `page`. */
  lastPage?: number;
}

/** The query's terms, compiled for snippets when a snippet is first read and shared by all hits. */
export class QueryTerms {
  #snippetQuery: SnippetQuery | undefined;

  constructor(readonly terms: readonly string[]) {}

  snippetQuery(): SnippetQuery {
    this.#snippetQuery ??= new SnippetQuery(this.terms);
    return this.#snippetQuery;
  }
}

/** What a hit is made of: the ranked chunk, its document, and what its snippet is computed with. */
export interface LazyHitParts {
  chunkId: string;
  document: Document;
  heading: string;
  score: number;
  start: number;
  end: number;
  /** The page (from 1) the chunk begins on; 0 for a document without pages. */
  page: number;
  lastPage: number;
  tokenizer: Tokenizer;
  queryTerms: QueryTerms;
}

/**
 * A search hit. Its snippet is an own enumerable getter that computes the snippet on first read and
 * keeps it: a caller that shows five of twenty hits pays for five, and a spread copy (`{ ...hit }`)
 * keeps it. Only the hits asked for are built, so the getter's slower construction costs little.
 */
export class LazyHit implements SearchHit {
  readonly chunkId: string;
  readonly source: string;
  readonly title: string;
  readonly heading: string;
  readonly score: number;
  readonly start: number;
  readonly end: number;
  declare readonly page?: number;
  declare readonly lastPage?: number;
  declare readonly snippet: string;
  /** Read only when the snippet is: a document restored from a snapshot decodes its text on demand. */
  readonly #document: Document;
  readonly #tokenizer: Tokenizer;
  readonly #queryTerms: QueryTerms;
  #snippet: string | undefined;

  constructor({ chunkId, document, heading, score, start, end, page, lastPage, tokenizer, queryTerms }: LazyHitParts) {
    this.chunkId = chunkId;
    this.source = document.source;
    this.title = document.title;
    this.heading = heading;
    this.score = score;
    this.start = start;
    this.end = end;
    // Set only for paginated documents, so a Markdown hit has no `page` key at all.
    if (page > 0) {
      (this as { page?: number }).page = page;
      (this as { lastPage?: number }).lastPage = Math.max(page, lastPage);
    }
    this.#document = document;
    this.#tokenizer = tokenizer;
    this.#queryTerms = queryTerms;
    Object.defineProperty(this, 'snippet', { enumerable: true, get: () => this.#computeSnippet() });
  }

  #computeSnippet(): string {
    this.#snippet ??= makeSnippet(this.#tokenizer, this.#document.text, this.start, this.end, this.#queryTerms.snippetQuery());
    return this.#snippet;
  }

  toJSON(): SearchHit {
    const { chunkId, source, title, heading, score, snippet, start, end, page, lastPage } = this;
    return { chunkId, source, title, heading, score, snippet, start, end, ...(page === undefined ? {} : { page, lastPage }) };
  }
}
