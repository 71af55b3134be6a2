const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** Headers for every page the authorization server renders: no framing (clickjacking), no caching. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
});

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}' +
  'button{font:inherit;padding:.5rem 1.25rem;margin-right:.5rem;border-radius:.375rem;border:1px solid #888;cursor:pointer}' +
  'button[value=allow]{background:#1f6feb;color:#fff;border-color:#1f6feb}code{background:#f3f3f3;padding:0 .25rem}';

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;

export interface ConsentPageOptions {
  /** The client's registered name, else its client_id. */
  clientName: string;
  /**
   * Scheme and host of the redirect URI the code will go to (`https://claude.ai`), the part a person
   * can check. Only https and loopback http URIs are registered, so this is a real web origin.
   */
  redirectOrigin: string;
  /** Who is signed in (their email). */
  account: string;
  /** The server's own name for the page title, e.g. its host. */
  serverName: string;
  /** Where the form posts (same origin). */
  action: string;
  csrfToken: string;
}

/** The consent page: names the client and where it sends the code; Allow and Deny post with the CSRF token. */
export function consentPage({ clientName, redirectOrigin, account, serverName, action, csrfToken }: ConsentPageOptions): string {
  return page(
    `Allow access to ${serverName}?`,
    `<h1>Allow <strong>${escapeHtml(clientName)}</strong> to read the documents on ${escapeHtml(serverName)}?</h1>` +
      `<p>You are signed in as <strong>${escapeHtml(account)}</strong>.</p>` +
      `<p>After you allow it, you are sent back to <code>${escapeHtml(redirectOrigin)}</code>. ` +
      'If you did not just connect an app to this server, choose Deny.</p>' +
      `<form method="post" action="${escapeHtml(action)}">` +
      `<input type="hidden" name="csrf" value="${escapeHtml(csrfToken)}">` +
      '<button type="submit" name="decision" value="allow">Allow</button>' +
      '<button type="submit" name="decision" value="deny">Deny</button></form>',
  );
}

/** A short page for a sign-in that cannot go on, saying what to do. */
export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}
