// The path_prefix argument of search_documents and list_documents: one schema and one reading, so the
// two tools accept and understand the same prefixes.
import { z } from 'zod';
import { normalizePathPrefix } from '../../search/search-index.js';

/** Longest path_prefix accepted, in characters. */
export const PATH_PREFIX_MAX_CHARS = 1000;

/** The optional path_prefix argument; `verb` says what the tool does with matching documents ("search", "list"). */
export function pathPrefixSchema(verb: string) {
  return z
    .string({ error: 'must be a string such as "guides/"' })
    .max(PATH_PREFIX_MAX_CHARS, { error: `must be at most ${PATH_PREFIX_MAX_CHARS} characters` })
    .optional()
    .describe(`Only ${verb} documents whose source starts with this, e.g. "guides/".`);
}

/** The prefix as sources are written ("./guides/" → "guides/"); '' for none. */
export function pathPrefixOf(argument: string | undefined): string {
  return normalizePathPrefix(argument ?? '');
}
