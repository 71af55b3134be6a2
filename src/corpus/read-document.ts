import { closeSync, readSync } from 'node:fs';
import { basename, extname } from 'node:path';
import type { CorpusWarning, Document, SkippedFile } from './document.js';
import { cutTitle, type Extracted, ExtractionError, unreadableAs } from './extract/extracted.js';
import type { DocumentFormat } from './document.js';
import { formatInfo } from './formats.js';
import { openCandidate, tooLarge } from './open-candidate.js';
import { describeError, type FileCandidate } from './walk-corpus.js';

/** Files larger than this many bytes are skipped unless the caller sets another limit: 10 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Runs one extractor; the loader decides where (in-process or in a pool worker with a time limit). */
export type Extract = (format: DocumentFormat, input: string | Uint8Array) => Promise<Extracted>;

/**
 * Told the bytes of every file read, before they are judged (e.g. to digest exactly what the index
 * was built from). The bytes of a text file are valid only during the call: the buffer is reused.
 */
export type OnRead = (source: string, bytes: Uint8Array) => void;

export type ReadOutcome =
  | { kind: 'document'; document: Document; warning?: CorpusWarning }
  | { kind: 'skipped'; skipped: SkippedFile };

// Decodes strictly: one invalid byte sequence rejects the file rather than smuggling U+FFFD into
// the index. The default ignoreBOM: false drops a leading byte order mark (see Document.text).
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads one candidate file and turns it into a Document, or says why it cannot be one. */
export async function readDocument(candidate: FileCandidate, maxFileBytes: number, extract: Extract, onRead?: OnRead): Promise<ReadOutcome> {
  const { source } = candidate;
  const skip = (reason: string): ReadOutcome => ({ kind: 'skipped', skipped: { path: source, reason } });

  const info = formatInfo(candidate.format);
  // A text file's bytes are decoded before the first await, so its buffer can serve the next file.
  const read = readCandidateBytes(candidate, maxFileBytes, !info.binary);
  if (typeof read === 'string') return skip(read);
  const bytes = read;
  onRead?.(source, bytes);
  if (bytes.length === 0) return skip('empty file');
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
    // Whatever an extractor throws costs only this file: one hostile file must not fail the corpus.
    return skip(error instanceof ExtractionError ? error.message : unreadableAs(candidate.format, error));
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
    ...(extracted.url === undefined ? {} : { url: extracted.url }),
  };
  return extracted.warning === undefined
    ? { kind: 'document', document }
    : { kind: 'document', document, warning: { path: source, message: extracted.warning } };
}

/**
 * The bytes of a candidate file, or why it cannot be read (a skip reason); opened as
 * `openCandidate` (open-candidate.ts) says.
 *
 * With `reuse`, the bytes are read into a buffer this thread keeps for the next call: valid only
 * until then. A buffer per file (400 MB over 100k files) made V8 collect garbage for the external
 * memory it adds up to, though none of it outlives its file.
 */
export function readCandidateBytes(candidate: FileCandidate, maxFileBytes: number, reuse = false): Buffer | string {
  const opened = openCandidate(candidate, maxFileBytes);
  if (typeof opened === 'string') return opened;
  const { fd, size } = opened;
  try {
    // One byte more than the stat said, so one call reads a file that has not grown; one that grew
    // since is read on, up to one byte past the limit.
    let buffer = reuse && scratch.length > size ? scratch : Buffer.allocUnsafeSlow(size + 1);
    let length = 0;
    for (;;) {
      const count = readSync(fd, buffer, length, buffer.length - length, length);
      if (count === 0) break;
      length += count;
      if (length > maxFileBytes) return tooLarge(length, maxFileBytes);
      if (length === buffer.length) {
        const grown = Buffer.allocUnsafeSlow(Math.min(buffer.length * 2, maxFileBytes + 1));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
    }
    if (reuse && buffer.length > scratch.length) scratch = buffer;
    return buffer.subarray(0, length);
  } catch (error) {
    return `could not be read (${describeError(error)})`;
  } finally {
    closeSync(fd);
  }
}

/** The buffer `readCandidateBytes` reuses: the largest one a text file has needed on this thread. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

