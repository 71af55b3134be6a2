// DOCX: mammoth turns the Word document into simple HTML with its Heading 1–6 paragraphs as h1–h6,
// and the HTML extractor takes it from there (text, sections). The title comes from the document
// properties (docProps/core.xml), else the first Heading 1.
//
// mammoth never inflates the file itself. The zip's directory is read first (fflate) and a file that
// declares more than the limit unpacked is refused as a zip bomb; then every entry is inflated here,
// a few KB of compressed input at a time, counting the bytes that actually come out, and stopped at
// the limit: a directory that lies about its sizes is caught after at most one step past the limit,
// which the worker's heap limit would not do (inflated bytes live in ArrayBuffers it does not count).
// mammoth gets the bounded entries re-zipped without compression (store), so it inflates nothing.
import { Unzip, UnzipInflate, unzipSync, zipSync } from 'fflate';
import { Parser } from 'htmlparser2';
import mammoth from 'mammoth';
import { type Extracted, ExtractionError, type ExtractionLimits, plainTitle } from './extracted.js';
import { extractHtml } from './html.js';
import { formatBytes } from '../format-bytes.js';

const CORE_PROPERTIES = 'docProps/core.xml';
const MAIN_DOCUMENT = 'word/document.xml';
const MAX_CORE_PROPERTIES_BYTES = 1024 * 1024;
/**
 * Compressed bytes inflated per step. Deflate expands at most about 1032:1, so one step yields at
 * most about 17 MB: the most the actual count can pass the limit by.
 */
const INFLATE_STEP_BYTES = 16 * 1024;
/** Pictures are neither inflated nor handed to mammoth: only the text is indexed. */
const MEDIA = /^word\/media\//;

export async function extractDocx(bytes: Uint8Array, { maxUnpackedBytes }: ExtractionLimits): Promise<Extracted> {
  let unpacked = 0;
  let hasDocument = false;
  let core: Uint8Array | undefined;
  try {
    const files = unzipSync(bytes, {
      filter(file) {
        unpacked += file.originalSize;
        if (file.name === MAIN_DOCUMENT) hasDocument = true;
        return file.name === CORE_PROPERTIES && file.originalSize <= MAX_CORE_PROPERTIES_BYTES;
      },
    });
    core = files[CORE_PROPERTIES];
  } catch (error) {
    throw new ExtractionError('damaged', `not a readable DOCX: not a zip archive, or a damaged one (${firstLine(error)})`);
  }
  if (unpacked > maxUnpackedBytes) {
    throw new ExtractionError('over_limit', `would unpack to ${formatBytes(unpacked)}, over the ${formatBytes(maxUnpackedBytes)} limit (a zip bomb?)`);
  }
  if (!hasDocument) throw new ExtractionError('damaged', `not a Word document (the archive has no ${MAIN_DOCUMENT})`);

  const stored = zipSync(inflateBounded(bytes, maxUnpackedBytes), { level: 0 });
  let html: string;
  try {
    // Images become empty <img> tags without being read: their entries were left out.
    const convertImage = mammoth.images.imgElement(() => Promise.resolve({ src: '' }));
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength) }, { convertImage })).value;
  } catch (error) {
    throw new ExtractionError('damaged', `damaged DOCX (${firstLine(error)})`);
  }
  const extracted = extractHtml(html);
  const title = core === undefined ? undefined : coreTitle(core);
  return title === undefined ? extracted : { ...extracted, title };
}

/**
 * Every entry but pictures, inflated, counting what comes out; throws an `ExtractionError` as soon as
 * the count passes `maxUnpackedBytes`, whatever the zip declared.
 */
function inflateBounded(bytes: Uint8Array, maxUnpackedBytes: number): Record<string, Uint8Array> {
  const entries: Record<string, Uint8Array> = {};
  let unpacked = 0;
  let failure: ExtractionError | undefined;
  const unzip = new Unzip((file) => {
    if (MEDIA.test(file.name) || file.name.endsWith('/')) return;
    const parts: Uint8Array[] = [];
    file.ondata = (error, chunk, final) => {
      if (failure !== undefined) return;
      if (error) {
        failure = new ExtractionError('damaged', `damaged DOCX (${firstLine(error)})`);
        return;
      }
      unpacked += chunk.length;
      if (unpacked > maxUnpackedBytes) {
        failure = new ExtractionError('over_limit', `unpacks to more than the ${formatBytes(maxUnpackedBytes)} limit, though its zip directory declares less (a zip bomb?)`);
        file.terminate();
        return;
      }
      parts.push(chunk);
      if (final) entries[file.name] = concat(parts);
    };
    try {
      file.start();
    } catch (error) {
      failure ??= new ExtractionError('damaged', `damaged DOCX (${firstLine(error)})`);
    }
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.length && failure === undefined; at += INFLATE_STEP_BYTES) {
      unzip.push(bytes.subarray(at, at + INFLATE_STEP_BYTES), at + INFLATE_STEP_BYTES >= bytes.length);
    }
  } catch (error) {
    failure ??= new ExtractionError('damaged', `damaged DOCX (${firstLine(error)})`);
  }
  if (failure !== undefined) throw failure;
  return entries;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.length;
  }
  return whole;
}

/** `<dc:title>` of the core properties, entities decoded; undefined when absent or empty. */
function coreTitle(xml: Uint8Array): string | undefined {
  let inTitle = false;
  let text = '';
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'dc:title') inTitle = true;
      },
      ontext(data) {
        if (inTitle) text += data;
      },
      onclosetag(name) {
        if (name === 'dc:title') inTitle = false;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(new TextDecoder().decode(xml));
  parser.end();
  const title = plainTitle(text);
  return title === '' ? undefined : title;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n', 1)[0] ?? '').slice(0, 200);
}
