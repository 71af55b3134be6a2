// A tool error is an answer, not a crash: the message tells the model what was wrong and what to do,
// and the code lets logs and metrics tell kinds apart without reading the text.
import { CodedError } from '../../coded-error.js';

export type ToolErrorCode =
  | 'invalid_arguments'
  | 'unknown_source'
  | 'unknown_chunk'
  | 'malformed_chunk_id'
  | 'unknown_chunk_ids'
  | 'offset_out_of_range'
  | 'invalid_cursor'
  | 'stale_cursor'
  | 'index_unavailable'
  | 'index_not_ready'
  | 'index_damaged'
  | 'internal_error';

export class ToolError extends CodedError<ToolErrorCode> {}
