// End-to-end: the real app on a real socket, driven by the MCP SDK's Client over Streamable HTTP.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTools } from '../src/mcp/tools/create-tools.js';
import { DEFAULT_TOOL_LIMITS } from '../src/mcp/tools/tool-limits.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { LONG_DOC, SAMPLE_FILES, SAMPLE_SOURCES } from './support/sample-corpus.js';

type Structured = Record<string, unknown>;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The structured result of a successful call, checked to equal the JSON of its text block. */
async function ok<T = Structured>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await call(client, name, args);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  const text = (result.content[0] as { type: string; text: string }).text;
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** The message of a tool error (isError: true). */
async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await call(client, name, args);
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  return (result.content[0] as { text: string }).text;
}

describe('corpus-mcp over Streamable HTTP', () => {
  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES });
    await writeFile(join(server.workDir, 'secret.txt'), 'TOP SECRET outside the corpus');
    ({ client } = await connectClient(server.mcpUrl));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  describe('initialize', () => {
    it('reports the server, its tools, resources and logging capabilities, and instructions', () => {
      expect(client.getServerVersion()?.name).toBe('corpus-mcp');
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, logging: {} });
      expect(client.getInstructions()).toMatch(/search_documents/);
    });

    it('names in its instructions every tool that tools/list returns', async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) expect(client.getInstructions()).toContain(tool.name);
    });
  });

  describe('tools/list', () => {
    it('lists the five read-only tools with input and output schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['search_documents', 'get_chunk', 'get_document', 'list_documents', 'rerank_results']);
      for (const tool of tools) {
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.description!.length).toBeGreaterThan(150);
      }
      const search = tools.find((t) => t.name === 'search_documents')!;
      expect(search.inputSchema.required).toEqual(['query']);
      expect(search.inputSchema.properties?.top_k).toMatchObject({ minimum: 1, maximum: 50, default: 5 });
      // Without an embeddings endpoint the default mode is keyword, and the description says matching is by words.
      expect(search.inputSchema.properties?.mode).toMatchObject({ default: 'keyword' });
      expect(search.description).toMatch(/Matching is by words/);
    });

    // Every session pays for this list in its context: a bound, and nothing a model needs cut from it.
    it('is at most 8,000 characters of compact JSON, with every tool and every argument described', async () => {
      const listed = await client.listTools();
      expect(JSON.stringify(listed).length).toBeLessThanOrEqual(8000);
      const withEmbeddings = { tools: createTools(DEFAULT_TOOL_LIMITS, { semanticSearch: true }).map((t) => t.listing) };
      expect(JSON.stringify(withEmbeddings).length).toBeLessThanOrEqual(8000);
      for (const { tools } of [listed, withEmbeddings]) {
        for (const tool of tools) {
          expect(tool.title, tool.name).toBeTruthy();
          expect(tool.description!.length, tool.name).toBeGreaterThan(150);
          const properties = Object.entries(tool.inputSchema.properties ?? {}) as Array<[string, { description?: string }]>;
          expect(properties.length, tool.name).toBeGreaterThan(0);
          for (const [name, property] of properties) expect(property.description?.length ?? 0, `${tool.name}.${name}`).toBeGreaterThan(15);
        }
      }
    });
  });

  describe('search_documents', () => {
    it('returns ranked passages with ids, sources, headings, snippets and offsets', async () => {
      const out = await ok<{ query: string; results: Array<Record<string, unknown>> }>(client, 'search_documents', { query: '  sourdough starter  ' });
      expect(out.query).toBe('sourdough starter');
      expect(out.results.length).toBeGreaterThan(0);
      expect(out.results[0]).toMatchObject({ source: 'guides/baking.md', title: 'Sourdough baking' });
      expect(out.results[0]!.chunk_id).toMatch(/^guides\/baking\.md#\d+$/);
      expect(String(out.results[0]!.snippet).toLowerCase()).toContain('sourdough');
      expect(out).not.toHaveProperty('note');
    });

    it('returns at most top_k results, best first', async () => {
      const out = await ok<{ results: Array<{ score: number }> }>(client, 'search_documents', { query: 'lighthouse keeper ledger', top_k: 3 });
      expect(out.results).toHaveLength(3);
      const scores = out.results.map((r) => r.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    });

    it('restricts results to path_prefix', async () => {
      const out = await ok<{ results: Array<{ source: string }> }>(client, 'search_documents', { query: 'water', path_prefix: 'guides/' });
      expect(out.results.length).toBeGreaterThan(0);
      expect(out.results.every((r) => r.source.startsWith('guides/'))).toBe(true);
    });

    it('says plainly that nothing matched and suggests list_documents', async () => {
      const out = await ok<{ results: unknown[]; note: string }>(client, 'search_documents', { query: 'xylophone quasar' });
      expect(out.results).toEqual([]);
      expect(out.note).toMatch(/nothing matched/i);
      expect(out.note).toContain('list_documents');
    });

    it('says when path_prefix matches no document at all', async () => {
      const out = await ok<{ results: unknown[]; note: string }>(client, 'search_documents', { query: 'water', path_prefix: 'nowhere/' });
      expect(out.results).toEqual([]);
      expect(out.note).toContain('"nowhere/"');
    });

    it.each([
      [{ query: '   ' }, /query=" {3}": must contain at least one non-blank character/],
      [{ query: 'x'.repeat(1001) }, /query=.*at most 1000 characters/],
      [{}, /query=nothing/],
      [{ query: 42 }, /query=42: must be a string/],
      [{ query: 'tomato', top_k: 500 }, /top_k=500: must be at most 50/],
      [{ query: 'tomato', top_k: 0 }, /top_k=0: must be at least 1/],
      [{ query: 'tomato', top_k: 2.5 }, /top_k=2.5: must be a whole number/],
      [{ query: 'tomato', top_k: '5' }, /top_k="5": must be a whole number/],
      [{ query: 'tomato', topk: 5 }, /unknown argument "topk" \(accepted: query, top_k, path_prefix, mode\)/],
    ])('refuses %j with a tool error naming the argument', async (args, message) => {
      const text = await toolError(client, 'search_documents', args);
      expect(text).toMatch(message);
      expect(text).toContain('search_documents');
    });
  });

  describe('get_chunk', () => {
    it('returns the passage, exactly the document text between start and end, with its neighbours', async () => {
      const chunk = await ok<{ chunk_id: string; text: string; start: number; end: number; prev_chunk_id: string | null; next_chunk_id: string | null; source: string }>(
        client,
        'get_chunk',
        { chunk_id: 'lighthouse.md#1' },
      );
      expect(chunk.source).toBe('lighthouse.md');
      expect(chunk.text).toBe(LONG_DOC.slice(chunk.start, chunk.end));
      expect(chunk.prev_chunk_id).toBe('lighthouse.md#0');
      expect(chunk.next_chunk_id).toBe('lighthouse.md#2');
    });

    it('round-trips with get_document: the chunk offsets read the same text as a document page', async () => {
      const { results } = await ok<{ results: Array<{ chunk_id: string; start: number; end: number }> }>(client, 'search_documents', { query: 'storm warnings barometer', top_k: 3 });
      for (const hit of results) {
        const chunk = await ok<{ text: string; start: number; end: number; source: string }>(client, 'get_chunk', { chunk_id: hit.chunk_id });
        expect([chunk.start, chunk.end]).toEqual([hit.start, hit.end]);
        const page = await ok<{ text: string }>(client, 'get_document', { source: chunk.source, offset: chunk.start, max_chars: chunk.end - chunk.start });
        expect(page.text).toBe(chunk.text);
      }
    });

    it('names the valid range for an out-of-range chunk number', async () => {
      const { chunks } = (await ok<{ documents: Array<{ source: string; chunks: number }> }>(client, 'list_documents', { path_prefix: 'lighthouse' })).documents[0]!;
      const text = await toolError(client, 'get_chunk', { chunk_id: 'lighthouse.md#999' });
      expect(text).toContain(`lighthouse.md has ${chunks} chunks (lighthouse.md#0 to lighthouse.md#${chunks - 1})`);
    });

    it('says the document is unknown and suggests close sources', async () => {
      const text = await toolError(client, 'get_chunk', { chunk_id: 'guides/bakin.md#0' });
      expect(text).toContain('no document "guides/bakin.md"');
      expect(text).toContain('"guides/baking.md"');
    });

    it.each(['lighthouse.md', 'lighthouse.md#', 'lighthouse.md#01', 'lighthouse.md#-1', 'lighthouse.md#1x'])('explains the id format for %j', async (chunkId) => {
      expect(await toolError(client, 'get_chunk', { chunk_id: chunkId })).toMatch(/not of the form <source>#<n>/);
    });
  });

  describe('get_document', () => {
    it('pages through a document with offset and next_offset until the whole text is read', async () => {
      let offset: number | null = 0;
      let text = '';
      let pages = 0;
      while (offset !== null) {
        const page: { text: string; next_offset: number | null; truncated: boolean; total_chars: number; offset: number } = await ok(client, 'get_document', { source: 'lighthouse.md', offset, max_chars: 700 });
        expect(page.offset).toBe(offset);
        expect(page.total_chars).toBe(LONG_DOC.length);
        expect(page.truncated).toBe(page.next_offset !== null);
        text += page.text;
        offset = page.next_offset;
        pages += 1;
      }
      expect(text).toBe(LONG_DOC);
      expect(pages).toBe(Math.ceil(LONG_DOC.length / 700));
    });

    it('returns the whole of a short document by default, with its title', async () => {
      const doc = await ok<{ text: string; title: string; truncated: boolean; next_offset: null }>(client, 'get_document', { source: 'guides/baking.md' });
      expect(doc.text).toBe(SAMPLE_FILES['guides/baking.md']);
      expect(doc).toMatchObject({ title: 'Sourdough baking', truncated: false, next_offset: null });
    });

    it('never splits a surrogate pair at a page boundary', async () => {
      const source = 'notes/emoji-😀.txt';
      const full = SAMPLE_FILES[source] as string;
      const emojiAt = full.indexOf('😀');
      const page = await ok<{ text: string; next_offset: number }>(client, 'get_document', { source, max_chars: emojiAt + 1 });
      expect(page.text).toBe(full.slice(0, emojiAt));
      const rest = await ok<{ text: string }>(client, 'get_document', { source, offset: page.next_offset });
      expect(page.text + rest.text).toBe(full);
    });

    it.each(['../secret.txt', '/etc/passwd', `${'/'}tmp/../secret.txt`, '..%2fsecret.txt', 'guides/../../secret.txt', 'secret.txt'])(
      'refuses %j without touching the disk and suggests no unrelated source',
      async (source) => {
        const text = await toolError(client, 'get_document', { source });
        expect(text).toContain('is not a document in the index');
        expect(text).toContain('No known source has a name close to it; call list_documents');
        expect(text).not.toContain('Closest known sources');
        expect(text).not.toContain('TOP SECRET');
      },
    );

    it('suggests the right path for a near miss', async () => {
      expect(await toolError(client, 'get_document', { source: 'baking.md' })).toContain('Closest known sources: "guides/baking.md"');
    });

    it.each([
      [{ source: 'guides/baking.md', offset: 100_000 }, /offset 100000 is past the end of guides\/baking\.md, which has \d+ characters/],
      [{ source: 'guides/baking.md', max_chars: 100_001 }, /max_chars=100001: must be at most 100000/],
      [{ source: 'guides/baking.md', max_chars: 0 }, /max_chars=0: must be at least 1/],
      [{ source: 'guides/baking.md', offset: -1 }, /offset=-1: must be 0 or more/],
      [{ source: '' }, /source="": must not be empty/],
    ])('refuses %j with an actionable message', async (args, message) => {
      expect(await toolError(client, 'get_document', args)).toMatch(message);
    });
  });

  describe('list_documents', () => {
    it('lists every document sorted by source, with titles, sizes and chunk counts, and the skipped files', async () => {
      const out = await ok<{ documents: Array<{ source: string; title: string; bytes: number; chunks: number }>; skipped: Array<{ path: string; reason: string }>; total: number; next_cursor: string | null }>(
        client,
        'list_documents',
        {},
      );
      expect(out.documents.map((d) => d.source)).toEqual(SAMPLE_SOURCES);
      expect(out.total).toBe(SAMPLE_SOURCES.length);
      expect(out.next_cursor).toBeNull();
      const lighthouse = out.documents.find((d) => d.source === 'lighthouse.md')!;
      expect(lighthouse).toMatchObject({ title: 'Lighthouse operations', bytes: Buffer.byteLength(LONG_DOC) });
      expect(lighthouse.chunks).toBeGreaterThan(1);
      // logo.png is not a document: its name is for the operator's log, not for clients.
      expect(out.skipped.map((s) => s.path)).not.toContain('logo.png');
    });

    it('paginates with cursor and limit, covering every document exactly once', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page: { documents: Array<{ source: string }>; next_cursor: string | null; skipped: unknown[]; total: number } = await ok(client, 'list_documents', { limit: 3, ...(cursor ? { cursor } : {}) });
        expect(page.total).toBe(SAMPLE_SOURCES.length);
        if (pages > 0) expect(page.skipped).toEqual([]);
        seen.push(...page.documents.map((d) => d.source));
        cursor = page.next_cursor ?? undefined;
        pages += 1;
      } while (cursor);
      expect(seen).toEqual(SAMPLE_SOURCES);
      expect(pages).toBe(2);
    });

    it('filters by path_prefix', async () => {
      const out = await ok<{ documents: Array<{ source: string }>; total: number }>(client, 'list_documents', { path_prefix: 'guides/' });
      expect(out.documents.map((d) => d.source)).toEqual(['guides/baking.md', 'guides/gardening.md']);
      expect(out.total).toBe(2);
    });

    it.each([
      [{ cursor: 'not-a-cursor' }, /cursor "not-a-cursor" was not issued by this server/],
      [{ limit: 1000 }, /limit=1000: must be at most 100/],
    ])('refuses %j with a tool error', async (args, message) => {
      expect(await toolError(client, 'list_documents', args)).toMatch(message);
    });
  });

  describe('unknown tools', () => {
    it('answers a call to a tool that does not exist with a protocol error listing the tools', async () => {
      const error = await client.callTool({ name: 'delete_everything', arguments: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).message).toMatch(/unknown tool "delete_everything".*search_documents/);
    });

    it('says its code once in the message the client shows', async () => {
      const error = (await client.callTool({ name: 'x', arguments: {} }).catch((e: unknown) => e)) as McpError;
      expect(error.message).toMatch(/^MCP error -32602: unknown tool "x"; /);
      expect(error.message.match(/MCP error/g)).toHaveLength(1);
    });
  });

  describe('resources', () => {
    it('lists every document as a corpus:/// resource and reads its text', async () => {
      const { resources, nextCursor } = await client.listResources();
      expect(nextCursor).toBeUndefined();
      expect(resources.map((r) => r.name)).toEqual(SAMPLE_SOURCES);
      const baking = resources.find((r) => r.name === 'guides/baking.md')!;
      expect(baking).toMatchObject({ uri: 'corpus:///guides/baking.md', mimeType: 'text/markdown', title: 'Sourdough baking' });
      const read = await client.readResource({ uri: baking.uri });
      expect(read.contents).toEqual([{ uri: baking.uri, mimeType: 'text/markdown', text: SAMPLE_FILES['guides/baking.md'] }]);
    });

    it('percent-encodes each path segment of a resource uri', async () => {
      const { resources } = await client.listResources();
      const emoji = resources.find((r) => r.name.startsWith('notes/'))!;
      expect(emoji.uri).toBe(`corpus:///notes/${encodeURIComponent('emoji-😀.txt')}`);
      const read = await client.readResource({ uri: emoji.uri });
      expect((read.contents[0] as { text: string }).text).toBe(await readFile(join(server.corpusDir, 'notes/emoji-😀.txt'), 'utf8'));
    });

    it.each(['corpus:///../secret.txt', 'file:///etc/passwd', 'corpus:///nope.md'])('answers %j with resource-not-found', async (uri) => {
      const error = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(-32002);
    });

    it('says the code of a resource not found once in the message the client shows', async () => {
      const error = (await client.readResource({ uri: 'corpus:///nope.md' }).catch((e: unknown) => e)) as McpError;
      expect(error.message).toMatch(/^MCP error -32002: [^M]/);
      expect(error.message.match(/MCP error/g)).toHaveLength(1);
    });
  });

  describe('logging/setLevel', () => {
    it('accepts a level', async () => {
      await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
    });
  });
});
