import { z } from 'zod';
import { hybridSearch, SEARCH_MODES, type RankedHit, type SearchMode } from '../../search/hybrid-search.js';
import { defineTool } from './define-tool.js';
import { pathPrefixOf, pathPrefixSchema } from './path-prefix.js';
import type { DefinedTool, ToolContext } from './define-tool.js';
import type { ToolLimits } from './tool-limits.js';
import type { ServedCorpus } from '../index-holder.js';
import { linker, withUrl } from './source-url.js';
import { roundScore } from './score.js';

export const SEARCH_TOP_K_DEFAULT = 5;

const MODE_HELP =
  '"keyword": words (stemmed), for exact names and error messages. "semantic": meaning, finds paraphrases, ' +
  'may miss a rare exact term.';

const inputSchema = ({ maxQueryChars, maxTopK }: ToolLimits, semantic: boolean) => {
  const defaultTopK = Math.min(SEARCH_TOP_K_DEFAULT, maxTopK);
  const defaultMode: SearchMode = semantic ? 'hybrid' : 'keyword';
  return z.strictObject({
    query: z
      .string({ error: 'must be a string of search words' })
      .trim()
      .min(1, { error: 'must contain at least one non-blank character' })
      .max(maxQueryChars, { error: `must be at most ${maxQueryChars} characters after trimming` })
      .describe(
        semantic
          ? 'Keywords or a plain question, e.g. "how do I set the session timeout".'
          : 'Words to look for, e.g. "configure session timeout". Plain keywords work best.',
      ),
    top_k: z
      .number({ error: `must be a whole number from 1 to ${maxTopK}` })
      .int({ error: `must be a whole number from 1 to ${maxTopK}` })
      .min(1, { error: `must be at least 1` })
      .max(maxTopK, { error: `must be at most ${maxTopK}` })
      .default(defaultTopK)
      .describe('How many results to return.'),
    path_prefix: pathPrefixSchema('search'),
    mode: z
      .enum(SEARCH_MODES as [SearchMode, ...SearchMode[]], { error: `must be one of ${SEARCH_MODES.map((m) => `"${m}"`).join(', ')}` })
      .default(defaultMode)
      .describe(
        semantic
          ? `${MODE_HELP} "hybrid": both fused, the best general choice.`
          : '"keyword" matches words (stemmed). "semantic" (meaning) and "hybrid" (both) need embeddings, which this server lacks: they answer by keywords.',
      ),
  });
};

const hit = z.object({
  chunk_id: z.string(),
  source: z.string(),
  title: z.string(),
  heading: z.string(),
  score: z.number().describe('Compare within one query only.'),
  found_by: z.array(z.enum(['keyword', 'semantic'])),
  snippet: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  page: z.number().int().min(1).optional().describe('First page (PDF).'),
  last_page: z.number().int().min(1).optional().describe('Last page (PDF).'),
  url: z.string().optional(),
});

const output = z.object({
  query: z.string(),
  mode: z.enum(['hybrid', 'keyword', 'semantic']).describe('"keyword" when semantic search was unavailable.'),
  results: z.array(hit),
  note: z.string().optional(),
});

export type SearchDocumentsOutput = z.output<typeof output>;


/** The ranking in `mode`, falling back to keywords (with the reason) when the embeddings cannot help. */
async function rank(
  query: string,
  mode: SearchMode,
  topK: number,
  pathPrefix: string | undefined,
  { index }: ServedCorpus,
  { semantic, onFallback }: ToolContext,
): Promise<{ used: SearchMode; hits: RankedHit[]; fallback?: string }> {
  if (mode === 'keyword') return { used: mode, hits: hybridSearch(index, undefined, query, { mode, topK, pathPrefix }) };
  let fallback: string;
  if (semantic === undefined || !semantic.enabled) {
    fallback = `mode "${mode}" needs an embeddings endpoint, and this server has none configured`;
  } else {
    const vectors = semantic.vectorsFor(index);
    const embedded = vectors === undefined ? undefined : await semantic.embedQuery(query, vectors.dimensions);
    if (vectors !== undefined && embedded?.ok === true) {
      return { used: mode, hits: hybridSearch(index, vectors, query, { mode, topK, pathPrefix, queryVector: embedded.vector }) };
    }
    fallback = embedded !== undefined && !embedded.ok ? embedded.reason : semantic.unavailableReason();
    onFallback?.();
  }
  return { used: 'keyword', hits: hybridSearch(index, undefined, query, { mode: 'keyword', topK, pathPrefix }), fallback };
}

/** search_documents with the given limits (built once per process); `semantic` says whether embeddings are configured. */
export const createSearchDocuments = (limits: ToolLimits, semantic = false): DefinedTool =>
  defineTool({
    name: 'search_documents',
    title: 'Search documents',
    description:
      (semantic
        ? 'Searches the corpus by words (BM25), meaning (embeddings) or both (hybrid). '
        : 'Full-text (BM25) search of the corpus. ') +
      'Returns the best-matching passages. Then read one with get_chunk, read on with get_document (source, ' +
      'offset=start), or order chunk_ids gathered for one question with rerank_results. ' +
      (semantic
        ? 'If nothing fits, rephrase, change mode, or call list_documents.'
        : 'Matching is by words (stemmed, case-insensitive), not meaning: if nothing matches, try synonyms or ' +
          'fewer words, or call list_documents.'),
    input: inputSchema(limits, semantic),
    output,
    async run({ query, top_k, path_prefix, mode }, corpus, context): Promise<SearchDocumentsOutput> {
      const { used, hits, fallback } = await rank(query, mode, top_k, path_prefix, corpus, context);
      const urlOf = linker(context.links, corpus);
      const results = hits.map(({ hit: h, score, foundBy }) => withUrl(urlOf(h.source, h.start), {
        chunk_id: h.chunkId,
        source: h.source,
        title: h.title,
        heading: h.heading,
        score: roundScore(score),
        found_by: foundBy,
        snippet: h.snippet,
        start: h.start,
        end: h.end,
        ...(h.page === undefined ? {} : { page: h.page, last_page: h.lastPage ?? h.page }),
      }));
      const notes: string[] = [];
      if (fallback !== undefined) notes.push(`These are keyword results: ${fallback}.`);
      if (results.length === 0) {
        const { index } = corpus;
        if (path_prefix !== undefined && !index.listDocuments().some((d) => d.source.startsWith(pathPrefixOf(path_prefix)))) {
          notes.push(`No document's source starts with path_prefix "${path_prefix}". Call list_documents to see the sources, or search again without path_prefix.`);
        } else if (used === 'keyword' && index.onlyStopWords(query)) {
          notes.push(
            `Every word of "${query}" is a stop word (such as "the", "and", "of"), which keyword search ignores. ` +
              'Search for the words that carry the meaning: names, terms, rare words.',
          );
        } else {
          notes.push(
            `Nothing matched "${query}"${path_prefix !== undefined ? ` under "${path_prefix}"` : ''}. ` +
              'Try different or fewer words, or synonyms' +
              (path_prefix !== undefined ? ', drop path_prefix' : '') +
              ', or call list_documents to see what the corpus covers.',
          );
        }
      }
      return notes.length > 0 ? { query, mode: used, results, note: notes.join(' ') } : { query, mode: used, results };
    },
  });

