import { z } from 'zod';
import { rerankLocally } from '../../search/rerank.js';
import { defineTool } from './define-tool.js';
import { explainUnknownChunk } from './get-chunk.js';
import { ToolError } from './tool-error.js';
import type { ToolLimits } from './tool-limits.js';
import type { DefinedTool } from './define-tool.js';
import { linker, withUrl } from './source-url.js';
import { roundScore } from './score.js';

export const RERANK_MAX_IDS = 50;

const inputSchema = ({ maxQueryChars }: ToolLimits) => z.strictObject({
  query: z
    .string({ error: 'must be a string: the question the passages should answer' })
    .trim()
    .min(1, { error: 'must contain at least one non-blank character' })
    .max(maxQueryChars, { error: `must be at most ${maxQueryChars} characters after trimming` })
    .describe('The question to order the passages by, e.g. "how are sessions expired".'),
  chunk_ids: z
    .array(z.string({ error: 'each id must be a string such as "guides/deploy.md#3"' }).min(1, { error: 'ids must not be empty' }).max(2000), {
      error: 'must be an array of chunk ids',
    })
    .min(1, { error: 'must hold at least one chunk id' })
    .max(RERANK_MAX_IDS, { error: `must hold at most ${RERANK_MAX_IDS} chunk ids` })
    .refine((ids) => new Set(ids).size === ids.length, { error: 'must not repeat a chunk id' })
    .describe(`1–${RERANK_MAX_IDS} distinct chunk ids from search_documents, e.g. ["guides/deploy.md#3"].`),
});

const result = z.object({
  chunk_id: z.string(),
  source: z.string(),
  title: z.string(),
  heading: z.string(),
  score: z.number().describe('Compare within this call only.'),
  snippet: z.string(),
  start: z.number().int(),
  end: z.number().int(),
});

const output = z.object({
  query: z.string(),
  method: z
    .enum(['rerank_model', 'keyword', 'keyword+semantic'])
    .describe('What ordered them: the rerank model, BM25, or BM25 with embeddings.'),
  results: z.array(result),
  note: z.string().optional(),
});

export type RerankResultsOutput = z.output<typeof output>;

/** rerank_results with the given limits (built once per process). */
export const createRerankResults = (limits: ToolLimits): DefinedTool => defineTool({
  name: 'rerank_results',
  title: 'Rerank passages',
  description:
    `Orders up to ${RERANK_MAX_IDS} chunk ids from search_documents by how well ` +
    'each answers one query, best first: by a rerank model when the server has one, else by words and, with ' +
    'embeddings, meaning. Returns the given chunks with snippets; read the best with get_chunk.',
  input: inputSchema(limits),
  output,
  async run({ query, chunk_ids }, corpus, { semantic, onFallback, links }): Promise<RerankResultsOutput> {
    const { index } = corpus;
    const chunks: number[] = [];
    const unknown: string[] = [];
    for (const id of chunk_ids) {
      const n = index.chunkNumber(id);
      if (n === undefined) unknown.push(explainUnknownChunk(id, index).message.replace(/\.$/, ''));
      else chunks.push(n);
    }
    if (unknown.length > 0) {
      throw new ToolError(
        'unknown_chunk_ids',
        `rerank_results got ${unknown.length} chunk id${unknown.length === 1 ? '' : 's'} the index does not hold: ${unknown.join('; ')}. ` +
          'Pass ids exactly as search_documents returned them.',
      );
    }
    const notes: string[] = [];
    let method: RerankResultsOutput['method'] = 'keyword';
    let order: Array<{ index: number; score: number }> | undefined;
    if (semantic?.rerankConfigured) {
      const reranked = await semantic.rerank(
        query,
        chunks.map((c) => index.passage(c)),
      );
      if (reranked.ok) {
        method = 'rerank_model';
        order = reranked.scores.map((score, i) => ({ index: i, score })).sort((a, b) => b.score - a.score || a.index - b.index);
      } else {
        notes.push(`Reranked without the rerank model: ${reranked.reason}.`);
        onFallback?.();
      }
    }
    if (order === undefined) {
      const vectors = semantic?.enabled ? semantic.vectorsFor(index) : undefined;
      let queryVector: Float32Array | undefined;
      if (semantic?.enabled) {
        const embedded = vectors === undefined ? undefined : await semantic.embedQuery(query, vectors.dimensions);
        if (embedded?.ok) queryVector = embedded.vector;
        else {
          notes.push(`Reranked by keywords only: ${embedded !== undefined && !embedded.ok ? embedded.reason : semantic.unavailableReason()}.`);
          onFallback?.();
        }
      }
      order = rerankLocally(index, chunks, query, vectors, queryVector);
      if (queryVector !== undefined) method = 'keyword+semantic';
    }
    const hits = index.hits(
      query,
      order.map((o) => chunks[o.index] as number),
      order.map((o) => o.score),
    );
    const urlOf = linker(links, corpus);
    const results = hits.map((h) => withUrl(urlOf(h.source, h.start), {
      chunk_id: h.chunkId,
      source: h.source,
      title: h.title,
      heading: h.heading,
      score: roundScore(h.score),
      snippet: h.snippet,
      start: h.start,
      end: h.end,
    }));
    return notes.length > 0 ? { query, method, results, note: notes.join(' ') } : { query, method, results };
  },
});

