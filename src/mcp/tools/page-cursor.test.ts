// Cursors of list_documents and resources/list: tied to the listing (path_prefix) and to the index
// generation; stale, hand-made and altered cursors get an error that says what to do.
import { describe, expect, it } from 'vitest';
import type { Document } from '../../corpus/document.js';
import { SearchIndex } from '../../search/search-index.js';
import { IndexHolder } from '../index-holder.js';
import type { ServedCorpus } from '../index-holder.js';
import { McpRequestError } from '../mcp-request-error.js';
import { listResources } from '../resources.js';
import { createListDocuments } from './list-documents.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';
import { ToolError } from './tool-error.js';
import { DEFAULT_TOOL_LIMITS } from './tool-limits.js';

const listDocuments = createListDocuments(DEFAULT_TOOL_LIMITS);

const doc = (source: string): Document => ({ source, format: 'text', title: source, text: `Text of ${source}.`, bodyStart: 0, bytes: 20, sections: [] });
const SOURCES = ['a/1.txt', 'a/2.txt', 'a/3.txt', 'b/1.txt', 'b/2.txt', 'c.txt'];

function corpusGenerations(): [ServedCorpus, ServedCorpus] {
  const holder = new IndexHolder();
  const first = holder.set({ index: SearchIndex.build(SOURCES.map(doc)), skipped: [] });
  const second = holder.set({ index: SearchIndex.build([...SOURCES, 'a/4.txt'].map(doc)), skipped: [] });
  return [first, second];
}

async function list(corpus: ServedCorpus, args: Record<string, unknown>) {
  return (await listDocuments.call(args, corpus)) as { documents: Array<{ source: string }>; next_cursor: string | null };
}

async function refusal(corpus: ServedCorpus, args: Record<string, unknown>): Promise<ToolError> {
  try {
    await listDocuments.call(args, corpus);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('page cursors', () => {
  describe('list_documents', () => {
    it('pages through a listing with the cursors it issues', async () => {
      const [corpus] = corpusGenerations();
      const first = await list(corpus, { limit: 2 });
      const second = await list(corpus, { limit: 2, cursor: first.next_cursor });
      const third = await list(corpus, { limit: 2, cursor: second.next_cursor });
      expect([...first.documents, ...second.documents, ...third.documents].map((d) => d.source)).toEqual(SOURCES);
      expect(third.next_cursor).toBeNull();
    });

    it('refuses a cursor of an older generation as stale, saying to list again', async () => {
      const [old, current] = corpusGenerations();
      const { next_cursor } = await list(old, { limit: 2 });
      const error = await refusal(current, { limit: 2, cursor: next_cursor });
      expect(error.code).toBe('stale_cursor');
      expect(error.message).toMatch(/stale: the corpus was reloaded since it was issued \(index generation 1, now 2\).*List again from the first page/);
    });

    it('refuses a cursor issued for another path_prefix', async () => {
      const [corpus] = corpusGenerations();
      const { next_cursor } = await list(corpus, { path_prefix: 'a/', limit: 1 });
      expect(next_cursor).not.toBeNull();
      for (const other of [{}, { path_prefix: 'b/' }, { path_prefix: 'a' }]) {
        const error = await refusal(corpus, { ...other, limit: 1, cursor: next_cursor });
        expect(error.code).toBe('invalid_cursor');
        expect(error.message).toMatch(/was not issued by this server for this listing.*same path_prefix/);
      }
      expect((await list(corpus, { path_prefix: 'a/', limit: 1, cursor: next_cursor })).documents[0]?.source).toBe('a/2.txt');
    });

    it.each([
      ['an old-style position', Buffer.from('p1:2').toString('base64url')],
      ['a hand-made cursor in the current format', Buffer.from('c2.1.2.AAAAAAAAAAAAAAAA').toString('base64url')],
      ['garbage', 'garbage'],
      ['an over-long string', 'x'.repeat(10_000)],
    ])('refuses %s', async (_name, cursor) => {
      const [corpus] = corpusGenerations();
      expect((await refusal(corpus, { cursor })).code).toBe('invalid_cursor');
    });

    it('refuses an issued cursor whose position was altered', async () => {
      const [corpus] = corpusGenerations();
      const { next_cursor } = await list(corpus, { limit: 2 });
      const altered = Buffer.from(Buffer.from(next_cursor!, 'base64url').toString('utf8').replace('.2.', '.4.')).toString('base64url');
      expect(altered).not.toBe(next_cursor);
      expect((await refusal(corpus, { cursor: altered })).code).toBe('invalid_cursor');
    });
  });

  describe('resources/list', () => {
    it('pages with its own cursors, and refuses stale and list_documents cursors', async () => {
      const [old, current] = corpusGenerations();
      const page = listResources(old, undefined, 4);
      expect(listResources(old, page.nextCursor, 4).resources).toHaveLength(2);
      expect(() => listResources(current, page.nextCursor, 4)).toThrow(McpRequestError);
      expect(() => listResources(current, page.nextCursor, 4)).toThrow(/stale.*generation 1, now 2/);
      const { next_cursor } = await list(old, { limit: 4 });
      expect(() => listResources(old, next_cursor!, 4)).toThrow(/was not issued by this server for this listing/);
    });
  });

  describe('decodeCursor', () => {
    it('accepts the cursors of another process serving the same corpus at the same generation', () => {
      const scope = (index: SearchIndex) => ({ index, generation: 1, listing: 'resources/list' });
      const cursor = encodeCursor(3, scope(SearchIndex.build(SOURCES.map(doc))));
      expect(decodeCursor(cursor, scope(SearchIndex.build(SOURCES.map(doc))))).toEqual({ ok: true, position: 3 });
      expect(decodeCursor(cursor, scope(SearchIndex.build(SOURCES.slice(1).map(doc))))).toEqual({ ok: false, reason: 'foreign' });
    });
  });
});
