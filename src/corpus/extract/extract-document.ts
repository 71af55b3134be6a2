// One entry point to every extractor: plain functions of their input, with no I/O and nothing that
// assumes the main thread, so they run the same in the loader, in a pool worker or in an index
// builder's worker.
import type { DocumentFormat } from '../document.js';
import { type Extracted, ExtractionError, type ExtractionLimits } from './extracted.js';
import { extractDocx } from './docx.js';
import { extractHtml } from './html.js';
import { extractMarkdown } from './markdown.js';
import { extractPdf } from './pdf.js';
import { extractRestructuredText } from './restructuredtext.js';
import { extractText } from './text.js';

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = Object.freeze({ maxPages: 2000, maxUnpackedBytes: 100 * 1024 * 1024 });

/**
 * Extracts one file: `input` is the decoded text for text formats and the file's bytes for binary
 * ones. Throws `ExtractionError` with a reason a client may read when the file cannot be served.
 */
export async function extractDocument(format: DocumentFormat, input: string | Uint8Array, limits: ExtractionLimits): Promise<Extracted> {
  switch (format) {
    case 'markdown':
      return extractMarkdown(asText(input));
    case 'restructuredtext':
      return extractRestructuredText(asText(input));
    case 'text':
      return extractText(asText(input));
    case 'html':
      return extractHtml(asText(input));
    case 'pdf':
      return extractPdf(asBytes(input), limits);
    case 'docx':
      return extractDocx(asBytes(input), limits);
    default:
      throw new ExtractionError('unsupported', `no extractor for ${format} files`);
  }
}

function asBytes(input: string | Uint8Array): Uint8Array {
  if (typeof input === 'string') throw new ExtractionError('unsupported', 'a binary format was handed text, not bytes');
  return input;
}

function asText(input: string | Uint8Array): string {
  if (typeof input !== 'string') throw new ExtractionError('unsupported', 'a text format was handed bytes, not text');
  return input;
}
