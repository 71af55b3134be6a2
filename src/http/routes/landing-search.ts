// The landing page's search: on a server without authentication, / hosts the MCP Apps view (the one a
// model's host shows) with a search box, through a small host of its own (src/view/landing-host.ts)
// that calls /mcp. With authentication on, the page offers no search and says why: it would need the
// person's credentials, which only their MCP client holds.
import { createHash } from 'node:crypto';

export interface LandingViewer {
  /** The view's HTML (ui://corpus-mcp/viewer). */
  html: string;
  /** The landing page's host script, inlined into the page. */
  hostScript: string;
}

export interface LandingSearch {
  /** HTML of the section. */
  section: string;
  /** The page's Content-Security-Policy: scripts allowed by hash only, the host's and the view's. */
  csp: string;
}

export const SEARCH_OFF_WITH_AUTH =
  'Searching from this page is off because this server requires credentials, and only your MCP client holds them; connect a client below to search.';

/** The page's policy without a search: no script at all. */
export const PLAIN_CSP = "default-src 'none'; style-src 'unsafe-inline'";

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The text of the view's one inline module script, which its iframe (srcdoc, so under this page's policy) runs. */
function viewScript(html: string): string {
  const open = '<script type="module">';
  const start = html.indexOf(open);
  const end = html.lastIndexOf('</script>');
  if (start < 0 || end < start) throw new TypeError('landing page: the view has no inline module script');
  return html.slice(start + open.length, end);
}

/** Built once per process: the section and its policy. `mcpPath` is where the host sends its requests. */
export function landingSearch(viewer: LandingViewer, mcpPath: string): LandingSearch {
  const hashes = `${sha256(viewer.hostScript)} ${sha256(viewScript(viewer.html))}`;
  const section = `<h2>Try it</h2>
<p>Search the corpus here and see what a model is given: the same view MCP Apps hosts (Claude, ChatGPT, VS Code, Goose) show beside an answer.</p>
<form id="try-form" data-endpoint="${mcpPath}" role="search">
<input name="q" type="search" placeholder="Search the documents" aria-label="Search the documents" required maxlength="500">
<button type="submit">Search</button>
</form>
<p id="try-status" class="muted" role="status"></p>
<div id="try-view"></div>
<script>${viewer.hostScript}</script>`;
  // The view runs in a sandboxed srcdoc iframe, which keeps this page's policy: its script is allowed
  // by its hash, and connect-src covers the host's own requests to /mcp (the view makes none).
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src ${hashes}; connect-src 'self'`;
  return { section, csp };
}
