import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { escapeHtml, landingRoute, mcpUrl, renderLanding } from '../src/http/routes/landing.js';

describe('landingRoute', () => {
  const app = (publicUrl: string, stats = () => ({ documents: 7, chunks: 31 }) as { documents: number; chunks: number } | undefined) => {
    const hono = new Hono();
    hono.get('/', landingRoute({ publicUrl, stats }));
    return hono;
  };

  it('serves an HTML page with the name, version, corpus size and MCP URL', async () => {
    const res = await app('https://docs.example.com').request('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain(`<h1>${pkg.name}</h1>`);
    expect(html).toContain(`version ${pkg.version}`);
    expect(html).toContain('7 documents, 31 chunks');
    expect(html).toContain('<pre id="mcp-url">https://docs.example.com/mcp</pre>');
    expect(html).toContain('claude mcp add --transport http corpus https://docs.example.com/mcp');
  });

  it('forbids scripts with a Content-Security-Policy', async () => {
    const res = await app('https://docs.example.com').request('/');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
  });

  it('says the index is still being built before it is ready', async () => {
    const html = await (await app('http://127.0.0.1:8080', () => undefined).request('/')).text();
    expect(html).toContain('the index is still being built');
  });

  it('escapes every interpolated value', () => {
    const html = renderLanding({
      publicUrl: 'https://x.example/"><script>alert(1)</script>',
      stats: () => undefined,
      name: '<b>corpus</b>',
    });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>corpus</b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;');
  });

  it('shows the Authorization header in the client snippets when auth is required', () => {
    const html = renderLanding({ publicUrl: 'https://d.example', stats: () => undefined, authRequired: true });
    expect(html).toContain('--header &quot;Authorization: Bearer $CORPUS_MCP_TOKEN&quot;');
    expect(html).toContain('&quot;Authorization&quot;: &quot;Bearer &lt;token&gt;&quot;');
  });
});

describe('mcpUrl', () => {
  it.each([
    ['https://d.example', 'https://d.example/mcp'],
    ['https://d.example/', 'https://d.example/mcp'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/mcp'],
  ])('appends /mcp to %s', (origin, url) => {
    expect(mcpUrl(origin)).toBe(url);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
