/** Machine-readable causes of a {@link SearchError}. */
export type SearchErrorCode = 'invalid_option' | 'invalid_argument' | 'duplicate_source' | 'invalid_snapshot';

/** Thrown when the index cannot be built as asked; `code` says why, the message names the value. */
export class SearchError extends Error {
  readonly code: SearchErrorCode;

  constructor(code: SearchErrorCode, message: string) {
    super(message);
    this.name = 'SearchError';
    this.code = code;
  }
}
