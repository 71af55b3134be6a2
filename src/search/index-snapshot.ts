// A search index as bytes and back, so a server can boot without chunking or tokenizing anything,
// and a worker thread can hand its finished index to the main thread as one transferable buffer.
// Pure: no I/O; the caller reads and writes files and checks integrity (see src/index-service/).
//
// Layout, every section 8-byte aligned so typed arrays view the buffer without copying:
//
//   0   8 bytes  magic "CORPUSIX"
//   8   u32 LE   layout version (SNAPSHOT_LAYOUT)
//   12  u32 LE   header length H in bytes
//   16  f64 LE   total length of the snapshot in bytes (a shorter input is truncated)
//   24  H bytes  header: UTF-8 JSON, see SnapshotHeader
//   …            sections, in the order and at the offsets the header lists
//
// Documents are stored generically: each document record minus its text as JSON, whatever fields it
// has, so fields added to Document travel without a layout change. The records are one blob with an
// offset per document, and the sources another, so a restored index parses a record only when it
// reads that document (document-table.ts). Texts are one UTF-8 blob and are decoded per document
// when read, so a restored index holds them once, outside the JS heap.
// Sections the decoder does not know are skipped, which leaves room for optional data (e.g. vectors).
import { InvertedIndex, type InvertedIndexParts } from './inverted-index.js';
import { SearchIndex, type SearchIndexParts } from './search-index.js';
import { DocumentBytes, type ReadRange } from './document-table.js';
import { resolveSearchOptions } from './search-options.js';
import { termTableOfJson, type TermTable } from './term-table.js';
import { CodedError } from '../coded-error.js';

/** Bumped whenever the byte layout changes; a snapshot of another layout is refused. */
export const SNAPSHOT_LAYOUT = 3;
export const MAGIC = 'CORPUSIX';
export const PREAMBLE_BYTES = 24;

/**
 * Why bytes are not a snapshot this code can read; `damaged`: a section left in its file no longer
 * reads as it did when the file was checked (see `SnapshotSource`).
 */
export type SnapshotErrorCode = 'not_a_snapshot' | 'foreign_layout' | 'truncated' | 'malformed' | 'damaged';

export class SnapshotError extends CodedError<SnapshotErrorCode> {}

export type SectionType = 'u8' | 'u16' | 'u32' | 'f32' | 'f64';

/** Where one section sits: `byteLength` bytes at `offset` from the start of the snapshot. */
export interface SnapshotSection {
  name: string;
  type: SectionType;
  offset: number;
  byteLength: number;
}

/**
 * A snapshot whose large sections need not be in memory: `resident` gives a section's bytes (8-byte
 * aligned) when they are held, `reader` reads ranges of one that was left where it is (a file). Which
 * sections may be left out is `READ_ON_DEMAND`; every other section must be resident.
 */
export interface SnapshotSource {
  header: SnapshotHeader;
  resident(name: string): Uint8Array | undefined;
  reader(name: string): ReadRange | undefined;
}

/**
 * The sections a decoded index reads only per document, a hit or a page at a time: the texts and the
 * document records. Everything else is read at boot or by every query, so it is held in memory.
 */
export const READ_ON_DEMAND: readonly string[] = ['text', 'documentRecords'];

/** The JSON header. `meta` is the caller's (e.g. the corpus manifest); the codec only carries it. */
export interface SnapshotHeader {
  layout: number;
  /** Whatever version string the caller passed; compared by the caller. */
  engine: string;
  totalBytes: number;
  options: SearchIndexParts['options'];
  buildSeconds: number;
  documents: number;
  chunks: number;
  terms: number;
  sections: SnapshotSection[];
  meta: unknown;
}

const ARRAY_TYPES = {
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  f32: Float32Array,
  f64: Float64Array,
} as const;

export const align8 = (n: number): number => (n + 7) & ~7;

/**
 * The header of a snapshot, after checking the magic, the layout version and that the input is as
 * long as the header says. Cheap: reads only the first bytes. `length` is the snapshot's length when
 * `bytes` are only its start (the preamble and the header), read on their own. Throws a `SnapshotError`.
 */
