import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { escapeHtml, landingRoute, renderLanding } from '../src/http/routes/landing.js';
import { mcpResourceUrl } from '../src/server-paths.js';
import { connectClient, startTestServer } from './support/test-server.js';

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
    expect(html).toContain('a bearer token that the operator of this server gave you');
  });

  it('lists every tool the server offers (its tools/list), with its title', async () => {
    const server = await startTestServer();
    try {
      const html = await (await fetch(`${server.url}/`)).text();
      const { client } = await connectClient(server.mcpUrl);
      const { tools } = await client.listTools();
      await client.close();
      expect(tools.map((t) => t.name)).toContain('rerank_results');
      for (const tool of tools) expect(html).toContain(`<code>${tool.name}</code> — ${escapeHtml(tool.title ?? '')}`);
    } finally {
      await server.close();
    }
  });

  it('tells a claude.ai user that a loopback URL cannot work there, and points to mcp-remote', () => {
    const local = renderLanding({ publicUrl: 'http://127.0.0.1:8080', stats: () => undefined });
    expect(local).toContain('will not work there');
    expect(local).toContain('&quot;mcp-remote&quot;');
    const deployed = renderLanding({ publicUrl: 'https://docs.example.com', stats: () => undefined });
    expect(deployed).not.toContain('will not work there');
    expect(deployed).toContain('Add custom connector');
  });

  it('with static tokens alone, tells a claude.ai user that a connector cannot send the token, and points to mcp-remote', () => {
    const html = renderLanding({ publicUrl: 'https://d.example', stats: () => undefined, authRequired: true });
    expect(html).toContain('they cannot send a bearer token');
    expect(html).toContain('<code>mcp-remote</code> below');
  });

  it('with sign-in, tells the person they will sign in in a browser, and offers no token they do not have', () => {
    const html = renderLanding({ publicUrl: 'https://d.example', stats: () => undefined, authRequired: true, oauth: true });
    expect(html).toContain('opens a browser for you to sign in');
    expect(html).not.toContain('operator');
    expect(html).not.toContain('Authorization');
  });

  it('with sign-in and static tokens, mentions both ways in', () => {
    const html = renderLanding({ publicUrl: 'https://d.example', stats: () => undefined, authRequired: true, oauth: true, staticTokens: true });
    expect(html).toContain('sign in');
    expect(html).toContain('bearer token that the operator gave you');
  });

  it('wraps long commands instead of running off the right edge', () => {
    const html = renderLanding({ publicUrl: 'https://d.example', stats: () => undefined });
    expect(html).toMatch(/pre\{[^}]*white-space:pre-wrap/);
  });
});

describe('mcpResourceUrl', () => {
  it.each([
    ['https://d.example', 'https://d.example/mcp'],
    ['https://d.example/', 'https://d.example/mcp'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080/mcp'],
  ])('appends /mcp to %s', (origin, url) => {
    expect(mcpResourceUrl(origin)).toBe(url);
  });
});

describe('escapeHtml', () => {
  it('escapes the five HTML-significant characters', () => {
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });
});
