import { CodedError } from '../coded-error.js';

/** Why a local model cannot serve; each message names the model and what to do. */
export type LocalModelErrorCode =
  /** Not in MODELS_DIR, and downloads are off or failed. */
  | 'model_missing'
  /** Its files are there but cannot be read or loaded (truncated, corrupt, not an ONNX graph). */
  | 'model_damaged'
  /** The model runtime (@huggingface/transformers, onnxruntime-node) is not installed or does not load here. */
  | 'runtime_unavailable'
  /** A model id that is not `owner/name`. */
  | 'model_id'
  /** The model's thread ended or failed. */
  | 'thread_failed';

export class LocalModelError extends CodedError<LocalModelErrorCode> {}