export function readSnapshotHeader(bytes: Uint8Array, length = bytes.length): SnapshotHeader {
  if (bytes.length < PREAMBLE_BYTES || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) {
    throw new SnapshotError('not_a_snapshot', 'not an index snapshot (no CORPUSIX magic at the start)');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const layout = view.getUint32(8, true);
  if (layout !== SNAPSHOT_LAYOUT) {
    throw new SnapshotError('foreign_layout', `snapshot layout ${layout} is not the layout this version reads (${SNAPSHOT_LAYOUT})`);
  }
  const headerBytes = view.getUint32(12, true);
  const totalBytes = view.getFloat64(16, true);
  if (length < totalBytes || bytes.length < PREAMBLE_BYTES + headerBytes) {
    throw new SnapshotError('truncated', `snapshot is truncated: ${length} bytes of ${totalBytes}`);
  }
  let header: SnapshotHeader;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(PREAMBLE_BYTES, PREAMBLE_BYTES + headerBytes))) as SnapshotHeader;
  } catch {
    throw new SnapshotError('malformed', 'snapshot header is not valid JSON');
  }
  if (header.totalBytes !== totalBytes || !Array.isArray(header.sections)) throw new SnapshotError('malformed', 'snapshot header disagrees with its preamble');
  for (const s of header.sections) {
    if (!(s.type in ARRAY_TYPES) || s.offset % 8 !== 0 || s.offset + s.byteLength > totalBytes || s.byteLength % ARRAY_TYPES[s.type].BYTES_PER_ELEMENT !== 0) {
      throw new SnapshotError('malformed', `snapshot section "${String(s.name)}" lies outside the snapshot or is misaligned`);
    }
  }
  return header;
}

/** The raw bytes of section `name`, or undefined when the snapshot has none (optional sections). */
export function snapshotSection(bytes: Uint8Array, header: SnapshotHeader, name: string): Uint8Array | undefined {
  const section = header.sections.find((s) => s.name === name);
  return section === undefined ? undefined : bytes.subarray(section.offset, section.offset + section.byteLength);
}

/**
 * The index stored in `bytes`. Typed arrays are views into `bytes` (copied once if `bytes` is not
 * 8-byte aligned), so the caller must not modify them afterwards. Throws a `SnapshotError` when the
 * bytes are not a readable snapshot; integrity (checksum) is the caller's to check first.
 */
