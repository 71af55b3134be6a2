// GET /mcp from a web browser: a person who pasted the connector URL into the address bar. MCP clients
// open their stream with `Accept: text/event-stream`; a browser asks for HTML and would otherwise see
// a raw JSON-RPC error. It gets a short page instead, before authentication, since the page says
// nothing about the documents.
import type { MiddlewareHandler } from 'hono';
import { escapeHtml } from '../routes/landing.js';

export interface BrowserPageOptions {
  /** The MCP endpoint's URL, shown on the page, e.g. https://docs.example.com/mcp. */
  mcpUrl: string;
}

/** Whether a request comes from a browser's address bar: it accepts HTML and not an event stream. */
export function isBrowserNavigation(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  return types.includes('text/html') && !types.includes('text/event-stream');
}

export function browserPage(options: BrowserPageOptions): MiddlewareHandler {
  const { mcpUrl } = options;
  if (!mcpUrl) throw new TypeError('browserPage: mcpUrl is required');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MCP endpoint</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}code,pre{background:#f4f4f4;border-radius:4px}pre{padding:.7rem;white-space:pre-wrap;overflow-wrap:anywhere}</style>
</head>
<body>
<h1>This is an MCP endpoint</h1>
<p>This address is for AI clients that speak the Model Context Protocol (Claude, Claude Code, Cursor),
not for a web browser. Give it to your client as the server URL:</p>
<pre>${escapeHtml(mcpUrl)}</pre>
<p><a href="/">How to connect each client</a></p>
</body>
</html>
`;
  return async function browserPageMiddleware(c, next) {
    if (c.req.method !== 'GET' || !isBrowserNavigation(c.req.header('accept'))) return next();
    return c.html(html, 200, {
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'cache-control': 'no-store',
    });
  };
}
