/** One file of the corpus, as read from disk. Every offset in the system refers to `text`. */
export interface Document {
  /** Path relative to the corpus root, '/'-separated, e.g. "guides/deploy.md". */
  source: string;
  /** Front matter `title`, else the first heading, else the file name. */
  title: string;
  /** The file's full text as read (UTF-8 decoded). */
  text: string;
  /** Offset in `text` where the body begins (after YAML front matter); 0 if there is none. */
  bodyStart: number;
  /** File size on disk, in bytes. */
  bytes: number;
}
