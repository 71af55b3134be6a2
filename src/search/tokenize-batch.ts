// The part of a build that reads text: chunk a run of documents, tokenize every chunk's fields and
// count each chunk's distinct terms. Everything is numbered within the run (its own vocabulary and
// headings, in first-seen order) and returned as plain data and typed arrays, so a run can be
// tokenized in a worker thread and its batch merged afterwards (index-assembler.ts): the merge
// renumbers by first use, which gives the same index whichever way the documents were cut into runs.
import { pageAt, type Document } from '../corpus/document.js';
import { chunkText, type ChunkerOptions } from './chunker.js';
import { TermIdList } from './term-id-list.js';
import { createTokenizer, type Tokenizer } from './tokenizer.js';
import { Vocabulary } from './vocabulary.js';

/** What tokenizing reads of a document. */
export type BatchDocument = Pick<Document, 'title' | 'text' | 'bodyStart' | 'sections' | 'pages'>;

/**
 * A run of documents, chunked and counted. Chunk c (counted within the batch) holds the distinct
 * terms `entryTerm[entryStart[c] .. entryStart[c + 1]]`, in the order the chunk first uses them
 * (body, then title, then heading), each with its count in the body, the title and the heading.
 */
export interface TokenizedBatch {
  /** The batch's vocabulary: term of each batch-local term id. */
  terms: string[];
  /** Distinct heading paths joined with ' › ', in first-seen order; `chunkHeading` indexes it. */
  headings: string[];
  /** Chunks of each document. */
  chunkCounts: Uint32Array;
  chunkStart: Uint32Array;
  chunkEnd: Uint32Array;
  /** Page of each chunk from 1; 0 for a document without pages. */
  chunkPage: Uint32Array;
  chunkHeading: Uint32Array;
  /** Terms in each chunk's body, duplicates counted. */
  bodyLength: Uint32Array;
  /** Length chunks + 1. */
  entryStart: Uint32Array;
  entryTerm: Uint32Array;
  entryBody: Uint32Array;
  entryTitle: Uint32Array;
  entryHeading: Uint32Array;
}

/** One tokenizer per thread: its stem memo serves every batch the thread tokenizes. */
let sharedTokenizer: Tokenizer | undefined;

/**
 * Chunks, tokenizes and counts `documents` (in the order given) with the chunker's `options`.
 * `onProgress`, when given, is told after each document the documents and chunks done so far.
 */
export function tokenizeBatch(
  documents: readonly BatchDocument[],
  options: ChunkerOptions,
  onProgress?: (documents: number, chunks: number) => void,
): TokenizedBatch {
  const tokenizer = (sharedTokenizer ??= createTokenizer());
  const vocabulary = new Vocabulary();
  const headingIds = new Map<string, number>();
  const chunkCounts = new Uint32Array(documents.length);
  const chunks = { start: new TermIdList(), end: new TermIdList(), page: new TermIdList(), heading: new TermIdList(), bodyLength: new TermIdList() };
  const entryStart = new TermIdList();
  // About one distinct term per eight characters of English prose: room for most batches at once.
  let chars = 0;
  for (const document of documents) chars += document.text.length;
  const entries = new EntryCounts(Math.max(1 << 12, chars >>> 3));
  const counter = new ChunkCounter();
  const title = new TermIdList();
  const heading = new TermIdList();
  const body = new TermIdList();
  documents.forEach((document, d) => {
    title.clear();
    tokenizer.ids(document.title, vocabulary, title);
    const titleKey = document.title.trim().toLowerCase();
    const spans = chunkText(document.text, document.bodyStart, document.sections, options);
    chunkCounts[d] = spans.length;
    let lastHeadings: readonly string[] | undefined;
    let headingId = 0;
    for (const span of spans) {
      if (span.headings !== lastHeadings) {
        lastHeadings = span.headings;
        const path = span.headings.join(' › ');
        let id = headingIds.get(path);
        if (id === undefined) headingIds.set(path, (id = headingIds.size));
        headingId = id;
        // The top heading usually repeats the title, which is already a field of its own.
        const own = span.headings[0]?.trim().toLowerCase() === titleKey ? span.headings.slice(1) : span.headings;
        heading.clear();
        tokenizer.ids(own.join(' '), vocabulary, heading);
      }
      body.clear();
      tokenizer.ids(document.text, vocabulary, body, span.start, span.end);
      chunks.start.push(span.start);
      chunks.end.push(span.end);
      chunks.page.push(pageAt(document.pages, span.start) ?? 0);
      chunks.heading.push(headingId);
      chunks.bodyLength.push(body.length);
      entryStart.push(entries.length);
      counter.count(body.view(), title.view(), heading.view(), vocabulary.terms.length, entries);
    }
    onProgress?.(d + 1, chunks.start.length);
  });
  entryStart.push(entries.length);
  const counted = entries.trimmed();
  return {
    terms: vocabulary.terms,
    headings: [...headingIds.keys()],
    chunkCounts,
    chunkStart: chunks.start.copy(),
    chunkEnd: chunks.end.copy(),
    chunkPage: chunks.page.copy(),
    chunkHeading: chunks.heading.copy(),
    bodyLength: chunks.bodyLength.copy(),
    entryStart: entryStart.copy(),
    entryTerm: counted.term,
    entryBody: counted.body,
    entryTitle: counted.title,
    entryHeading: counted.heading,
  };
}

