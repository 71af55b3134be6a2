// Every indexed document is also an MCP resource, for clients that let a user attach documents to a
// conversation. URIs use a file-less scheme so they never look like (or resolve to) a path on the
// server's disk: `corpus:///<source>`, each path segment percent-encoded, e.g.
// `corpus:///guides/getting%20started.md`.
import type { ListResourcesResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { DocumentFormat } from '../corpus/document.js';
import { formatInfo } from '../corpus/formats.js';
import type { ServedCorpus } from './index-holder.js';
import { McpRequestError } from './mcp-request-error.js';
import { cursorProblem, decodeCursor, encodeCursor } from './tools/page-cursor.js';
import { DEFAULT_TOOL_LIMITS } from './tools/tool-limits.js';

export const RESOURCE_URI_PREFIX = 'corpus:///';
export const RESOURCES_PAGE_SIZE = 100;

export function resourceUri(source: string): string {
  return RESOURCE_URI_PREFIX + source.split('/').map(encodeURIComponent).join('/');
}

/** The source a URI names, or undefined if it is not a well-formed corpus URI. */
export function sourceOfUri(uri: string): string | undefined {
  if (!uri.startsWith(RESOURCE_URI_PREFIX)) return undefined;
  try {
    return uri.slice(RESOURCE_URI_PREFIX.length).split('/').map(decodeURIComponent).join('/');
  } catch {
    return undefined;
  }
}

/** The MIME type of the text served for a document: HTML, PDF and DOCX are served as their extracted text. */
export function mimeTypeOf(format: DocumentFormat): string {
  return formatInfo(format).servedAs;
}

export function listResources({ index, generation }: ServedCorpus, cursor: string | undefined, pageSize = RESOURCES_PAGE_SIZE): ListResourcesResult {
  const all = index.listDocuments();
  const scope = { index, generation, listing: 'resources/list' };
  let start = 0;
  if (cursor !== undefined) {
    const check = decodeCursor(cursor, scope);
    if (!check.ok || check.position > all.length) {
      const problem = check.ok ? ({ ok: false, reason: 'foreign' } as const) : check;
      throw new McpRequestError('invalid_cursor', cursorProblem(problem, cursor, generation, 'pass nextCursor from the previous resources/list result, or omit cursor'));
    }
    start = check.position;
  }
  const page = all.slice(start, start + pageSize);
  const next = start + page.length;
  return {
    resources: page.map((d) => ({
      uri: resourceUri(d.source),
      name: d.source,
      title: d.title,
      mimeType: mimeTypeOf(d.format),
      // The text resources/read serves (whole; a read past MAX_DOCUMENT_CHARS is cut), not the file.
      size: d.textBytes,
    })),
    ...(next < all.length ? { nextCursor: encodeCursor(next, scope) } : {}),
  };
}

/**
 * A document as a resource. MCP's resources/read has no paging, so a document longer than
 * `maxChars` (MAX_DOCUMENT_CHARS, the same bound as get_document's pages) is cut there, and the text
 * ends with a line saying how to read the rest with get_document; `_meta` says so too.
 */
export function readResource({ index }: ServedCorpus, uri: string, maxChars = DEFAULT_TOOL_LIMITS.maxDocumentChars): ReadResourceResult {
  const source = sourceOfUri(uri);
  const document = source === undefined ? undefined : index.getDocument(source);
  if (!document) {
    // `data.uri` names the request's URI, as the specification asks. The message quotes only a
    // corpus URI: any other scheme (file:///etc/passwd) would read as if the server had looked there.
    const what = source === undefined ? `not a ${RESOURCE_URI_PREFIX} URI` : `"${uri.slice(0, 200)}"`;
    throw new McpRequestError('resource_not_found', `Resource not found: ${what}; use a uri from resources/list (${RESOURCE_URI_PREFIX}<source>)`, { uri });
  }
  const content = { uri: resourceUri(document.source), mimeType: mimeTypeOf(document.format) };
  if (document.text.length <= maxChars) return { contents: [{ ...content, text: document.text }] };
  const text =
    document.text.slice(0, maxChars) +
    `\n\n[truncated: this resource shows the first ${maxChars} of ${document.text.length} characters; ` +
    `call get_document with source ${JSON.stringify(document.source)} and offset ${maxChars} for the rest]`;
  return { contents: [{ ...content, text, _meta: { truncated: true, shownChars: maxChars, totalChars: document.text.length } }] };
}
