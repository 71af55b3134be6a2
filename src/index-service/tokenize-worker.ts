// The module a build's pool thread runs (see parallel-build.ts): one batch of documents per task,
// chunked, tokenized and counted with the batch's own numbering.
import type { ChunkerOptions } from '../search/chunker.js';
import { tokenizeBatch, type BatchDocument, type TokenizedBatch } from '../search/tokenize-batch.js';

export interface TokenizeTask {
  documents: BatchDocument[];
  options: ChunkerOptions;
}

export function tokenizeInWorker({ documents, options }: TokenizeTask): TokenizedBatch {
  return tokenizeBatch(documents, options);
}
