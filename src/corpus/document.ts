// The contract between corpus/ and search/: what a loaded file looks like. See docs/ARCHITECTURE.md.

/** One indexable file of the corpus. */
export interface Document {
  /** Path relative to the corpus root, '/'-separated, e.g. "guides/deploy.md". Unique and stable. */
  source: string;
  /** Front matter `title`, else the first heading, else the file name without its extension. */
  title: string;
  /**
   * The file's full text as decoded from UTF-8. A leading byte order mark (U+FEFF) is removed by the
   * decoder and is not part of the text; nothing else is changed (line endings, trailing spaces and
   * the front matter block are kept). Every offset anywhere in the system is a UTF-16 code-unit index
   * into this string, so `text.slice(start, end)` is exactly the span it names.
   */
  text: string;
  /** Offset where the body begins: just after the YAML front matter block, or 0 if there is none. */
  bodyStart: number;
  /** File size on disk in bytes (including any byte order mark). */
  bytes: number;
}

/** A file or folder under the root that was not indexed, and why, in words a reader can act on. */
export interface SkippedFile {
  /** Path relative to the root, '/'-separated; folders end with '/', e.g. ".git/". */
  path: string;
  reason: string;
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
