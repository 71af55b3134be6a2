// The corpus shipped in corpus/ answers real questions about the server out of the box.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';

describe('the bundled corpus', () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startTestServer({ corpusDir: resolve('corpus') });
    ({ client } = await connectClient(server.mcpUrl));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('holds at least six documents, several of them long enough for more than one chunk', async () => {
    const out = (await client.callTool({ name: 'list_documents', arguments: { limit: 100 } })).structuredContent as {
      documents: Array<{ chunks: number }>;
      total: number;
    };
    expect(out.total).toBeGreaterThanOrEqual(6);
    expect(out.documents.filter((d) => d.chunks >= 2).length).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['claude mcp add transport http', /claude/i],
    ['session idle ttl', /session/i],
    ['bm25 ranking', /bm25|rank/i],
    ['reload SIGHUP', /SIGHUP/],
    ['rerank_results chunk_ids', /rerank_results/],
  ])('answers %j with a relevant passage', async (query, expected) => {
    const out = (await client.callTool({ name: 'search_documents', arguments: { query } })).structuredContent as {
      results: Array<{ chunk_id: string; snippet: string; title: string }>;
    };
    expect(out.results.length).toBeGreaterThan(0);
    const first = out.results[0]!;
    const chunk = (await client.callTool({ name: 'get_chunk', arguments: { chunk_id: first.chunk_id } })).structuredContent as { text: string };
    expect(chunk.text).toMatch(expected);
  });

  it.each([
    ['scanned pdf ocr text layer', 'formats/pdf-documents.pdf', 'Scanned PDFs and limits', 3],
    ['navigation menus footers left out', 'formats/html-pages.html', 'HTML pages in corpus-mcp › What is indexed', undefined],
  ])('shows a newcomer the %j of its sample PDF and HTML files, with heading paths and PDF page numbers', async (query, source, heading, page) => {
    const out = (await client.callTool({ name: 'search_documents', arguments: { query, path_prefix: 'formats/' } })).structuredContent as {
      results: Array<{ source: string; heading: string; page?: number }>;
    };
    expect(out.results[0]).toMatchObject({ source, heading });
    expect(out.results[0]?.page).toBe(page);
  });

  // What the corpus says about the server itself is what a model tells its user: claims that stopped
  // being true must not come back.
  it.each([
    ['four read-only tools', /\bfour (read-only )?tools\b/i],
    ['no file watcher', /no file watcher/i],
    ['a restart drops sessions', /restart or a scale-out drops/i],
    ['only three formats', /Markdown, plain-text or reStructuredText\s+files/i],
    ['restart after editing', /restart the server after editing/i],
    ['any Node.js 20', /Node\.js 20 or newer/i],
    ['logs carry the session id itself', /the\s+session id and the principal/i],
    ['every 401 names resource_metadata', /^\| No `Authorization` header \| `401` \| `Bearer resource_metadata/m],
  ])('no longer claims %s', async (_claim, stale) => {
    texts ??= readAll();
    for (const [source, text] of await texts) expect(text, source).not.toMatch(stale);
  });
  let texts: Promise<Array<[string, string]>> | undefined;
  async function readAll(): Promise<Array<[string, string]>> {
    const { documents } = (await client.callTool({ name: 'list_documents', arguments: { limit: 100 } })).structuredContent as {
      documents: Array<{ source: string }>;
    };
    return Promise.all(documents.map(async ({ source }) => {
      const doc = (await client.callTool({ name: 'get_document', arguments: { source, max_chars: 100000 } })).structuredContent as { text: string };
      return [source, doc.text] as [string, string];
    }));
  }

  it.each(['README.md', 'docs/TOOLS.md'])('answers the search example of %s as it is printed there (but for the shortened snippet)', async (file) => {
    const text = readFileSync(file, 'utf8');
    const block = /```json\n(\{\n {2}"query": "reload SIGHUP"[\s\S]*?)\n```/.exec(text)?.[1];
    expect(block, `the search example in ${file}`).toBeDefined();
    const printed = JSON.parse(block!) as { query: string; mode: string; results: Array<Record<string, unknown>> };
    const out = (await client.callTool({ name: 'search_documents', arguments: { query: printed.query, top_k: printed.results.length } })).structuredContent as typeof printed;
    const withoutSnippets = (r: typeof printed) => ({ ...r, results: r.results.map(({ snippet: _snippet, ...rest }) => rest) });
    expect(withoutSnippets(out)).toEqual(withoutSnippets(printed));
  });
});
