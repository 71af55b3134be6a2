import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { DefinedTool } from './define-tool.js';
import { cursorProblem, decodeCursor, encodeCursor } from './page-cursor.js';
import { pathPrefixOf, pathPrefixSchema } from './path-prefix.js';
import type { ToolLimits } from './tool-limits.js';
import { linker, withUrl } from './source-url.js';
import { ToolError } from './tool-error.js';

export const LIST_LIMIT_DEFAULT = 50;
/** Skipped files are reported on the first page only, and at most this many, to bound the response. */
export const SKIPPED_SHOWN_MAX = 50;

const inputSchema = ({ maxPageSize }: ToolLimits) => {
  const defaultLimit = Math.min(LIST_LIMIT_DEFAULT, maxPageSize);
  return z.strictObject({
    path_prefix: pathPrefixSchema('list'),
    cursor: z
      .string({ error: 'must be the next_cursor string from a previous list_documents call' })
      .optional()
      .describe('next_cursor of the previous page; omit for the first.'),
    limit: z
      .number({ error: `must be a whole number from 1 to ${maxPageSize}` })
      .int({ error: `must be a whole number from 1 to ${maxPageSize}` })
      .min(1, { error: 'must be at least 1' })
      .max(maxPageSize, { error: `must be at most ${maxPageSize}` })
      .default(defaultLimit)
      .describe('Documents per page.'),
  });
};

const output = z.object({
  documents: z.array(
    z.object({
      source: z.string(),
      title: z.string(),
      bytes: z.number().int(),
      chunks: z.number().int().describe('Passages it is split into.'),
    }),
  ),
  skipped: z
    .array(z.object({ path: z.string(), reason: z.string() }))
    .describe(`Files not indexed, and why (first page, at most ${SKIPPED_SHOWN_MAX}).`),
  total: z.number().int().describe('Documents matching path_prefix, all pages.'),
  next_cursor: z.string().nullable(),
});

export type ListDocumentsOutput = z.output<typeof output>;

/** list_documents with the given limits (built once per process). */
export const createListDocuments = (limits: ToolLimits): DefinedTool =>
  defineTool({
    name: 'list_documents',
    title: 'List documents',
    description:
      'Lists the documents by source (title, bytes, passages) and the files skipped, with why; paginated by ' +
      'cursor. Use it to see what the corpus covers, or to find a source for get_document.',
    input: inputSchema(limits),
    output,
    run({ path_prefix, cursor, limit }, corpus, { links }): ListDocumentsOutput {
      const { index, skipped, generation } = corpus;
      const urlOf = linker(links, corpus);
      const all = index.listDocuments();
      const prefix = pathPrefixOf(path_prefix);
      const matching = prefix ? all.filter((d) => d.source.startsWith(prefix)) : all;
      // A cursor belongs to one path_prefix: positions in another listing mean other documents.
      const scope = { index, generation, listing: `list_documents:${prefix}` };
      let start = 0;
      if (cursor !== undefined) {
        const check = decodeCursor(cursor, scope);
        if (!check.ok || check.position > matching.length) {
          const problem = check.ok ? ({ ok: false, reason: 'foreign' } as const) : check;
          throw new ToolError(
            problem.reason === 'stale' ? 'stale_cursor' : 'invalid_cursor',
            cursorProblem(problem, cursor, generation, 'call list_documents with the same path_prefix and no cursor, then follow its next_cursor'),
          );
        }
        start = check.position;
      }
      const page = matching.slice(start, start + limit);
      const next = start + page.length;
      return {
        documents: page.map((d) => withUrl(urlOf(d.source), { source: d.source, title: d.title, bytes: d.bytes, chunks: d.chunks })),
        skipped:
          start === 0
            ? skipped.filter((s) => !s.operatorOnly).slice(0, SKIPPED_SHOWN_MAX).map((s) => ({ path: s.path, reason: s.reason }))
            : [],
        total: matching.length,
        next_cursor: next < matching.length ? encodeCursor(next, scope) : null,
      };
    },
  });

