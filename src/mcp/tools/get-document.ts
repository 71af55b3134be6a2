import { z } from 'zod';
import { pageAt } from '../../corpus/document.js';
import { defineTool } from './define-tool.js';
import type { DefinedTool } from './define-tool.js';
import { suggestionSentence } from './closest-sources.js';
import type { ToolLimits } from './tool-limits.js';
import { ToolError } from './tool-error.js';

export const MAX_CHARS_DEFAULT = 20_000;

const inputSchema = ({ maxDocumentChars }: ToolLimits) => {
  const defaultMaxChars = Math.min(MAX_CHARS_DEFAULT, maxDocumentChars);
  return z.strictObject({
    source: z
      .string({ error: 'must be a string such as "guides/deploy.md"' })
      .min(1, { error: 'must not be empty' })
      .max(2000, { error: 'must be at most 2000 characters' })
      .describe('The document path exactly as returned by search_documents or list_documents, e.g. "guides/deploy.md".'),
    offset: z
      .number({ error: 'must be a whole number of characters, 0 or more' })
      .int({ error: 'must be a whole number of characters, 0 or more' })
      .min(0, { error: 'must be 0 or more' })
      .default(0)
      .describe('Character offset to start reading from; use next_offset from the previous page, or start from a search result. Default 0.'),
    max_chars: z
      .number({ error: `must be a whole number from 1 to ${maxDocumentChars}` })
      .int({ error: `must be a whole number from 1 to ${maxDocumentChars}` })
      .min(1, { error: 'must be at least 1' })
      .max(maxDocumentChars, { error: `must be at most ${maxDocumentChars}` })
      .default(defaultMaxChars)
      .describe(`How many characters to return at most, 1–${maxDocumentChars}. Default ${defaultMaxChars}.`),
  });
};

const output = z.object({
  source: z.string(),
  title: z.string(),
  text: z.string().describe('The document text from offset, at most max_chars characters.'),
  offset: z.number().int(),
  total_chars: z.number().int().describe('Length of the whole document in characters.'),
  truncated: z.boolean().describe('True when the document continues after this page.'),
  next_offset: z.number().int().nullable().describe('Pass as offset to read the next page; null at the end.'),
  page: z.number().int().min(1).optional().describe('The page, from 1, that offset lies on; present for paginated documents (PDF).'),
  last_page: z.number().int().min(1).optional().describe('The page, from 1, of the last character returned; present for paginated documents (PDF).'),
});

export type GetDocumentOutput = z.output<typeof output>;

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** get_document with the given limits (built once per process). */
export const createGetDocument = (limits: ToolLimits): DefinedTool =>
  defineTool({
    name: 'get_document',
    title: 'Read a document',
    description:
      'Returns the text of one document, a page at a time: text from offset, at most max_chars characters ' +
      `(default ${Math.min(MAX_CHARS_DEFAULT, limits.maxDocumentChars)}), with total_chars, truncated and next_offset. Use it when a passage from ` +
      'search_documents or get_chunk is not enough and you need the surrounding document; pass a result\'s ' +
      'start as offset to jump to it. If truncated is true, call again with offset=next_offset to continue. ' +
      'Only documents in the index are served: source must be a path exactly as listed by list_documents.',
    input: inputSchema(limits),
    output,
    run({ source, offset, max_chars }, { index }): GetDocumentOutput {
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
      return {
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
      };
    },
  });

