// The documents of an index, sorted by source, read one at a time. A built index holds them as
// objects; an index restored from a snapshot holds them as bytes (snapshot sections) and parses a
// document's record only when a query, a chunk or a listing reads it, so a boot creates no object
// per document. Sources are kept apart from the records, as one UTF-8 table with offsets, so finding
// a document by source (chunk ids, path prefixes) parses no record.
import type { Document } from '../corpus/document.js';

export interface DocumentTable {
  readonly length: number;
  /** Document `d` (0 ≤ d < length), its `text` possibly a getter that decodes on demand. */
  get(d: number): Document;
  /** The source of document `d`, without reading the rest of it. */
  source(d: number): string;
  /** The length of document `d`'s text in UTF-8 bytes, without decoding it. */
  textBytes(d: number): number;
}

/** Documents already in memory, e.g. those a build read. */
export class DocumentArray implements DocumentTable {
  constructor(readonly documents: readonly Document[]) {}

  get length(): number {
    return this.documents.length;
  }

  get(d: number): Document {
    return this.documents[d] as Document;
  }

  source(d: number): string {
    return (this.documents[d] as Document).source;
  }

  textBytes(d: number): number {
    return Buffer.byteLength((this.documents[d] as Document).text);
  }
}

/** Byte ranges of a blob: item i is `blob[offsets[i], offsets[i + 1])`. */
export interface ByteTable {
  blob: Uint8Array;
  offsets: Float64Array;
}

/**
 * Bytes `[start, end)` of a blob that need not be in memory (a snapshot section left in its file).
 * Synchronous, as the hit path is; it throws when the bytes cannot be read intact. The bytes may be
 * a view of a buffer the next read overwrites: decode them before reading again.
 */
export type ReadRange = (start: number, end: number) => Uint8Array;

/** A blob read through `read`, `length` bytes long, item i at `[offsets[i], offsets[i + 1])`. */
export interface RangeTable {
  read: ReadRange;
  length: number;
  offsets: Float64Array;
}

/**
 * Documents as bytes: `records` holds each document minus its text as JSON (read on demand, so it may
 * stay in a file), `sources` each source as UTF-8 (in memory: a lookup by source reads many), `text(d)`
 * decodes a text. A few recently parsed records are kept, because a search reads
 * the same few documents several times (ranking, snippets, get_chunk next).
 */
export class DocumentBytes implements DocumentTable {
  readonly length: number;
  readonly #records: RangeTable;
  readonly #sources: ByteTable;
  readonly #text: (d: number) => string;
  readonly #decoder = new TextDecoder();
  readonly #recent = new Map<number, Document>();

  readonly #textBytes: (d: number) => number;

  constructor(records: RangeTable, sources: ByteTable, text: (d: number) => string, textBytes: (d: number) => number) {
    this.length = records.offsets.length - 1;
    if (this.length < 0 || sources.offsets.length !== records.offsets.length) throw new RangeError('document records and sources do not line up');
    if (records.offsets[this.length] !== records.length || sources.offsets[this.length] !== sources.blob.length) {
      throw new RangeError('document tables do not end where their bytes do');
    }
    this.#records = records;
    this.#sources = sources;
    this.#text = text;
    this.#textBytes = textBytes;
  }

  textBytes(d: number): number {
    return this.#textBytes(d);
  }

  source(d: number): string {
    return this.#decoder.decode(slice(this.#sources, d));
  }

  get(d: number): Document {
    const cached = this.#recent.get(d);
    if (cached !== undefined) return cached;
    const { read, offsets } = this.#records;
    const record = JSON.parse(this.#decoder.decode(read(offsets[d] as number, offsets[d + 1] as number))) as Omit<Document, 'text'>;
    const text = this.#text;
    const document = Object.defineProperty(record, 'text', { get: () => text(d), enumerable: true, configurable: false }) as Document;
    if (this.#recent.size >= RECENT_RECORDS) this.#recent.delete(this.#recent.keys().next().value as number);
    this.#recent.set(d, document);
    return document;
  }
}

/** Parsed records kept: about the documents of one page of results and the next call's. */
const RECENT_RECORDS = 64;

function slice({ blob, offsets }: ByteTable, i: number): Uint8Array {
  return blob.subarray(offsets[i] as number, offsets[i + 1] as number);
}

/** The first document whose source is not below `key` (sources sorted in code-unit order). */
export function lowerBoundSource(table: DocumentTable, key: string): number {
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (table.source(mid) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The document at `source`, or -1. */
export function indexOfSource(table: DocumentTable, source: string): number {
  const at = lowerBoundSource(table, source);
  return at < table.length && table.source(at) === source ? at : -1;
}
