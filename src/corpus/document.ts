// The contract between corpus/ and search/: what a loaded file looks like. See docs/ARCHITECTURE.md.

/** Which extractor read a file; chosen from its extension (see formats.ts). */
export type DocumentFormat = 'markdown' | 'restructuredtext' | 'text' | 'html' | 'pdf' | 'docx';

/**
 * A heading and the part of the text it governs, up to the next section's `start` (or the end of
 * the text). Offsets are into `Document.text`; `start ≤ headingStart ≤ contentStart`.
 */
export interface Section {
  /** Where the section begins: the first character of its heading, markup included (`## `, an overline). */
  start: number;
  /** Where the heading's own words begin: after ATX `#` markers, else equal to `start`. */
  headingStart: number;
  /** Just past the heading (its line and any underline): where the section's own text begins. */
  contentStart: number;
  /** 1 for a top-level heading, 2 below it, and so on. */
  level: number;
  /** Plain words of the heading; '' for an empty heading, which still closes deeper sections. */
  title: string;
}

/** One page of a paginated format: `text.slice(start, end)` is its text. Pages are in order. */
export interface PageSpan {
  start: number;
  end: number;
}

/**
 * One indexable file of the corpus, as extracted. A plain data record (strings, numbers, arrays of
 * plain objects) so it can cross a worker boundary or be written to a snapshot as JSON.
 */
export interface Document {
  /** Path relative to the corpus root, '/'-separated, e.g. "guides/deploy.md". Unique and stable. */
  source: string;
  format: DocumentFormat;
  /**
   * Front matter `title` or the format's own title (HTML `<title>`, PDF metadata), else the first
   * heading (or a PDF's first line), else the file name without its extension.
   */
  title: string;
  /**
   * The text that every offset refers to. For Markdown, reStructuredText and plain text it is the
   * file exactly as decoded from UTF-8 (a leading byte order mark is dropped; line endings, trailing
   * spaces and the front matter block are kept). For HTML, PDF and DOCX it is the extracted text.
   * Offsets are UTF-16 code-unit indexes, so `text.slice(start, end)` is exactly the span named.
   */
  text: string;
  /** Offset where the body begins: just after the YAML front matter block, or 0 if there is none. */
  bodyStart: number;
  /** File size on disk in bytes (including any byte order mark). */
  bytes: number;
  /** Headings in document order; empty for plain text and for documents without headings. */
  sections: Section[];
  /** Page spans of a paginated format (PDF), first page first; absent for other formats. */
  pages?: PageSpan[];
  /** The document's own link, from its front matter `url`; it wins over SOURCE_URL_TEMPLATE. */
  url?: string;
}

/** The one ordering of sources everywhere (code-unit order, the same on every machine, unlike localeCompare). */
export function compareSources(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The 1-based page holding `offset`, or undefined for a document without pages. */
export function pageAt(pages: readonly PageSpan[] | undefined, offset: number): number | undefined {
  if (pages === undefined || pages.length === 0) return undefined;
  let lo = 0;
  let hi = pages.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((pages[mid] as PageSpan).start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** A file or folder under the root that was not indexed, and why, in words a reader can act on. */
export interface SkippedFile {
  /** Path relative to the root, '/'-separated; folders end with '/', e.g. ".git/". */
  path: string;
  reason: string;
  /**
   * True for entries that are not documents at all (hidden files and folders, node_modules, other
   * file types, links, special files): their names can reveal what else sits beside the corpus
   * (`.env`, `secret.key`), so they are for the operator's log, never for clients.
   */
  operatorOnly?: boolean;
}

/**
 * What a count of skipped entries means wherever one is shown (/readyz, the ready log): `skipped`,
 * files that were not indexed though they could be documents, the ones list_documents names; and
 * `notDocuments`, entries of the folder that are not documents, named in the operator's log only.
 */
export function skippedCounts(skipped: readonly SkippedFile[]): { skipped: number; notDocuments: number } {
  let notDocuments = 0;
  for (const entry of skipped) if (entry.operatorOnly === true) notDocuments += 1;
  return { skipped: skipped.length - notDocuments, notDocuments };
}

/** Something about an indexed document worth telling the operator (the document is still served). */
export interface CorpusWarning {
  /** The document's `source`. */
  path: string;
  message: string;
}

export interface LoadedCorpus {
  /** Absolute path of the corpus root as given (resolved against the working directory). */
  root: string;
  /** Sorted by `source` (code-unit order, independent of locale). */
  documents: Document[];
  /** Sorted by `path`. */
  skipped: SkippedFile[];
  /** Indexed documents with a problem worth fixing, e.g. front matter that is not valid YAML. */
  warnings?: CorpusWarning[];
}
