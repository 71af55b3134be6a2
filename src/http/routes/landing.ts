// GET /: a page for the person who opens the server's URL in a browser. It says what this is, how big
// the corpus is, and how to connect each client. Every interpolated value is HTML-escaped, and the
// Content-Security-Policy forbids scripts outright, since PUBLIC_URL and titles come from outside; with the
// search of landing-search.ts it allows two scripts, by their hashes.
import type { Handler } from 'hono';
import pkg from '../../../package.json' with { type: 'json' };
import { isLoopbackHost } from '../../config/loopback-host.js';
import { mcpResourceUrl } from '../../server-paths.js';
import { landingSearch, PLAIN_CSP, SEARCH_OFF_WITH_AUTH } from './landing-search.js';
import type { LandingSearch, LandingViewer } from './landing-search.js';

export interface LandingStats {
  documents: number;
  chunks: number;
}

export interface LandingOptions {
  /** Origin clients use, no trailing slash, e.g. https://docs.example.com. */
  publicUrl: string;
  /** Index size once built; undefined while it is still being built. */
  stats: () => LandingStats | undefined;
  /** Whether requests need credentials; changes the connection instructions. Default false. */
  authRequired?: boolean;
  /**
   * Whether clients can sign in through OAuth (the built-in sign-in or an external issuer): they then
   * open a browser themselves, and no token is pasted. Default false.
   */
  oauth?: boolean;
  /** Whether the operator hands out static bearer tokens (AUTH_TOKENS, AUTH_TOKENS_FILE). Default false. */
  staticTokens?: boolean;
  /** The MCP Apps view and the page's host of it: a search on the page without authentication, a sentence why not with it. Default none. */
  viewer?: LandingViewer;
  /** The tools listed, by name and title (the MCP service's table). Default none. */
  tools?: () => readonly { name: string; title?: string | undefined }[];
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


/** How a person gets access, in one sentence, for each way the server is configured. */
function accessSentence(authRequired: boolean, oauth: boolean, staticTokens: boolean): string {
  if (!authRequired) return '';
  if (oauth && staticTokens) {
    return 'Requests need credentials: clients that support OAuth open a browser for you to sign in; others pass a bearer token that the operator gave you.';
  }
  if (oauth) return 'Requests need credentials: your client opens a browser for you to sign in with your team account the first time it connects.';
  return 'Requests need a bearer token that the operator of this server gave you.';
}

export function renderLanding(options: LandingOptions, search?: LandingSearch): string {
  const { publicUrl, stats, authRequired = false, oauth = false, staticTokens = !oauth, tools = () => [] } = options;
  const { name = pkg.name, version = pkg.version } = options;
  const url = mcpResourceUrl(publicUrl);
  const current = stats();
  const size = current
    ? `${current.documents} documents, ${current.chunks} chunks`
    : 'the index is still being built';
  // A token goes into the snippets only when a token is the way in: with OAuth the client signs in.
  const tokenSnippets = authRequired && !oauth;
  const header = tokenSnippets ? ' --header "Authorization: Bearer $CORPUS_MCP_TOKEN"' : '';
  const cursor = JSON.stringify(
    { mcpServers: { corpus: tokenSnippets ? { url, headers: { Authorization: 'Bearer <token>' } } : { url } } },
    null,
    2,
  );
  const desktop = JSON.stringify(
    { mcpServers: { corpus: { command: 'npx', args: ['-y', 'mcp-remote', url, ...(tokenSnippets ? ['--header', 'Authorization: Bearer <token>'] : [])] } } },
    null,
    2,
  );
  const loopback = isLoopbackHost(new URL(url).hostname);
  const connector = loopback
    ? `<p>Claude's connectors reach servers from the internet, so this address (on this machine only) will not work there.
Deploy the server at a public HTTPS address and paste that address's <code>/mcp</code> URL, or use Claude Desktop through
<code>mcp-remote</code> below.</p>`
    : tokenSnippets
      ? `<p>Claude's connectors sign in through OAuth or connect without credentials; they cannot send a bearer token,
which this server needs. Use Claude Desktop through <code>mcp-remote</code> below, or ask the operator to turn on
team sign-in (then: Settings → Connectors → Add custom connector, and paste the URL above).</p>`
      : '<p>Settings → Connectors → Add custom connector, and paste the URL above.</p>';
  const access = accessSentence(authRequired, oauth, staticTokens);
  const e = escapeHtml;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${e(name)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#222}
code,pre{background:#f4f4f4;border-radius:4px}code{padding:.1rem .3rem}
pre{padding:.7rem;white-space:pre-wrap;overflow-wrap:anywhere}
.muted{color:#666}
#try-form{display:flex;gap:.5rem}#try-form input{flex:1;min-width:0;font:inherit;padding:.4rem .6rem}#try-form button{font:inherit;padding:.4rem .9rem}
.try-frame{width:100%;border:1px solid #ddd;border-radius:8px;height:0;display:block}
</style>
</head>
<body>
<h1>${e(name)}</h1>
<p class="muted">version ${e(version)} · ${e(size)}</p>
<p>A <a href="https://modelcontextprotocol.io">Model Context Protocol</a> server that lets LLM clients
search and cite this document collection. ${search ? 'Connect' : 'It has no web interface: connect'} an MCP client to</p>
<pre id="mcp-url">${e(url)}</pre>
${access === '' ? '' : `<p id="access">${e(access)}</p>`}
${search ? search.section : authRequired && options.viewer ? `<p id="no-search">${e(SEARCH_OFF_WITH_AUTH)}</p>` : ''}
<h2>Connect</h2>
<h3>Claude (claude.ai connectors)</h3>
${connector}
<h3>Claude Desktop, through mcp-remote</h3>
<p>In <code>claude_desktop_config.json</code> (needs Node.js):</p>
<pre>${e(desktop)}</pre>
<h3>Claude Code</h3>
<pre>${e(`claude mcp add --transport http corpus ${url}${header}`)}</pre>
<h3>Cursor</h3>
<p>In <code>~/.cursor/mcp.json</code>:</p>
<pre>${e(cursor)}</pre>
<h2>Tools</h2>
<ul id="tools">
${tools().map((tool) => `<li><code>${e(tool.name)}</code>${tool.title ? ` — ${e(tool.title)}` : ''}</li>`).join('\n')}
</ul>
<p class="muted">Health: <a href="/healthz">/healthz</a> · readiness: <a href="/readyz">/readyz</a></p>
</body>
</html>
`;
}

export function landingRoute(options: LandingOptions): Handler {
  if (!options.publicUrl) throw new TypeError('landingRoute: publicUrl is required');
  const { viewer, authRequired = false } = options;
  const search = viewer && !authRequired ? landingSearch(viewer, new URL(mcpResourceUrl(options.publicUrl)).pathname) : undefined;
  return function landingHandler(c) {
    return c.html(renderLanding(options, search), 200, {
      'content-security-policy': search?.csp ?? PLAIN_CSP,
      'cache-control': 'no-cache',
    });
  };
}
