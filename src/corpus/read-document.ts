import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { CorpusWarning, Document, SkippedFile } from './document.js';
import { cutTitle, type Extracted, ExtractionError } from './extract/extracted.js';
import type { DocumentFormat } from './document.js';
import { formatInfo } from './formats.js';
import { formatBytes } from './format-bytes.js';
import { describeError, type FileCandidate } from './walk-corpus.js';

/** Runs one extractor; the loader decides where (in-process or in a pool worker with a time limit). */
export type Extract = (format: DocumentFormat, input: string | Uint8Array) => Promise<Extracted>;

export type ReadOutcome =
  | { kind: 'document'; document: Document; warning?: CorpusWarning }
  | { kind: 'skipped'; skipped: SkippedFile };

// Decodes strictly: one invalid byte sequence rejects the file rather than smuggling U+FFFD into
// the index. The default ignoreBOM: false drops a leading byte order mark (see Document.text).
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads one candidate file and turns it into a Document, or says why it cannot be one. */
export async function readDocument(candidate: FileCandidate, maxFileBytes: number, extract: Extract): Promise<ReadOutcome> {
  const { source } = candidate;
  const skip = (reason: string): ReadOutcome => ({ kind: 'skipped', skipped: { path: source, reason } });

  let bytes: Buffer;
  try {
    // The walk checked this path earlier; it may have been swapped since. O_NOFOLLOW refuses a final
    // symbolic link, O_NONBLOCK keeps a FIFO from blocking the open (and a libuv thread) forever, and
    // the handle's own stat must be the file the walk saw: a folder on the way swapped for a link
    // out of the corpus leads to another inode.
    const handle = await open(candidate.absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const info = await handle.stat();
      if (!info.isFile()) return skip('not a regular file (device, socket or pipe)');
      if (info.dev !== candidate.identity.dev || info.ino !== candidate.identity.ino) {
        return skip('it was replaced by another file while loading');
      }
      if (info.size > maxFileBytes) return skip(tooLarge(info.size, maxFileBytes));
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return skip(`could not be read (${describeError(error)})`);
  }
  // The file may have grown between stat and read.
  if (bytes.length > maxFileBytes) return skip(tooLarge(bytes.length, maxFileBytes));
  if (bytes.length === 0) return skip('empty file');
  const info = formatInfo(candidate.format);
  let input: string | Uint8Array = bytes;
  if (!info.binary) {
    if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
      return skip('UTF-16 text (only UTF-8 is read: save the file as UTF-8)');
    }
    if (bytes.includes(0)) return skip('binary file (contains NUL bytes)');
    try {
      input = decoder.decode(bytes);
    } catch {
      return skip('not valid UTF-8 (save the file as UTF-8)');
    }
  }

  let extracted: Extracted;
  try {
    extracted = await extract(candidate.format, input);
  } catch (error) {
    if (error instanceof ExtractionError) return skip(error.message);
    throw error;
  }
  const { text, bodyStart } = extracted;
  if (text.slice(bodyStart).trim() === '') {
    if (bodyStart > 0) return skip('no text after the front matter');
    return skip(info.binary || candidate.format === 'html' ? 'no text to index' : 'empty file (only whitespace)');
  }
  const title = cutTitle(extracted.title ?? basename(source, extname(source)));
  const document: Document = {
    source,
    format: candidate.format,
    title,
    text,
    bodyStart,
    bytes: bytes.length,
    sections: extracted.sections,
    ...(extracted.pages === undefined ? {} : { pages: extracted.pages }),
  };
  return extracted.warning === undefined
    ? { kind: 'document', document }
    : { kind: 'document', document, warning: { path: source, message: extracted.warning } };
}

function tooLarge(size: number, limit: number): string {
  return `larger than the ${formatBytes(limit)} limit (${formatBytes(size)})`;
}
