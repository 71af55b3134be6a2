import { z } from 'zod';
import { chunkId as makeChunkId, parseChunkId } from '../../search/chunk-id.js';
import type { SearchIndex } from '../../search/search-index.js';
import { defineTool } from './define-tool.js';
import { suggestionSentence } from './closest-sources.js';
import { linker, withUrl } from './source-url.js';
import { ToolError } from './tool-error.js';

const input = z.strictObject({
  chunk_id: z
    .string({ error: 'must be a string such as "guides/deploy.md#3"' })
    .min(1, { error: 'must not be empty' })
    .max(2000, { error: 'must be at most 2000 characters' })
    .describe('From search_documents or prev_chunk_id/next_chunk_id, e.g. "guides/deploy.md#3".'),
});

const output = z.object({
  chunk_id: z.string(),
  source: z.string(),
  title: z.string(),
  heading: z.string(),
  text: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  prev_chunk_id: z.string().nullable(),
  next_chunk_id: z.string().nullable(),
  page: z.number().int().min(1).optional().describe('First page (PDF).'),
  last_page: z.number().int().min(1).optional().describe('Last page (PDF).'),
  url: z.string().optional(),
});

export type GetChunkOutput = z.output<typeof output>;

/** Why `chunkId` is not in the index, in words the caller can act on. */
export function explainUnknownChunk(chunkId: string, index: SearchIndex): ToolError {
  const parsed = parseChunkId(chunkId);
  if (parsed === undefined) {
    return new ToolError(
      'malformed_chunk_id',
      `chunk_id "${chunkId}" is not of the form <source>#<n>, e.g. "guides/deploy.md#0". ` +
        'Take chunk ids from search_documents results or from prev_chunk_id/next_chunk_id.',
    );
  }
  const { source } = parsed;
  const document = index.getDocument(source);
  if (!document) {
    return new ToolError(
      'unknown_source',
      `unknown chunk_id "${chunkId}": the index holds no document "${source}".` +
        suggestionSentence(source, index.listDocuments().map((d) => d.source)),
    );
  }
  const count = document.chunkCount;
  return new ToolError(
    'unknown_chunk',
    `unknown chunk_id "${chunkId}": ${source} has ${count} chunk${count === 1 ? '' : 's'}` +
      (count > 0 ? ` (${makeChunkId(source, 0)} to ${makeChunkId(source, count - 1)})` : '') +
      '. Use an id in that range, or read the document with get_document.',
  );
}

export const getChunk = defineTool({
  name: 'get_chunk',
  title: 'Read a passage',
  description:
    'Returns one passage (chunk) in full, with its offsets in the document and, for PDFs, its pages; ' +
    'prev_chunk_id/next_chunk_id lead to its neighbours. Use it to read a search_documents result; for more, ' +
    'call get_document with the source and offset=start.',
  input,
  output,
  run({ chunk_id }, corpus, { links }): GetChunkOutput {
    const { index } = corpus;
    const chunk = index.getChunk(chunk_id);
    if (!chunk) throw explainUnknownChunk(chunk_id, index);
    return withUrl(linker(links, corpus)(chunk.source, chunk.start), {
      chunk_id: chunk.chunkId,
      source: chunk.source,
      title: chunk.title,
      heading: chunk.heading,
      text: chunk.text,
      start: chunk.start,
      end: chunk.end,
      prev_chunk_id: chunk.prevChunkId,
      next_chunk_id: chunk.nextChunkId,
      ...(chunk.page === undefined ? {} : { page: chunk.page, last_page: chunk.lastPage ?? chunk.page }),
    });
  },
});
