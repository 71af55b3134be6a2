// The tool table: which tools the server offers, in the order tools/list shows them. Both protocol
// eras serve exactly this table; adding a tool here adds it to both.
import type { DefinedTool } from './define-tool.js';
import { getChunk } from './get-chunk.js';
import { createGetDocument } from './get-document.js';
import { createListDocuments } from './list-documents.js';
import { createSearchDocuments } from './search-documents.js';
import { DEFAULT_TOOL_LIMITS } from './tool-limits.js';
import type { ToolLimits } from './tool-limits.js';

/** The tools the server offers under `limits`, in the order tools/list shows them. */
export function createTools(limits: ToolLimits): readonly DefinedTool[] {
  return [createSearchDocuments(limits), getChunk, createGetDocument(limits), createListDocuments(limits)];
}

/** The tools with the default limits. */
export const TOOLS: readonly DefinedTool[] = createTools(DEFAULT_TOOL_LIMITS);
