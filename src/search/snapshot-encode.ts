// Writing a search index as snapshot bytes (the layout is described in index-snapshot.ts, which reads
// them back): the encoder runs where an index is built, the decoder wherever one is served.
import type { Document } from '../corpus/document.js';
import type { ByteTable } from './document-table.js';
import { align8, MAGIC, PREAMBLE_BYTES, SNAPSHOT_LAYOUT, type SectionType, type SnapshotHeader, type SnapshotSection } from './index-snapshot.js';
import type { SearchIndex } from './search-index.js';
export interface EncodeOptions {
  /** Identifies the code that built the index; stored in the header. */
  engine: string;
  /** Any JSON value, stored in the header as is (the manifest the caller checks on load). */
  meta?: unknown;
  /** Optional extra sections (raw bytes), kept by name; decoders that do not know them skip them. */
  extra?: Readonly<Record<string, Uint8Array>>;
}

/** The index, its documents and `meta` as one self-describing byte array. */
export function encodeIndexSnapshot(index: SearchIndex, options: EncodeOptions): Uint8Array {
  const parts = index.parts();
  const encoder = new TextEncoder();
  // Texts and records are measured here and written straight into the output further down: encoding
  // them into arrays of their own first cost a second copy of the corpus (about 200 MB at 100k
  // documents), every page of it touched for the first time.
  const { documents } = parts;
  const textOffsets = new Float64Array(documents.length + 1);
  for (let d = 0; d < documents.length; d += 1) textOffsets[d + 1] = (textOffsets[d] as number) + Buffer.byteLength((documents[d] as Document).text);
  const recordJson = documents.map(({ text: _text, ...record }) => JSON.stringify(record));
  const records = byteTable(recordJson);
  const sources = byteTable(documents.map((document) => document.source));
  const inv = parts.inverted;
  const payload: Array<[string, SectionType, ArrayBufferView]> = [
    ['documentRecords', 'u8', records.blob],
    ['documentRecordOffsets', 'f64', records.offsets],
    ['sources', 'u8', sources.blob],
    ['sourceOffsets', 'f64', sources.offsets],
    ['headings', 'u8', encoder.encode(JSON.stringify(parts.headings))],
    ['terms', 'u8', encoder.encode(JSON.stringify(inv.terms))],
    ['firstChunk', 'u32', parts.firstChunk],
    ['chunkStart', 'u32', parts.chunkStart],
    ['chunkEnd', 'u32', parts.chunkEnd],
    ['chunkPage', 'u32', parts.chunkPage],
    ['chunkHeading', 'u32', parts.chunkHeading],
    ['textOffsets', 'f64', textOffsets],
    ['idf', 'f64', inv.idf],
    ['postingStart', 'u32', inv.postingStart],
    ['postingChunk', 'u32', inv.postingChunk],
    ['postingWeight', 'f32', inv.postingWeight],
    ['maxWeight', 'f32', inv.maxWeight],
    ['forwardStart', 'u32', inv.forwardStart],
    ['forwardTerm', 'u32', inv.forwardTerm],
    ['forwardTf', 'u16', inv.forwardTf],
    ['bodyLength', 'u32', inv.bodyLength],
  ];
  for (const [name, bytes] of Object.entries(options.extra ?? {})) {
    if (payload.some(([known]) => known === name) || name === 'text') throw new RangeError(`extra snapshot section "${name}" clashes with a built-in one`);
    payload.push([name, 'u8', bytes]);
  }
  const textBytes = textOffsets[documents.length] as number;

  // The header holds the offsets, and its length moves them; lay out twice with a padded length.
  const sections: SnapshotSection[] = [];
  const header: SnapshotHeader = {
    layout: SNAPSHOT_LAYOUT,
    engine: options.engine,
    totalBytes: 0,
    options: parts.options,
    buildSeconds: parts.buildSeconds,
    documents: parts.documents.length,
    chunks: parts.chunkStart.length,
    terms: inv.terms.length,
    sections,
    meta: options.meta ?? null,
  };
  const layOut = (headerBytes: number): number => {
    sections.length = 0;
    let at = align8(PREAMBLE_BYTES + headerBytes);
    for (const [name, type, view] of payload) {
      sections.push({ name, type, offset: at, byteLength: view.byteLength });
      at = align8(at + view.byteLength);
    }
    sections.push({ name: 'text', type: 'u8', offset: at, byteLength: textBytes });
    return align8(at + textBytes);
  };
  let headerBytes = 0;
  let json = '';
  for (;;) {
    header.totalBytes = layOut(headerBytes);
    json = JSON.stringify(header);
    const needed = encoder.encode(json).length;
    if (needed <= headerBytes) break;
    headerBytes = needed + 64;
  }

  const out = new Uint8Array(header.totalBytes);
  const view = new DataView(out.buffer);
  out.set(encoder.encode(MAGIC), 0);
  view.setUint32(8, SNAPSHOT_LAYOUT, true);
  view.setUint32(12, headerBytes, true);
  view.setFloat64(16, header.totalBytes, true);
  out.fill(0x20, PREAMBLE_BYTES, PREAMBLE_BYTES + headerBytes); // JSON tolerates trailing spaces
  out.set(encoder.encode(json), PREAMBLE_BYTES);
  payload.forEach(([, , data], i) => {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), (sections[i] as SnapshotSection).offset);
  });
  const outBuffer = Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  const textAt = (sections[sections.length - 1] as SnapshotSection).offset;
  documents.forEach((document, d) => outBuffer.write(document.text, textAt + (textOffsets[d] as number), 'utf8'));
  return out;
}

/** `items` in UTF-8 as one blob, and the offset of each (plus the end). */
function byteTable(items: readonly string[]): ByteTable {
  const offsets = new Float64Array(items.length + 1);
  for (let i = 0; i < items.length; i += 1) offsets[i + 1] = (offsets[i] as number) + Buffer.byteLength(items[i] as string);
  const blob = Buffer.allocUnsafeSlow(offsets[items.length] as number);
  items.forEach((item, i) => blob.write(item, offsets[i] as number, 'utf8'));
  return { blob, offsets };
}
