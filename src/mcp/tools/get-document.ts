import { z } from 'zod';
import { pageAt } from '../../corpus/document.js';
import { defineTool } from './define-tool.js';
import type { DefinedTool } from './define-tool.js';
import { suggestionSentence } from './closest-sources.js';
import type { ToolLimits } from './tool-limits.js';
import { linker, withUrl } from './source-url.js';
import { ToolError } from './tool-error.js';

export const MAX_CHARS_DEFAULT = 20_000;

const inputSchema = ({ maxDocumentChars }: ToolLimits) => {
  const defaultMaxChars = Math.min(MAX_CHARS_DEFAULT, maxDocumentChars);
  return z.strictObject({
    source: z
      .string({ error: 'must be a string such as "guides/deploy.md"' })
      .min(1, { error: 'must not be empty' })
      .max(2000, { error: 'must be at most 2000 characters' })
      .describe('A source exactly as given by search_documents or list_documents, e.g. "guides/deploy.md".'),
    offset: z
      .number({ error: 'must be a whole number of characters, 0 or more' })
      .int({ error: 'must be a whole number of characters, 0 or more' })
      .min(0, { error: 'must be 0 or more' })
      .default(0)
      .describe('Character offset to read from: a next_offset, or a result\'s start.'),
    max_chars: z
      .number({ error: `must be a whole number from 1 to ${maxDocumentChars}` })
      .int({ error: `must be a whole number from 1 to ${maxDocumentChars}` })
      .min(1, { error: 'must be at least 1' })
      .max(maxDocumentChars, { error: `must be at most ${maxDocumentChars}` })
      .default(defaultMaxChars)
      .describe('Characters to return at most.'),
  });
};

const output = z.object({
  source: z.string(),
  title: z.string(),
  text: z.string(),
  offset: z.number().int(),
  total_chars: z.number().int(),
  truncated: z.boolean(),
  next_offset: z.number().int().nullable(),
  page: z.number().int().min(1).optional().describe('Page of offset (PDF).'),
  last_page: z.number().int().min(1).optional().describe('Page of the last character (PDF).'),
});

export type GetDocumentOutput = z.output<typeof output>;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** get_document with the given limits (built once per process). */
export const createGetDocument = (limits: ToolLimits): DefinedTool =>
  defineTool({
    name: 'get_document',
    title: 'Read a document',
    description:
      'Returns a document\'s text from offset, at most max_chars characters; while truncated, call again with ' +
      'offset=next_offset. Use it when a passage is not enough (a result\'s start as offset jumps to it). ' +
      'Only sources in the index, as list_documents names them.',
    input: inputSchema(limits),
    output,
    run({ source, offset, max_chars }, corpus, { links }): GetDocumentOutput {
      const { index } = corpus;
      const document = index.getDocument(source);
      if (!document) {
        throw new ToolError(
          'unknown_source',
          `source "${source.length > 200 ? `${source.slice(0, 200)}...` : source}" is not a document in the index; ` +
            'only paths exactly as listed by list_documents are served (relative to the corpus root, no "../", no absolute paths).' +
            suggestionSentence(source, index.listDocuments().map((d) => d.source)),
        );
      }
      const total = document.text.length;
      if (offset > total || (offset === total && total > 0)) {
        throw new ToolError(
          'offset_out_of_range',
          `offset ${offset} is past the end of ${source}, which has ${total} characters; use an offset from 0 to ${Math.max(total - 1, 0)}.`,
        );
      }
      let end = Math.min(offset + max_chars, total);
      // Never split a surrogate pair: a page ending mid-character would corrupt both pages.
      if (end < total && end - offset > 1 && isHighSurrogate(document.text.charCodeAt(end - 1))) end -= 1;
      const truncated = end < total;
      return withUrl(linker(links, corpus)(document.source, offset), {
        source: document.source,
        title: document.title,
        text: document.text.slice(offset, end),
        offset,
        total_chars: total,
        truncated,
        next_offset: truncated ? end : null,
        ...(document.pages === undefined
          ? {}
          : { page: pageAt(document.pages, offset) ?? 1, last_page: pageAt(document.pages, Math.max(offset, end - 1)) ?? 1 }),
      });
    },
  });

