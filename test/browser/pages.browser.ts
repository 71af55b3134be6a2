// The pages a person sees, in a real browser: Debian's Chromium driven by playwright-core. It walks the
// team sign-in against a test upstream (an OpenID provider on loopback) and checks what each page says;
// every page is saved as a screenshot under artifacts/screenshots/ for a person to look at.
// Run with `npm run test:browser` (not part of `npm test`, which needs no browser).
import { mkdir } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, CLIENT_REDIRECT_URI, freePort, pkcePair, register, startOidcUpstream, startSignInServer } from '../support/sign-in.js';
import type { SignInServer, Upstream } from '../support/sign-in.js';

const SHOTS = resolve('artifacts/screenshots');
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };

describe('the pages a person sees', () => {
  let browser: Browser;
  let upstream: Upstream;
  let server: SignInServer;
  let dataDir: string;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    browser = await launchChromium();
    const port = await freePort();
    dataDir = await mkdtemp(join(tmpdir(), 'corpus-browser-'));
    upstream = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, UPSTREAM_CLIENT);
    server = await startSignInServer({
      LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: upstream.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
      ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: 'browser-test-secret-browser-test-secret-0123',
    }, { port, dataDir });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await upstream?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** A fresh browser context (no cookies). */
  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 800 } });
    return context.newPage();
  }

  /**
   * Clicks `selector` and returns the URL the browser was then sent to at the client's redirect URI.
   * Nothing listens there (and Chromium does not let a route answer a redirect's target), so the
   * request is observed rather than answered.
   */
  async function clickBackToClient(page: Page, selector: string): Promise<URLSearchParams> {
    const request = page.waitForRequest((r) => r.url().startsWith(CLIENT_REDIRECT_URI));
    await page.click(selector);
    return new URL((await request).url()).searchParams;
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  /** Whether any element's content is wider than the page, i.e. text runs off the right edge. */
  const overflows = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth > document.documentElement.clientWidth');
  /** Whether text runs off the right edge of a phone's screen (360 px wide, where sign-in often happens). */
  async function overflowsOnAPhone(page: Page): Promise<boolean> {
    await page.setViewportSize({ width: 360, height: 800 });
    try {
      return await overflows(page);
    } finally {
      await page.setViewportSize({ width: 1024, height: 800 });
    }
  }

  it('the landing page names the endpoint, all five tools, and how to sign in', async () => {
    const page = await newPage();
    await page.goto(`${server.url}/`);
    await shot(page, 'landing');
    const text = await page.innerText('body');
    expect(text).toContain(`${server.url}/mcp`);
    for (const tool of ['search_documents', 'get_chunk', 'get_document', 'list_documents', 'rerank_results']) expect(text).toContain(tool);
    expect(text).toContain('sign in');
    expect(text).not.toContain('bearer token from the operator');
    expect(await overflows(page)).toBe(false);
    await page.context().close();
  });

  it('/mcp opened in a browser says what the URL is for', async () => {
    const page = await newPage();
    const response = await page.goto(`${server.url}/mcp`);
    await shot(page, 'mcp-endpoint');
    expect(response?.status()).toBe(200);
    expect(await page.innerText('h1')).toBe('This is an MCP endpoint');
    await page.context().close();
  });

  it('the consent page names the client as it calls itself, how long access lasts and how to end it; Allow returns to the client', async () => {
    upstream.user = { email: 'ada@example.com' };
    const client = await register(server, 'none');
    const page = await newPage();
    await page.goto(authorizeUrl(server, client.client_id, pkcePair().challenge));
    await page.waitForSelector('form[method="post"]');
    await shot(page, 'consent');
    const text = await page.innerText('body');
    expect(text).toContain('ada@example.com');
    expect(text).toMatch(/Claude/);
    expect(text).toMatch(/name .*chose|calls itself|chosen by/i);
    expect(text).toMatch(/\b30 days\b/);
    expect(text).toMatch(/revoke|remove|disconnect/i);
    expect(text).toContain('localhost');
    expect(text).toContain('npm run auth -- revoke ada@example.com');
    expect(await overflows(page)).toBe(false);
    expect(await overflowsOnAPhone(page)).toBe(false);
    const returned = await clickBackToClient(page, 'button[value="allow"]');
    expect(returned.get('code')).toBeTruthy();
    await page.context().close();
  });

  it('a person outside the allowlist is told which account was refused and whom to ask', async () => {
    upstream.user = { email: 'mallory@elsewhere.example' };
    const client = await register(server, 'none');
    const page = await newPage();
    await page.goto(authorizeUrl(server, client.client_id, pkcePair().challenge));
    await page.waitForLoadState('load');
    await shot(page, 'denied');
    const text = await page.innerText('body');
    expect(text).toContain('mallory@elsewhere.example');
    expect(text).toContain(`Ask the person who runs ${new URL(server.url).host} to add you`);
    expect(await overflows(page)).toBe(false);
    expect(await overflowsOnAPhone(page)).toBe(false);
    const returned = await clickBackToClient(page, 'text=Return to');
    expect(returned.get('error')).toBe('access_denied');
    expect(returned.get('code')).toBeNull();
    await page.context().close();
  });

  it('an unknown client gets a page of this server that says what went wrong, not a bare framework error', async () => {
    const page = await newPage();
    await page.goto(authorizeUrl(server, 'no-such-client', pkcePair().challenge));
    await shot(page, 'unknown-client');
    const text = await page.innerText('body');
    expect(text).not.toMatch(/oops! something went wrong/i);
    expect(text).toMatch(/client/i);
    expect(text).toMatch(/reconnect|connect again|remove .* add/i);
    expect(await overflows(page)).toBe(false);
    expect(await overflowsOnAPhone(page)).toBe(false);
    await page.context().close();
  });

  it('an unreachable identity provider offers a retry, and a way back that tells the app', async () => {
    // A second sign-in server whose upstream has gone away.
    const port = await freePort();
    const dir = await mkdtemp(join(tmpdir(), 'corpus-browser-down-'));
    const gone = await startOidcUpstream(`http://127.0.0.1:${port}/oauth/callback`, UPSTREAM_CLIENT);
    const down = await startSignInServer({
      LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: gone.url, LOGIN_CLIENT_ID: UPSTREAM_CLIENT.id, LOGIN_CLIENT_SECRET: UPSTREAM_CLIENT.secret,
      ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: 'browser-test-secret-browser-test-secret-0123',
    }, { port, dataDir: dir });
    await gone.close();
    try {
      const client = await register(down, 'none');
      const page = await newPage();
      const response = await page.goto(authorizeUrl(down, client.client_id, pkcePair().challenge, { state: 'xyz-state' }));
      await shot(page, 'upstream-unreachable');
      expect(response?.status()).toBe(502);
      const text = await page.innerText('body');
      expect(text).toMatch(/cannot be reached/);
      expect(text).toMatch(/usually temporary/);
      expect(await overflows(page)).toBe(false);
      expect(await overflowsOnAPhone(page)).toBe(false);
      // "Try again" starts the sign-in with the identity provider afresh: still down, the same page.
      await page.click('text=Try again');
      await page.waitForLoadState('load');
      expect(await page.innerText('h1')).toMatch(/cannot be reached/);
      const returned = await clickBackToClient(page, 'text=Return to');
      expect(returned.get('error')).toBe('temporarily_unavailable');
      expect(returned.get('state')).toBe('xyz-state');
      expect(returned.get('code')).toBeNull();
      await page.context().close();
    } finally {
      await down.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
