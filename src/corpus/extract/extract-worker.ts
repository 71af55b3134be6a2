// The module a pool worker runs (see extraction-pool.ts): one extraction per task, its outcome as
// plain data, since only the message of an error thrown here would survive the thread boundary.
import type { DocumentFormat } from '../document.js';
import { extractDocument } from './extract-document.js';
import type { ExtractionLimits } from './extracted.js';
import { type Extracted, ExtractionError, type ExtractionErrorCode } from './extracted.js';

export interface ExtractionTask {
  format: DocumentFormat;
  input: string | Uint8Array;
  limits: ExtractionLimits;
}

export type ExtractionResult = { extracted: Extracted } | { skipped: string; code: ExtractionErrorCode };

export async function extractInWorker({ format, input, limits }: ExtractionTask): Promise<ExtractionResult> {
  try {
    return { extracted: await extractDocument(format, input, limits) };
  } catch (error) {
    if (error instanceof ExtractionError) return { skipped: error.message, code: error.code };
    throw error;
  }
}
