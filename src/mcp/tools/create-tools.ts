// The tool table: which tools the server offers, in the order tools/list shows them. Both protocol
// eras serve exactly this table; adding a tool here adds it to both.
import type { DefinedTool } from './define-tool.js';
import { getChunk } from './get-chunk.js';
import { createGetDocument } from './get-document.js';
import { createListDocuments } from './list-documents.js';
import { createRerankResults } from './rerank-results.js';
import { createSearchDocuments } from './search-documents.js';
import type { ToolLimits } from './tool-limits.js';

/** What the server can do beyond keywords, which changes search_documents' default mode and description. */
export interface ToolFeatures {
  /** An embeddings endpoint is configured. Default false. */
  semanticSearch?: boolean;
}

/** The tools the server offers under `limits`, in the order tools/list shows them. */
export function createTools(limits: ToolLimits, features: ToolFeatures = {}): readonly DefinedTool[] {
  return [createSearchDocuments(limits, features.semanticSearch ?? false), getChunk, createGetDocument(limits), createListDocuments(limits), createRerankResults(limits)];
}
