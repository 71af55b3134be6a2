import { CodedError } from '../coded-error.js';

/** Machine-readable causes of a corpus that cannot be served. */
export const CORPUS_ERROR_CODES = ['not_found', 'not_a_directory', 'unreadable', 'no_documents'] as const;
export type CorpusErrorCode = (typeof CORPUS_ERROR_CODES)[number];

/**
 * The corpus root cannot be served: the server refuses to start rather than serve an empty index.
 * The message names the path and the cause and says what to do; callers branch on `code`.
 */
export class CorpusError extends CodedError<CorpusErrorCode> {
  constructor(
    code: CorpusErrorCode,
    /** Absolute path of the corpus root. */
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}

/** Whether `code` (say, one carried across a process boundary) is one of CorpusError's. */
export function isCorpusErrorCode(code: unknown): code is CorpusErrorCode {
  return (CORPUS_ERROR_CODES as readonly unknown[]).includes(code);
}
