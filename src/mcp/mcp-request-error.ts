// A request the server refuses as a protocol error (not a tool error a model reads). The era-neutral
// core throws it with a machine-readable code; each era's adapter turns the code into its SDK's error
// class and its revision's JSON-RPC code, because the revisions disagree on some (resource not found
// is -32002 in 2025-11-25 and -32602 in 2026-07-28).
import { CodedError } from '../coded-error.js';

export type McpRequestErrorCode =
  /** tools/call named a tool this server does not offer. */
  | 'unknown_tool'
  /** A list request carried a cursor this server did not issue. */
  | 'invalid_cursor'
  /** resources/read named a URI that is not a document of the corpus. */
  | 'resource_not_found'
  /** The index was not built within the request timeout. */
  | 'index_not_ready'
  /** The index failed to build. */
  | 'index_unavailable';

export class McpRequestError extends CodedError<McpRequestErrorCode> {
  constructor(
    code: McpRequestErrorCode,
    message: string,
    /** JSON-RPC `error.data`, e.g. `{ uri }` for resource_not_found. */
    readonly data?: Record<string, unknown>,
  ) {
    super(code, message);
  }
}

/** Runs `work`, turning the core's typed refusals into an era's own protocol error with `translate`. */
export async function translateRequestErrors<T>(work: () => Promise<T>, translate: (error: McpRequestError) => Error): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof McpRequestError ? translate(error) : error;
  }
}