/** Counts one chunk's fields into distinct entries; per term, the slot of its entry in the current chunk. */
class ChunkCounter {
  #slotOf = new Int32Array(1 << 12);
  #seenIn = new Int32Array(1 << 12).fill(-1);
  #chunk = 0;

  count(body: Uint32Array, title: Uint32Array, heading: Uint32Array, vocabularySize: number, into: EntryCounts): void {
    if (vocabularySize > this.#seenIn.length) this.#grow(vocabularySize);
    into.reserve(body.length + title.length + heading.length);
    const chunk = (this.#chunk += 1);
    this.#field(body, into.body, chunk, into);
    this.#field(title, into.title, chunk, into);
    this.#field(heading, into.heading, chunk, into);
  }

  #field(ids: Uint32Array, counts: Uint32Array, chunk: number, into: EntryCounts): void {
    const seenIn = this.#seenIn;
    const slotOf = this.#slotOf;
    for (let i = 0; i < ids.length; i += 1) {
      const term = ids[i] as number;
      let slot: number;
      if (seenIn[term] === chunk) {
        slot = slotOf[term] as number;
      } else {
        seenIn[term] = chunk;
        slot = into.add(term);
        slotOf[term] = slot;
      }
      counts[slot] = (counts[slot] as number) + 1;
    }
  }

  #grow(needed: number): void {
    const size = Math.max(needed, this.#seenIn.length * 2);
    const seenIn = new Int32Array(size).fill(-1);
    seenIn.set(this.#seenIn);
    const slotOf = new Int32Array(size);
    slotOf.set(this.#slotOf);
    this.#seenIn = seenIn;
    this.#slotOf = slotOf;
  }
}

/** The entries of a batch: term and its count in each field, growing by doubling. Fresh room is zero. */
class EntryCounts {
  length = 0;
  term: Uint32Array;
  body: Uint32Array;
  title: Uint32Array;
  heading: Uint32Array;

  constructor(capacity: number) {
    this.term = new Uint32Array(capacity);
    this.body = new Uint32Array(capacity);
    this.title = new Uint32Array(capacity);
    this.heading = new Uint32Array(capacity);
  }

  /** Makes room for `more` entries, so the arrays do not move while a chunk is counted. */
  reserve(more: number): void {
    if (this.length + more <= this.term.length) return;
    const capacity = Math.max(this.length + more, this.term.length * 2);
    const grown = (from: Uint32Array): Uint32Array => {
      const to = new Uint32Array(capacity);
      to.set(from.subarray(0, this.length));
      return to;
    };
    this.term = grown(this.term);
    this.body = grown(this.body);
    this.title = grown(this.title);
    this.heading = grown(this.heading);
  }

  add(term: number): number {
    const slot = this.length;
    this.term[slot] = term;
    this.length += 1;
    return slot;
  }

  /**
   * Exactly `length` entries each, as views: a copy would touch every page of a second set of
   * arrays (200 MB at 100k documents) to save the spare room the doubling left behind.
   */
  trimmed(): { term: Uint32Array; body: Uint32Array; title: Uint32Array; heading: Uint32Array } {
    return {
      term: this.term.subarray(0, this.length),
      body: this.body.subarray(0, this.length),
      title: this.title.subarray(0, this.length),
      heading: this.heading.subarray(0, this.length),
    };
  }
}
