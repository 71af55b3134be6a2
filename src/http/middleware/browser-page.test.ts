import { Hono } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { browserPage, isBrowserNavigation } from './browser-page.js';

describe('browserPage', () => {
  const app = () => {
    const handler = vi.fn(() => new Response('{"jsonrpc":"2.0"}', { status: 405, headers: { 'content-type': 'application/json' } }));
    const hono = new Hono();
    hono.use('/mcp', browserPage({ mcpUrl: 'https://docs.example.com/mcp' }));
    hono.all('/mcp', handler);
    return { hono, handler };
  };
  const CHROME_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

  it('answers a browser opening /mcp with a page that says what the URL is for, and does not reach the MCP handler', async () => {
    const { hono, handler } = app();
    const res = await hono.request('/mcp', { headers: { accept: CHROME_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const html = await res.text();
    expect(html).toContain('This is an MCP endpoint');
    expect(html).toContain('https://docs.example.com/mcp');
    expect(handler).not.toHaveBeenCalled();
  });

  it.each([
    ['an MCP client opening its event stream', 'GET', 'text/event-stream'],
    ['a client that accepts both', 'GET', 'text/html, text/event-stream'],
    ['a POST', 'POST', CHROME_ACCEPT],
    ['no Accept header', 'GET', undefined],
  ])('passes %s on to the MCP handler', async (_what, method, accept) => {
    const { hono, handler } = app();
    const res = await hono.request('/mcp', { method, headers: accept === undefined ? {} : { accept } });
    expect(res.status).toBe(405);
    expect(handler).toHaveBeenCalledOnce();
  });
});

describe('isBrowserNavigation', () => {
  it.each([
    ['text/html', true],
    ['TEXT/HTML;q=0.9, */*', true],
    ['application/json, text/event-stream', false],
    ['*/*', false],
  ])('%j → %s', (accept, expected) => {
    expect(isBrowserNavigation(accept)).toBe(expected);
  });
});
