// The one list of file types the corpus reads. Every message, doc comment and MIME type that names
// the supported formats is derived from this table.
import type { DocumentFormat } from './document.js';

export interface FormatInfo {
  format: DocumentFormat;
  /** Extensions, lower case with the dot, compared case-insensitively. */
  extensions: readonly string[];
  /**
   * Binary formats are handed to their extractor as bytes; text formats are first decoded as strict
   * UTF-8 and refused if they contain NUL bytes or a UTF-16 byte order mark.
   */
  binary: boolean;
  /**
   * Extracted in a worker thread with a time and memory limit, because a parser of this format can
   * be driven into runaway work by a hostile file. The line-based formats are linear by construction.
   */
  isolated: boolean;
  /** MIME type of the text served for the document (the extracted text for HTML, PDF and DOCX). */
  servedAs: string;
}

export const FORMATS: readonly FormatInfo[] = Object.freeze([
  { format: 'markdown', extensions: ['.md', '.markdown'], binary: false, isolated: false, servedAs: 'text/markdown' },
  { format: 'text', extensions: ['.txt'], binary: false, isolated: false, servedAs: 'text/plain' },
  { format: 'restructuredtext', extensions: ['.rst'], binary: false, isolated: false, servedAs: 'text/plain' },
  { format: 'html', extensions: ['.html', '.htm'], binary: false, isolated: true, servedAs: 'text/plain' },
  { format: 'pdf', extensions: ['.pdf'], binary: true, isolated: true, servedAs: 'text/plain' },
  { format: 'docx', extensions: ['.docx'], binary: true, isolated: true, servedAs: 'text/plain' },
] satisfies FormatInfo[]);

const BY_EXTENSION: ReadonlyMap<string, FormatInfo> = new Map(FORMATS.flatMap((info) => info.extensions.map((e) => [e, info] as const)));
const BY_FORMAT: ReadonlyMap<DocumentFormat, FormatInfo> = new Map(FORMATS.map((info) => [info.format, info]));

/** The format read from files with this extension (any case, with the dot), or undefined. */
export function formatOfExtension(extension: string): FormatInfo | undefined {
  return BY_EXTENSION.get(extension.toLowerCase());
}

export function formatInfo(format: DocumentFormat): FormatInfo {
  return BY_FORMAT.get(format) as FormatInfo;
}

/** ".md, .markdown, …, .pdf and .docx" (or "… or .docx"), for messages. */
export function listExtensions(conjunction: 'and' | 'or'): string {
  const all = FORMATS.flatMap((info) => info.extensions);
  return `${all.slice(0, -1).join(', ')} ${conjunction} ${all.at(-1) ?? ''}`;
}
