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
   * first read and then kept (a getter), so a caller that shows only some hits pays only for those.
   * JSON.stringify includes it; a spread copy does not, so read it explicitly.
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
 * A search hit. Its snippet is a getter on the prototype that computes the snippet on first read and
 * keeps it: ranking stays cheap, and a caller that shows five of twenty hits pays for five. A
 * getter in an object literal would be an own property but makes V8 build every hit on a slow
 * path (about 20× the cost), so `toJSON` puts the snippet back into serialised hits. Spreading a
 * hit (`{ ...hit }`) copies only the data fields: read `hit.snippet` explicitly.
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
  }

  get snippet(): string {
    this.#snippet ??= makeSnippet(this.#tokenizer, this.#document.text, this.start, this.end, this.#queryTerms.snippetQuery());
    return this.#snippet;
  }

  toJSON(): SearchHit {
    const { chunkId, source, title, heading, score, snippet, start, end, page, lastPage } = this;
    return { chunkId, source, title, heading, score, snippet, start, end, ...(page === undefined ? {} : { page, lastPage }) };
  }
}
