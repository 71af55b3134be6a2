// The MCP Apps view over a real listening server, in both protocol eras: tools/list names it in the
// `_meta` of the tools whose results it shows, resources/read serves it as one self-contained HTML
// file, and the results a model reads are the same with it or without it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Client as ClientV2 } from '@modelcontextprotocol/client';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { connectV2Client } from './support/modern-mcp.js';
import { randomBytes } from 'node:crypto';
import { landingHostJs, viewerHtml } from './support/viewer-html.js';
import { createTools } from '../src/mcp/tools/create-tools.js';
import { DEFAULT_TOOL_LIMITS } from '../src/mcp/tools/tool-limits.js';
import { withViewer } from '../src/mcp/viewer-resource.js';

const VIEWER = 'ui://corpus-mcp/viewer';
const MIME = 'text/html;profile=mcp-app';

type ToolList = { tools: { name: string; _meta?: Record<string, unknown> }[] };
const metaOf = (list: ToolList, name: string) => list.tools.find((t) => t.name === name)?._meta;

describe('the MCP Apps view', () => {
  let withView: TestServer;
  let without: TestServer;
  let legacy: Client;
  let modern: ClientV2;
  let legacyWithout: Client;

  beforeAll(async () => {
    withView = await startTestServer({ viewerHtml: await viewerHtml() });
    without = await startTestServer();
    legacy = (await connectClient(withView.mcpUrl)).client;
    legacyWithout = (await connectClient(without.mcpUrl)).client;
    modern = await connectV2Client(withView.mcpUrl);
  });
  afterAll(async () => {
    await Promise.all([legacy?.close(), legacyWithout?.close(), modern?.close()]);
    await Promise.all([withView?.close(), without?.close()]);
  });

  describe('tools/list', () => {
    it.each(['legacy', 'modern'] as const)('names the view on search_documents, and on no other tool (%s era)', async (era) => {
      const list = (era === 'legacy' ? await legacy.listTools() : await modern.listTools()) as ToolList;
      expect(metaOf(list, 'search_documents')).toEqual({ ui: { resourceUri: VIEWER } });
      for (const name of ['get_chunk', 'get_document', 'list_documents', 'rerank_results']) expect(metaOf(list, name)).toBeUndefined();
    });

    it('stays within the 8,000 characters every session pays for, with embeddings or without', async () => {
      expect(JSON.stringify(await legacy.listTools()).length).toBeLessThanOrEqual(8000);
      const withEmbeddings = { tools: createTools(DEFAULT_TOOL_LIMITS, { semanticSearch: true }).map((t) => withViewer(t.listing)) };
      expect(JSON.stringify(withEmbeddings).length).toBeLessThanOrEqual(8000);
    });

    it('names no view on a server built without one, and lists the same tools otherwise', async () => {
      const bare = (await legacyWithout.listTools()) as ToolList;
      for (const tool of bare.tools) expect(tool._meta).toBeUndefined();
      const viewed = (await legacy.listTools()) as ToolList;
      expect(viewed.tools.map(({ _meta: _, ...rest }) => rest)).toEqual(bare.tools);
    });
  });

  describe('resources/read of ui://corpus-mcp/viewer', () => {
    it.each(['legacy', 'modern'] as const)('returns one self-contained HTML file with the MCP Apps MIME type (%s era)', async (era) => {
      const result = era === 'legacy' ? await legacy.readResource({ uri: VIEWER }) : await modern.readResource({ uri: VIEWER });
      expect(result.contents).toHaveLength(1);
      const [content] = result.contents as { uri: string; mimeType?: string; text?: string }[];
      expect(content!.uri).toBe(VIEWER);
      expect(content!.mimeType).toBe(MIME);
      const html = content!.text!;
      // Asserted as facts rather than matched against the file, so a failure does not print 400 KB.
      const facts = {
        doctype: /^<!doctype html>/i.test(html),
        scripts: html.match(/<script\b[^>]*>/gi),
        inlineScriptChars: html.slice(html.indexOf('<script type="module">'), html.lastIndexOf('</script>')).length,
        styles: html.match(/<style>/gi)?.length,
        // Nothing to fetch: no external script, stylesheet, image, font or frame, so a host's default CSP holds.
        linkTags: /<link\b/i.test(html),
        mediaTags: /<(img|iframe|source|video|audio|object|embed)\b/i.test(html),
        cssImports: /@import|url\(/i.test(html.slice(html.indexOf('<style>'), html.indexOf('</style>'))),
      };
      expect(facts).toMatchObject({ doctype: true, scripts: ['<script type="module">'], styles: 1, linkTags: false, mediaTags: false, cssImports: false });
      expect(facts.inlineScriptChars).toBeGreaterThan(10_000);
      expect(html === (await viewerHtml())).toBe(true);
    });

    it('is not found on a server built without the view', async () => {
      await expect(legacyWithout.readResource({ uri: VIEWER })).rejects.toThrow(/Resource not found/);
    });
  });

  describe('tool results', () => {
    it.each([
      ['search_documents', { query: 'sourdough starter' }],
      ['get_document', { source: 'guides/baking.md' }],
      ['get_chunk', { chunk_id: 'guides/baking.md#0' }],
    ])('%s answers the model exactly as a server without the view does', async (name, args) => {
      const viewed = await legacy.callTool({ name, arguments: args });
      const bare = await legacyWithout.callTool({ name, arguments: args });
      expect(viewed.isError).toBeFalsy();
      expect(viewed).toEqual(bare);
    });
  });

  describe('the landing page', () => {
    it.each([
      ['without authentication', {}, true],
      ['with authentication on', { AUTH_TOKENS: randomBytes(32).toString('hex') }, false],
    ] as const)('%s: offers a search through the view, or says why not', async (_, env, searches) => {
      const server = await startTestServer({ env, viewerHtml: await viewerHtml(), landingHostJs: await landingHostJs() });
      try {
        const response = await fetch(`${server.url}/`);
        const page = await response.text();
        const csp = response.headers.get('content-security-policy')!;
        const facts = { form: page.includes('id="try-form"'), script: /<script\b/.test(page), saysWhy: page.includes('Searching from this page is off because this server requires credentials'), scriptsAllowed: csp.includes('script-src') };
        expect(facts).toEqual({ form: searches, script: searches, saysWhy: !searches, scriptsAllowed: searches });
        // Scripts only by hash: no 'unsafe-inline' or host source for them.
        if (searches) expect(csp).toMatch(/script-src 'sha256-[^']+' 'sha256-[^']+'; connect-src 'self'$/);
      } finally {
        await server.close();
      }
    });
  });
});