export function decodeIndexSnapshot(input: Uint8Array | SnapshotSource): DecodedSnapshot {
  const steps = decodeIndexSnapshotSteps(input);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export interface DecodedSnapshot {
  index: SearchIndex;
  header: SnapshotHeader;
}

/**
 * `decodeIndexSnapshot` cut into steps of a few tens of milliseconds each on a large corpus: the
 * caller may yield to its event loop at every `yield`, so a server decoding a new index keeps
 * answering. Returns the same result, and records in `timings` the work of each phase in ms.
 */
export function* decodeIndexSnapshotSteps(input: Uint8Array | SnapshotSource, timings: Record<string, number> = {}): Generator<void, DecodedSnapshot, void> {
  // Work done per phase, yields excluded (documentsMs, termsMs, invertedMs, searchIndexMs).
  let phaseStarted = performance.now();
  const phaseDone = (name: string): void => {
    const now = performance.now();
    timings[name] = Math.round((timings[name] ?? 0) + now - phaseStarted);
    phaseStarted = now;
  };
  const source = input instanceof Uint8Array ? sourceOfBytes(input) : input;
  const { header } = source;
  const sectionOf = (name: string): SnapshotSection => {
    const section = header.sections.find((s) => s.name === name);
    if (section === undefined) throw new SnapshotError('malformed', `snapshot has no "${name}" section`);
    return section;
  };
  const array = <T extends SectionType>(name: string, type: T): InstanceType<(typeof ARRAY_TYPES)[T]> => {
    const section = sectionOf(name);
    if (section.type !== type) throw new SnapshotError('malformed', `snapshot section "${name}" is ${section.type}, expected ${type}`);
    const bytes = source.resident(name);
    if (bytes === undefined || bytes.byteLength !== section.byteLength) throw new SnapshotError('malformed', `snapshot section "${name}" is not in memory`);
    const Type = ARRAY_TYPES[type];
    return new Type(bytes.buffer as ArrayBuffer, bytes.byteOffset, section.byteLength / Type.BYTES_PER_ELEMENT) as InstanceType<(typeof ARRAY_TYPES)[T]>;
  };
  // A section read per document, from memory or from where it was left.
  const ranges = (name: string): { read: ReadRange; length: number } => {
    const section = sectionOf(name);
    if (section.type !== 'u8') throw new SnapshotError('malformed', `snapshot section "${name}" is ${section.type}, expected u8`);
    const bytes = source.resident(name);
    const read: ReadRange | undefined = bytes === undefined ? source.reader(name) : (start, end) => bytes.subarray(start, end);
    if (read === undefined) throw new SnapshotError('malformed', `snapshot section "${name}" is neither in memory nor readable`);
    return { read, length: section.byteLength };
  };
  const json = <T>(name: string): T => {
    try {
      return JSON.parse(new TextDecoder().decode(array(name, 'u8'))) as T;
    } catch (error) {
      if (error instanceof SnapshotError) throw error;
      throw new SnapshotError('malformed', `snapshot section "${name}" is not valid JSON`);
    }
  };

  const textOffsets = array('textOffsets', 'f64');
  const text = ranges('text');
  const texts = new TextStore(text.read, textOffsets);
  let documents: DocumentBytes;
  try {
    documents = new DocumentBytes(
      { ...ranges('documentRecords'), offsets: array('documentRecordOffsets', 'f64') },
      { blob: array('sources', 'u8'), offsets: array('sourceOffsets', 'f64') },
      (d) => texts.text(d),
      (d) => (textOffsets[d + 1] as number) - (textOffsets[d] as number),
    );
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError('malformed', `snapshot documents are not readable (${error instanceof Error ? error.message : String(error)})`);
  }
  if (documents.length !== header.documents || textOffsets.length !== documents.length + 1 || textOffsets[documents.length] !== text.length) {
    throw new SnapshotError('malformed', 'snapshot documents and texts do not line up');
  }
  phaseDone('documentsMs');
  let terms: TermTable;
  try {
    terms = termTableOfJson(array('terms', 'u8'));
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError('malformed', `snapshot section "terms" is not readable (${error instanceof Error ? error.message : String(error)})`);
  }
  phaseDone('termsMs');
  const inverted: InvertedIndexParts = {
    terms,
    idf: array('idf', 'f64'),
    postingStart: array('postingStart', 'u32'),
    postingChunk: array('postingChunk', 'u32'),
    postingWeight: array('postingWeight', 'f32'),
    maxWeight: array('maxWeight', 'f32'),
    forwardStart: array('forwardStart', 'u32'),
    forwardTerm: array('forwardTerm', 'u32'),
    forwardTf: array('forwardTf', 'u16'),
    bodyLength: array('bodyLength', 'u32'),
  };
  let invertedIndex: InvertedIndex;
  try {
    invertedIndex = InvertedIndex.fromParts(inverted);
  } catch (error) {
    throw new SnapshotError('malformed', `snapshot does not describe a consistent index (${error instanceof Error ? error.message : String(error)})`);
  }
  phaseDone('invertedMs');
  yield;
  phaseStarted = performance.now();
  try {
    const index = SearchIndex.fromParts({
      options: resolveSearchOptions(header.options),
      documents,
      firstChunk: array('firstChunk', 'u32'),
      chunkStart: array('chunkStart', 'u32'),
      chunkEnd: array('chunkEnd', 'u32'),
      chunkPage: array('chunkPage', 'u32'),
      headings: json<string[]>('headings'),
      chunkHeading: array('chunkHeading', 'u32'),
      inverted,
      buildSeconds: header.buildSeconds,
    }, invertedIndex);
    phaseDone('searchIndexMs');
    return { index, header };
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new SnapshotError('malformed', `snapshot does not describe a consistent index (${error instanceof Error ? error.message : String(error)})`);
  }
}

/**
 * `bytes` (a whole snapshot) as a source with every section resident: views of `bytes`, copied once
 * when `bytes` is not 8-byte aligned.
 */
function sourceOfBytes(input: Uint8Array): SnapshotSource {
  const header = readSnapshotHeader(input);
  const bytes = input.byteOffset % 8 === 0 ? input : input.slice();
  return { header, resident: (name) => snapshotSection(bytes, header, name), reader: () => undefined };
}

/**
 * Document texts as one UTF-8 blob (in memory or left in its file), read and decoded on demand. A handful of recently read texts are kept,
 * because a search reads the same few documents several times (ranking, snippets, get_chunk next).
 */
class TextStore {
  readonly #read: ReadRange;
  readonly #offsets: Float64Array;
  readonly #decoder = new TextDecoder();
  readonly #recent = new Map<number, string>();
  #recentChars = 0;

  constructor(read: ReadRange, offsets: Float64Array) {
    this.#read = read;
    this.#offsets = offsets;
  }

  text(d: number): string {
    const cached = this.#recent.get(d);
    if (cached !== undefined) return cached;
    const text = this.#decoder.decode(this.#read(this.#offsets[d] as number, this.#offsets[d + 1] as number));
    if (text.length > RECENT_CHARS / 4) return text;
    while (this.#recent.size >= RECENT_TEXTS || this.#recentChars + text.length > RECENT_CHARS) {
      const [oldest, dropped] = this.#recent.entries().next().value as [number, string];
      this.#recent.delete(oldest);
      this.#recentChars -= dropped.length;
    }
    this.#recent.set(d, text);
    this.#recentChars += text.length;
    return text;
  }
}

/** Texts kept decoded, at most this many and this many characters together (a larger one is not kept). */
const RECENT_TEXTS = 32;
const RECENT_CHARS = 4_000_000;
