import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { DefinedTool } from './define-tool.js';
import { DEFAULT_TOOL_LIMITS } from './tool-limits.js';
import type { ToolLimits } from './tool-limits.js';

export const SEARCH_TOP_K_DEFAULT = 5;
export const SEARCH_TOP_K_MAX = DEFAULT_TOOL_LIMITS.maxTopK;
export const QUERY_MAX_CHARS = DEFAULT_TOOL_LIMITS.maxQueryChars;

const inputSchema = ({ maxQueryChars, maxTopK }: ToolLimits) => {
  const defaultTopK = Math.min(SEARCH_TOP_K_DEFAULT, maxTopK);
  return z.strictObject({
    query: z
      .string({ error: 'must be a string of search words' })
      .trim()
      .min(1, { error: 'must contain at least one non-blank character' })
      .max(maxQueryChars, { error: `must be at most ${maxQueryChars} characters after trimming` })
      .describe(`Words to look for, e.g. "configure session timeout". Plain keywords work best; 1–${maxQueryChars} characters.`),
    top_k: z
      .number({ error: `must be a whole number from 1 to ${maxTopK}` })
      .int({ error: `must be a whole number from 1 to ${maxTopK}` })
      .min(1, { error: `must be at least 1` })
      .max(maxTopK, { error: `must be at most ${maxTopK}` })
      .default(defaultTopK)
      .describe(`How many results to return, 1–${maxTopK}. Default ${defaultTopK}.`),
    path_prefix: z
      .string({ error: 'must be a string such as "guides/"' })
      .max(1000, { error: 'must be at most 1000 characters' })
      .optional()
      .describe('Only search documents whose source starts with this, e.g. "guides/". Omit to search everything.'),
  });
};

const hit = z.object({
  chunk_id: z.string().describe('Pass to get_chunk to read the whole passage.'),
  source: z.string().describe('Document path relative to the corpus root; pass to get_document.'),
  title: z.string(),
  heading: z.string().describe('The section heading the passage sits under ("" if none).'),
  score: z.number().describe('BM25 relevance; only meaningful relative to other results of the same query.'),
  snippet: z.string().describe('A short excerpt around the matching words.'),
  start: z.number().int().describe('Character offset of the passage in the document (get_document offset).'),
  end: z.number().int(),
});

const output = z.object({
  query: z.string(),
  results: z.array(hit),
  note: z.string().optional().describe('Present when there is something to know about the results, e.g. nothing matched.'),
});

export type SearchDocumentsOutput = z.output<typeof output>;

/** search_documents with the given limits (built once per process). */
export const createSearchDocuments = (limits: ToolLimits): DefinedTool =>
  defineTool({
    name: 'search_documents',
    title: 'Search documents',
    description:
      'Full-text (BM25) search over the document corpus. Returns the best-matching passages, each with a ' +
      'chunk_id, its document source and title, the section heading, a relevance score, a short snippet and ' +
      'its character offsets. Use it first to find where a topic is covered. Then call get_chunk with a ' +
      'chunk_id to read the whole passage, or get_document with the source (and start as offset) to read on. ' +
      'Matching is by words (stemmed, case-insensitive), not meaning: if nothing matches, try synonyms or ' +
      'fewer words, or call list_documents to see what the corpus contains.',
    input: inputSchema(limits),
    output,
    run({ query, top_k, path_prefix }, { index }): SearchDocumentsOutput {
      const hits = index.search(query, { topK: top_k, pathPrefix: path_prefix });
      const results = hits.map((h) => ({
        chunk_id: h.chunkId,
        source: h.source,
        title: h.title,
        heading: h.heading,
        score: Math.round(h.score * 1e4) / 1e4,
        snippet: h.snippet,
        start: h.start,
        end: h.end,
      }));
      if (results.length > 0) return { query, results };
      let note: string;
      if (path_prefix !== undefined && !index.listDocuments().some((d) => d.source.startsWith(path_prefix))) {
        note = `No document's source starts with path_prefix "${path_prefix}". Call list_documents to see the sources, or search again without path_prefix.`;
      } else {
        note =
          `Nothing matched "${query}"${path_prefix !== undefined ? ` under "${path_prefix}"` : ''}. ` +
          'Try different or fewer words, or synonyms' +
          (path_prefix !== undefined ? ', drop path_prefix' : '') +
          ', or call list_documents to see what the corpus covers.';
      }
      return { query, results, note };
    },
  });

export const searchDocuments = createSearchDocuments(DEFAULT_TOOL_LIMITS);
