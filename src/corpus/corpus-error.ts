/** Machine-readable cause of a corpus that cannot be served. */
export type CorpusErrorCode = 'not_found' | 'not_a_directory' | 'unreadable' | 'no_documents';

/**
 * The corpus root cannot be served: the server refuses to start rather than serve an empty index.
 * The message names the path and the cause and says what to do; callers branch on `code`.
 */
export class CorpusError extends Error {
  override readonly name = 'CorpusError';
  readonly code: CorpusErrorCode;
  /** Absolute path of the corpus root. */
  readonly path: string;

  constructor(code: CorpusErrorCode, path: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.path = path;
  }
}
