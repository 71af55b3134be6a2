// The pages a person sees while signing in: the consent page and the pages for a sign-in that cannot go
// on. Every value is escaped by the `html` template tag unless it is itself built by `html`.

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** Markup built by `html`: interpolated into another `html` template as is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const render = (value: unknown): string =>
  value instanceof Html ? value.value : Array.isArray(value) ? value.map(render).join('') : value === undefined || value === false ? '' : escapeHtml(String(value));

/** A template tag that escapes every interpolated value, except `Html` (and arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(strings.reduce((out, part, i) => out + part + (i < values.length ? render(values[i]) : ''), ''));
}

/** Headers for every page the authorization server renders: no framing (clickjacking), no caching. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
});

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;color:#222;overflow-wrap:anywhere}' +
  'h1{font-size:1.5rem;line-height:1.3}h2{font-size:1rem;margin:1.5rem 0 .25rem}' +
  'button,a.button{display:inline-block;font:inherit;padding:.5rem 1.25rem;margin:0 .5rem .5rem 0;border-radius:.375rem;border:1px solid #888;cursor:pointer;background:#f6f6f6;color:#222;text-decoration:none}' +
  'button[value=allow],a.primary{background:#1f6feb;color:#fff;border-color:#1f6feb}' +
  'code{background:#f3f3f3;padding:0 .25rem}.note{color:#555;font-size:.875rem}form{display:inline}';

/** A whole page of this server: the title escaped, the body markup as built by `html`. */
export const page = (title: string, ...body: Html[]): string =>
  html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>${new Html(STYLE)}</style></head><body>${body}</body></html>`.value;

/** `seconds` in words for a person: "30 days", "1 hour", "about 2 days" (never "2592000 s"). */
export function humanDuration(seconds: number): string {
  const units: [string, number][] = [['day', 86_400], ['hour', 3600], ['minute', 60], ['second', 1]];
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  // A whole number of days, hours or minutes as is ("90 minutes"); seconds only below two minutes.
  for (const [unit, size] of units) if (seconds % size === 0 && seconds >= size && (size > 1 || seconds < 120)) return plural(seconds / size, unit);
  // Not a whole number of any larger unit: the largest unit that gives at least 2, rounded.
  const [unit, size] = units.find(([, size]) => seconds / size >= 2) ?? units[units.length - 1]!;
  return `about ${plural(Math.round(seconds / size), unit)}`;
}

export interface ConsentPageOptions {
  /** The client's registered name, else its client_id: chosen by the client, not verified. */
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
  /** REFRESH_TOKEN_TTL, seconds: how long the app stays connected without a new sign-in. */
  refreshTokenTtlSeconds: number;
  /** ACCESS_TOKEN_TTL, seconds: how long one access token lasts (the app renews it on its own). */
  accessTokenTtlSeconds: number;
}

/**
 * The consent page: names the client as it calls itself (unverified) and where it sends the code, how
 * long access lasts and how to end it; Allow and Deny post with the CSRF token.
 */
export function consentPage(o: ConsentPageOptions): string {
  return page(
    `Allow access to ${o.serverName}?`,
    html`<h1>Allow <strong>${o.clientName}</strong> to read the documents on ${o.serverName}?</h1>`,
    html`<p class="note">“${o.clientName}” is the name the app chose for itself when it registered; this server has not verified it. `,
    html`After you allow it, you are sent back to <code>${o.redirectOrigin}</code>. If you did not just connect an app to this server, choose Deny.</p>`,
    html`<p>You are signed in as <strong>${o.account}</strong>.</p>`,
    html`<h2>How long access lasts</h2><p>The app can search and read the documents on ${o.serverName} for ${humanDuration(o.refreshTokenTtlSeconds)} from now `,
    html`(it renews its ${humanDuration(o.accessTokenTtlSeconds)} access token on its own). After that, you are asked to sign in again.</p>`,
    html`<h2>How to end it sooner</h2><p>Remove the connector (or server) from the app, and it can no longer use this access. `,
    html`The person who runs ${o.serverName} can also end it at once for your account with <code>npm run auth -- revoke ${o.account}</code>.</p>`,
    html`<form method="post" action="${o.action}"><input type="hidden" name="csrf" value="${o.csrfToken}">`,
    html`<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

/** A short page for a sign-in that cannot go on, saying what to do. */
export function errorPage(title: string, message: string): string {
  return page(title, html`<h1>${title}</h1><p>${message}</p>`);
}
