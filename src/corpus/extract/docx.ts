// DOCX: mammoth turns the Word document into simple HTML with its Heading 1–6 paragraphs as h1–h6,
// and the HTML extractor takes it from there (text, sections). The title comes from the document
// properties (docProps/core.xml), else the first Heading 1. Before mammoth inflates anything, the
// zip's directory is read (fflate) and a file that would unpack to more than the limit is refused
// as a zip bomb; a lying directory is caught by the worker's memory and time limits.
import { unzipSync } from 'fflate';
import { Parser } from 'htmlparser2';
import mammoth from 'mammoth';
import type { ExtractionLimits } from './extract-document.js';
import { type Extracted, ExtractionError, plainTitle } from './extracted.js';
import { extractHtml } from './html.js';
import { formatBytes } from '../format-bytes.js';

const CORE_PROPERTIES = 'docProps/core.xml';
const MAIN_DOCUMENT = 'word/document.xml';
const MAX_CORE_PROPERTIES_BYTES = 1024 * 1024;

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
    throw new ExtractionError(`not a readable DOCX: not a zip archive, or a damaged one (${firstLine(error)})`);
  }
  if (unpacked > maxUnpackedBytes) {
    throw new ExtractionError(`would unpack to ${formatBytes(unpacked)}, over the ${formatBytes(maxUnpackedBytes)} limit (a zip bomb?)`);
  }
  if (!hasDocument) throw new ExtractionError(`not a Word document (the archive has no ${MAIN_DOCUMENT})`);

  let html: string;
  try {
    html = (await mammoth.convertToHtml({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) })).value;
  } catch (error) {
    throw new ExtractionError(`damaged DOCX (${firstLine(error)})`);
  }
  const extracted = extractHtml(html);
  const title = core === undefined ? undefined : coreTitle(core);
  return title === undefined ? extracted : { ...extracted, title };
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
