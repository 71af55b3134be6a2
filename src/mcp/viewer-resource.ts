// The MCP Apps view (ui://corpus-mcp/viewer): one HTML file built from src/view/ by `npm run build`,
// handed to the service by the composition root, served by resources/read, and named in the `_meta`
// of the tools whose results it shows. A host without the Apps extension ignores the `_meta`; the
// results a model reads are the same with the view or without.
import type { ReadResourceResult, Tool } from '@modelcontextprotocol/sdk/types.js';

export const VIEWER_URI = 'ui://corpus-mcp/viewer';
/** The MIME type MCP Apps hosts render (the extension's RESOURCE_MIME_TYPE). */
export const VIEWER_MIME_TYPE = 'text/html;profile=mcp-app';
/**
 * The tools that name the view: the search. The view shows get_chunk's and get_document's results
 * too when a host opens it for them, but naming them would take tools/list, which every session pays
 * for in its context, past its 8,000-character bound.
 */
export const VIEWER_TOOLS: ReadonlySet<string> = new Set(['search_documents']);

// The extension's key only: the flat "ui/resourceUri" older hosts read is left out, for the same bound.
const VIEWER_META = Object.freeze({ ui: Object.freeze({ resourceUri: VIEWER_URI }) });

/** `listing` with the view named in its `_meta` when the view shows that tool's results. */
export function withViewer(listing: Tool): Tool {
  return VIEWER_TOOLS.has(listing.name) ? Object.freeze({ ...listing, _meta: { ...listing._meta, ...VIEWER_META } }) : listing;
}

/** resources/read of VIEWER_URI. */
export function readViewer(html: string): ReadResourceResult {
  return { contents: [{ uri: VIEWER_URI, mimeType: VIEWER_MIME_TYPE, text: html }] };
}
