// The landing page's search in Debian's Chromium, on a server without authentication: the page's own
// host (src/view/landing-host.ts) calls /mcp and shows the results in the MCP Apps view, as a model's
// host would. Screenshot: artifacts/screenshots/landing-search.png.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/test-server.js';
import type { TestServer } from '../support/test-server.js';
import { landingHostJs, viewerHtml } from '../support/viewer-html.js';

const SHOTS = resolve('artifacts/screenshots');

describe('the landing page without authentication', () => {
  let browser: Browser;
  let server: TestServer;

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    server = await startTestServer({ viewerHtml: await viewerHtml(), landingHostJs: await landingHostJs() });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('searches the corpus through /mcp and shows the results in the view; a click opens the passage', async () => {
    const context = await browser.newContext({ viewport: { width: 1024, height: 900 } });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    const requests: string[] = [];
    page.on('request', (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await page.goto(`${server.url}/`);
    await page.fill('#try-form input[name="q"]', 'sourdough starter');
    await page.press('#try-form input[name="q"]', 'Enter');
    const view = page.frameLocator('#try-view iframe');
    await view.locator('.hit').first().waitFor();
    expect(await view.locator('.hit .hit-title').first().textContent()).toBe('Sourdough baking');
    expect(await view.locator('.hit .snippet mark').allTextContents()).toEqual(expect.arrayContaining(['sourdough']));
    await page.screenshot({ path: join(SHOTS, 'landing-search.png'), fullPage: true });
    await view.locator('.hit .hit-title').first().click();
    await view.locator('mark.passage').waitFor();
    expect(await view.locator('mark.passage').textContent()).toContain('Feed the sourdough starter');
    await page.screenshot({ path: join(SHOTS, 'landing-document.png'), fullPage: true });
    expect(refused).toEqual([]);
    // The page's own requests only: itself, then the host's calls to /mcp (search, the view, the document).
    expect(requests[0]).toBe('GET /');
    expect(new Set(requests.slice(1))).toEqual(new Set(['POST /mcp']));
    await context.close();
  });
});
