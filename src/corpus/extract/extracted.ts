// What every extractor returns, the limits it enforces, and the small text helpers they share.
import { CodedError } from '../../coded-error.js';
import type { PageSpan, Section } from '../document.js';

/** A file's structure as one extractor read it; read-document.ts adds the source, bytes and fallbacks. */
export interface Extracted {
  /** The text every offset refers to (see Document.text). */
  text: string;
  /** Offset where the body begins (after front matter); 0 for formats without front matter. */
  bodyStart: number;
  /** The title the format itself declares or implies; undefined to fall back to the file name. */
  title?: string;
  /** The document's own link (front matter `url`). */
  url?: string;
  sections: Section[];
  pages?: PageSpan[];
  /** Something worth telling the operator; the document is still served. */
  warning?: string;
}

/** Limits an extractor enforces itself (the time limit is the pool's, see extraction-pool.ts). */
export interface ExtractionLimits {
  /** A PDF with more pages is skipped. */
  maxPages: number;
  /** A DOCX that declares, or actually inflates to, more bytes than this unpacked is skipped as a zip bomb. */
  maxUnpackedBytes: number;
}

/** Why an extractor could not serve a file. */
export type ExtractionErrorCode =
  /** No extractor for the format, or the wrong kind of input for it (text for a binary format, or bytes for text). */
  | 'unsupported'
  /** Not a readable file of its format: truncated, damaged, or another kind of file. */
  | 'damaged'
  /** The file needs a password to open. */
  | 'encrypted'
  /** The file opens but holds no text to serve (a scanned PDF). */
  | 'no_text'
  /** Over a limit the extractor enforces itself: pages, unpacked bytes, nesting depth. */
  | 'over_limit'
  /** Extraction took longer than the pool's time limit. */
  | 'timed_out'
  /** Extraction needed more memory than the pool allows. */
  | 'out_of_memory'
  /** The extractor failed in a way it did not foresee (a parser's bug, a stack overflow). */
  | 'unreadable';

/** The file cannot be served; the message is shown to clients in list_documents, so it names no path. */
export class ExtractionError extends CodedError<ExtractionErrorCode> {}

/**
 * The skip reason for an extractor that failed with something other than an `ExtractionError` (a
 * parser's bug, a stack overflow): the file is skipped, never the corpus failed.
 */
export function unreadableAs(format: string, error: unknown): string {
  const message = (error as { message?: unknown } | undefined)?.message;
  const detail = (typeof message === 'string' ? message : String(error)).split('\n', 1)[0]?.slice(0, 200) ?? '';
  return `could not be read as ${format.toUpperCase()} (${detail})`;
}

/** Document titles travel with every search result, so a runaway title is cut short. */
export const MAX_TITLE_CHARS = 200;
/**
 * Section titles are cut later than document titles: a heading path that repeats the document title
 * is dropped from the heading field, and a long heading cut like its title would lose its tail words.
 */
export const MAX_HEADING_CHARS = 1000;
// Only this much of a raw heading is looked at: enough for the cut title, and it keeps every
// regex below working on a bounded string whatever the line length.
const MAX_RAW_TITLE_CHARS = MAX_HEADING_CHARS * 2;
const IMAGE = /!\[[^\]]*\]\([^)]*\)/g;
const LINK = /\[([^\]]*)\]\([^)]*\)/g;

/**
 * Plain words of a heading: images (badges) dropped, links reduced to their text, runs of whitespace
 * collapsed (a setext heading may span several lines), cut to MAX_HEADING_CHARS. '' when nothing
 * readable is left.
 */
export function plainTitle(raw: string): string {
  const bounded = raw.length > MAX_RAW_TITLE_CHARS ? raw.slice(0, MAX_RAW_TITLE_CHARS) : raw;
  return cutTitle(bounded.replace(IMAGE, ' ').replace(LINK, '$1').replace(/\s+/g, ' ').trim(), MAX_HEADING_CHARS);
}

/** `title` cut to at most `max` characters, the last one an ellipsis when cut. */
export function cutTitle(title: string, max = MAX_TITLE_CHARS): string {
  return title.length > max ? `${title.slice(0, max - 1).trimEnd()}…` : title;
}

/** One line of a text: `text.slice(start, end)` without its line break; `next` is where the following line begins. */
export interface Line {
  start: number;
  end: number;
  next: number;
}

/**
 * The lines of `text.slice(from, to)`, split at LF, CRLF and lone CR alike, in one linear pass. A
 * text that ends with a line break has no empty last line.
 */
export function splitLines(text: string, from = 0, to = text.length): Line[] {
  const lines: Line[] = [];
  let start = from;
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      const next = c === 13 && text.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
      lines.push({ start, end: i, next });
      start = next;
      i = next - 1;
    }
  }
  if (start < to) lines.push({ start, end: to, next: to });
  return lines;
}

/** True when `text.slice(start, end)` holds only spaces and tabs. */
export function isBlank(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}
