import { describe, expect, it } from 'vitest';
import { deniedPage, providerErrorPage, upstreamFailedPage } from './error-pages.js';

const EVIL = '<script>alert("x")</script>';
const back = { clientName: 'Claude', action: '/interaction/abc/return', csrfToken: 'tok' };
const textOf = (page: string) => page.replace(/<style>.*?<\/style>/s, '').replace(/<\/?(strong|code)>/g, '').replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').replace(/\s+/g, ' ');
const returnForm = '<form method="post" action="/interaction/abc/return"><input type="hidden" name="csrf" value="tok"><button type="submit">Return to Claude</button></form>';

describe('deniedPage', () => {
  it('names the refused account and whom to ask, and offers the way back to the app', () => {
    const page = deniedPage({ ...back, serverName: 'docs.example.com', account: 'mallory@elsewhere.example' });
    const text = textOf(page);
    expect(text).toContain('This account cannot use docs.example.com');
    expect(text).toContain('You signed in as mallory@elsewhere.example, which is not on the list of people allowed to use docs.example.com.');
    expect(text).toContain('Ask the person who runs docs.example.com to add you');
    expect(text).toContain('Returning tells Claude that access was denied.');
    expect(page).toContain(returnForm);
  });

  it('says what to do when the identity provider confirmed no email address', () => {
    const text = textOf(deniedPage({ ...back, serverName: 'docs.example.com', account: undefined }));
    expect(text).toContain('did not confirm an email address for this account');
    expect(text).toContain('ask the person who runs docs.example.com');
  });

  it('escapes the account, the server and the client name', () => {
    const page = deniedPage({ clientName: EVIL, action: '"><x', csrfToken: '"><y', serverName: EVIL, account: EVIL });
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('"><x');
    expect(page).not.toContain('"><y');
    expect(textOf(page)).toContain(`You signed in as ${EVIL}`);
  });
});

describe('upstreamFailedPage', () => {
  const base = { ...back, serverName: 'docs.example.com', retryUrl: '/interaction/abc', detail: 'could not reach https://idp.example: fetch failed' };

  it('says the identity provider cannot be reached, offers a retry and tells the app it is temporarily unavailable', () => {
    const page = upstreamFailedPage({ ...base, unreachable: true });
    const text = textOf(page);
    expect(text).toContain('Your sign-in provider cannot be reached');
    expect(text).toContain('This is usually temporary.');
    expect(page).toContain('<a class="button primary" href="/interaction/abc">Try again</a>');
    expect(text).toContain('returning tells Claude that sign-in is temporarily unavailable');
    expect(text).toContain('tell the person who runs docs.example.com');
    expect(text).toContain('Details: could not reach https://idp.example: fetch failed');
    expect(page).toContain(returnForm);
  });

  it('says when the identity provider answered but did not confirm the sign-in', () => {
    const text = textOf(upstreamFailedPage({ ...base, unreachable: false }));
    expect(text).toContain('Your sign-in provider did not confirm the sign-in');
    expect(text).toContain('returning tells Claude that sign-in is not possible');
  });

  it('escapes the detail, the retry link and the client name', () => {
    const page = upstreamFailedPage({ ...base, unreachable: true, detail: EVIL, retryUrl: '"><x', clientName: EVIL });
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('"><x');
  });
});

describe('providerErrorPage', () => {
  it('tells a person whose app is not registered to remove the connector and add it again', () => {
    const text = textOf(providerErrorPage({ error: 'invalid_client', error_description: 'client is invalid' }, 'docs.example.com'));
    expect(text).toContain('This app is not registered with docs.example.com');
    expect(text).toContain('Remove the connector (or server) for docs.example.com in your app and add it again');
    expect(text).toContain('Details: invalid_client: client is invalid');
    expect(text).not.toMatch(/oops/i);
  });

  it.each([
    [{ error: 'invalid_redirect_uri', error_description: 'redirect_uri did not match' }, 'The app asked to send you to an address it did not register'],
    [{ error: 'invalid_request', error_description: 'authorization request has expired' }, 'This sign-in has expired'],
    [{ error: 'session_not_found', error_description: 'interaction session not found' }, 'This sign-in has expired'],
    [{ error: 'server_error' }, 'The sign-in could not go on'],
    [{}, 'The sign-in could not go on'],
  ])('gives %j the title "%s"', (out, title) => {
    expect(providerErrorPage(out, 'docs.example.com')).toContain(`<h1>${title}</h1>`);
  });

  it('does not repeat oidc-provider\'s "oops! something went wrong" for a server error', () => {
    const text = textOf(providerErrorPage({ error: 'server_error', error_description: 'oops! something went wrong' }, 'docs.example.com'));
    expect(text).not.toMatch(/oops/i);
    expect(text).toContain('Go back to the app and connect again');
  });

  it('escapes what oidc-provider reports', () => {
    const page = providerErrorPage({ error: EVIL, error_description: EVIL }, EVIL);
    expect(page).not.toContain('<script>');
    expect(textOf(page)).toContain(`Details: ${EVIL}: ${EVIL}`);
  });
});
