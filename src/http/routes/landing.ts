// GET /: a page for the person who opens the server's URL in a browser. It says what this is, how big
// the corpus is, and how to connect each client. Every interpolated value is HTML-escaped, and the
// Content-Security-Policy forbids scripts outright, since PUBLIC_URL and titles come from outside.
import type { Handler } from 'hono';
import pkg from '../../../package.json' with { type: 'json' };

export interface LandingStats {
  documents: number;
  chunks: number;
}

export interface LandingOptions {
  /** Origin clients use, no trailing slash, e.g. https://docs.example.com. */
  publicUrl: string;
  /** Index size once built; undefined while it is still being built. */
  stats: () => LandingStats | undefined;
  /** Whether requests need a bearer token; changes the connection instructions. Default false. */
  authRequired?: boolean;
  /** Shown in the title. Default the package name. */
  name?: string;
  /** Shown under the title. Default the package version. */
  version?: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** The MCP endpoint clients connect to. */
export function mcpUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/mcp`;
}

export function renderLanding(options: LandingOptions): string {
  const { publicUrl, stats, authRequired = false, name = pkg.name, version = pkg.version } = options;
  const url = mcpUrl(publicUrl);
  const current = stats();
  const size = current
    ? `${current.documents} documents, ${current.chunks} chunks`
    : 'the index is still being built';
  const header = authRequired ? ' --header "Authorization: Bearer $CORPUS_MCP_TOKEN"' : '';
  const cursor = JSON.stringify(
    { mcpServers: { corpus: authRequired ? { url, headers: { Authorization: 'Bearer <token>' } } : { url } } },
    null,
    2,
  );
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(name)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
code,pre{background:#f4f4f4;border-radius:4px}code{padding:.1rem .3rem}pre{padding:.7rem;overflow-x:auto}
.muted{color:#666}
</style>
</head>
<body>
<h1>${e(name)}</h1>
<p class="muted">version ${e(version)} · ${e(size)}</p>
<p>A <a href="https://modelcontextprotocol.io">Model Context Protocol</a> server that lets LLM clients
search and cite this document collection. It has no web interface: connect an MCP client to</p>
<pre id="mcp-url">${e(url)}</pre>
${authRequired ? '<p>Requests need an access token: a bearer token from the operator, or OAuth sign-in where the client supports it.</p>' : ''}
<h2>Connect</h2>
<h3>Claude (claude.ai, desktop)</h3>
<p>Settings → Connectors → Add custom connector, and paste the URL above.</p>
<h3>Claude Code</h3>
<pre>${e(`claude mcp add --transport http corpus ${url}${header}`)}</pre>
<h3>Cursor</h3>
<p>In <code>~/.cursor/mcp.json</code>:</p>
<pre>${e(cursor)}</pre>
<h2>Tools</h2>
<p><code>search_documents</code>, <code>get_chunk</code>, <code>get_document</code>, <code>list_documents</code>.</p>
<p class="muted">Health: <a href="/healthz">/healthz</a> · readiness: <a href="/readyz">/readyz</a></p>
</body>
</html>
`;
}

export function landingRoute(options: LandingOptions): Handler {
  if (!options.publicUrl) throw new TypeError('landingRoute: publicUrl is required');
  return function landingHandler(c) {
    return c.html(renderLanding(options), 200, {
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'cache-control': 'no-cache',
    });
  };
}
