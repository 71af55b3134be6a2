import { CodedError } from '../coded-error.js';

/** Machine-readable causes of a {@link SearchError}. */
export type SearchErrorCode = 'invalid_option' | 'invalid_argument' | 'duplicate_source' | 'invalid_snapshot';

/** Thrown when the index cannot be built as asked; `code` says why, the message names the value. */
export class SearchError extends CodedError<SearchErrorCode> {}
