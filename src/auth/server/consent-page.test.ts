import { describe, expect, it } from 'vitest';
import { consentPage, errorPage, html, humanDuration } from './consent-page.js';

const EVIL = '<script>alert("x")</script>';
const base = {
  clientName: 'Claude', redirectOrigin: 'https://claude.ai', account: 'ada@example.com', serverName: 'docs.example.com',
  action: '/interaction/abc/confirm', csrfToken: 'tok', refreshTokenTtlSeconds: 30 * 86_400, accessTokenTtlSeconds: 3600,
};
/** The page's text as a person reads it: tags dropped, entities decoded. */
const textOf = (page: string) => page.replace(/<style>.*?<\/style>/s, '').replace(/<\/?(strong|code)>/g, '').replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/\s+/g, ' ');

describe('html', () => {
  it('escapes interpolated values and keeps markup built by html as is', () => {
    expect(html`<p>${EVIL}</p>`.value).toBe('<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</p>');
    expect(html`<div>${html`<b>${'a&b'}</b>`}${[html`<i>1</i>`, '<2>']}</div>`.value).toBe('<div><b>a&amp;b</b><i>1</i>&lt;2&gt;</div>');
    expect(html`<a title='${"'"}'>`.value).toBe("<a title='&#39;'>");
  });
});

describe('humanDuration', () => {
  it.each([
    [30 * 86_400, '30 days'], [86_400, '1 day'], [3600, '1 hour'], [7200, '2 hours'], [90 * 60, '90 minutes'], [60, '1 minute'],
    [45, '45 seconds'], [100_000, 'about 28 hours'], [3 * 86_400 + 5, 'about 3 days'],
  ])('says %i seconds as "%s"', (seconds, words) => {
    expect(humanDuration(seconds)).toBe(words);
  });
});

describe('consentPage', () => {
  it('names the client as it calls itself, unverified, and where the code goes', () => {
    const text = textOf(consentPage(base));
    expect(text).toContain('Allow Claude to read the documents on docs.example.com?');
    expect(text).toContain('“Claude” is the name the app chose for itself when it registered; this server has not verified it.');
    expect(text).toContain('you are sent back to https://claude.ai');
    expect(text).toContain('You are signed in as ada@example.com');
  });

  it('says how long access lasts, from the configured lifetimes', () => {
    expect(textOf(consentPage(base))).toContain('for 30 days from now (it renews its 1 hour access token on its own)');
    expect(textOf(consentPage({ ...base, refreshTokenTtlSeconds: 7 * 86_400, accessTokenTtlSeconds: 900 }))).toContain('for 7 days from now (it renews its 15 minutes access token');
  });

  it('says how to end access: remove the connector, or the operator revokes the account', () => {
    const text = textOf(consentPage(base));
    expect(text).toContain('Remove the connector (or server) from the app');
    expect(text).toContain('The person who runs docs.example.com can also end it at once for your account with npm run auth -- revoke ada@example.com');
  });

  it('posts Allow and Deny to the action with the CSRF token', () => {
    const page = consentPage(base);
    expect(page).toContain('<form method="post" action="/interaction/abc/confirm"><input type="hidden" name="csrf" value="tok">');
    expect(page).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(page).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
  });

  it('escapes every value it shows, above all the name the client chose', () => {
    const page = consentPage({ ...base, clientName: EVIL, redirectOrigin: EVIL, account: EVIL, serverName: EVIL, action: '"><x', csrfToken: '"><y' });
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('"><x');
    expect(page).not.toContain('"><y');
    expect(textOf(page)).toContain(`Allow ${EVIL} to read`);
  });
});

describe('errorPage', () => {
  it('shows the title and message, escaped', () => {
    const page = errorPage('Expired <now>', EVIL);
    expect(page).toContain('<title>Expired &lt;now&gt;</title>');
    expect(page).toContain('<h1>Expired &lt;now&gt;</h1>');
    expect(page).not.toContain('<script>');
  });
});
