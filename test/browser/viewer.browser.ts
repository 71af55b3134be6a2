// The MCP Apps view in Debian's Chromium, hosted as hosts host it: the extension's AppBridge (in the
// test page, test/browser/viewer-host.ts) runs the view in a sandboxed iframe, and the tool calls it
// makes go through the real SDK client to a real listening server. Screenshots go to
// artifacts/screenshots/viewer-*.png. Run with `npm run test:browser`.
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../support/pdf-fixtures.js';
import { connectClient, startTestServer } from '../support/test-server.js';
import type { TestServer } from '../support/test-server.js';
import { viewerHtml } from '../support/viewer-html.js';

// The page.evaluate callbacks below run in the browser; this file is type-checked for Node, so the
// browser globals they use are declared here, loosely.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any, document: any, getComputedStyle: any;

const SHOTS = resolve('artifacts/screenshots');

const paragraph = (topic: string, n: number) => `Paragraph ${n} about ${topic}: the keeper logs the weather, trims the wick and writes the hour in the book.\n\n`;
const LONG = `# Lighthouse keeping\n\n${Array.from({ length: 30 }, (_, i) => paragraph('routine', i)).join('')}## Beacon rotation\n\nThe beacon rotation is checked at dusk: one full turn every ten seconds, timed against the station clock.\n\n${Array.from({ length: 30 }, (_, i) => paragraph('supplies', i)).join('')}`;
// What a hostile document would do if the view rendered it as markup: run script, load an image from
// this machine (a request the test would see), run a javascript: link.
const HOSTILE =
  '# Hostile marker\n\nThe hostile marker page. <script>window.pwned = "script"; parent.postMessage("pwned", "*")</script>\n\n' +
  '<img src="http://127.0.0.1:9/leak.png" onerror="window.pwned = \'img\'">\n\n<a href="javascript:window.pwned=\'link\'">hostile marker link</a> [md link](javascript:window.pwned=1)\n';

interface HostLogEntry {
  method: string;
  params: { name?: string; arguments?: Record<string, unknown>; mode?: string; url?: string };
}

describe('the MCP Apps view in a host', () => {
  let browser: Browser;
  let server: TestServer;
  let client: Client;
  let html: string;
  let hostScript: string;
  /** Every request any page or frame of the browser tried to make. */
  const requests: string[] = [];

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    const pdf = await makePdf({
      title: 'Turbine manual',
      pages: [
        { lines: ['Turbine manual', '', 'Safety comes first on every visit.'] },
        { lines: ['Maintenance', '', 'The turbine maintenance schedule lists the bearings', 'to grease each spring.'] },
        { lines: ['Index', '', 'Bearings, grease, spring.'] },
      ],
      // One section a page, so the passage about maintenance is a chunk of its own, on page 2.
      outline: [{ title: 'Safety', page: 0 }, { title: 'Maintenance', page: 1 }, { title: 'Index', page: 2 }],
    });
    html = await viewerHtml();
    server = await startTestServer({ viewerHtml: html, files: { 'lighthouse.md': LONG, 'manual.pdf': Buffer.from(pdf), 'hostile.md': HOSTILE } });
    client = (await connectClient(server.mcpUrl)).client;
    const bundled = await build({ entryPoints: [resolve('test/browser/viewer-host.ts')], bundle: true, format: 'iife', platform: 'browser', write: false, logLevel: 'warning' });
    hostScript = bundled.outputFiles[0]!.text;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await server?.close();
  });

  async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    return (await client.callTool({ name, arguments: args })) as Record<string, unknown>;
  }

  /**
   * A page hosting the view for one tool call's result. Nothing may leave the browser: every request
   * is recorded, then refused.
   */
  async function hostView(toolInput: Record<string, unknown>, toolResult: Record<string, unknown>, options: { width?: number; hostContext?: Record<string, unknown> } = {}): Promise<{ page: Page; view: Frame; context: BrowserContext }> {
    const { width = 900, hostContext = {} } = options;
    const context = await browser.newContext({ viewport: { width, height: 800 } });
    context.on('request', (request) => requests.push(request.url()));
    await context.route('**/*', (route) => route.abort());
    const page = await context.newPage();
    await page.exposeFunction('hostCallTool', (name: string, args: Record<string, unknown>) => call(name, args));
    await page.setContent(`<!doctype html><html><body style="margin:0"><script>${hostScript}</script></body></html>`);
    const fullContext = { theme: 'light', displayMode: 'inline', availableDisplayModes: ['inline', 'fullscreen'], platform: width < 500 ? 'mobile' : 'web', ...hostContext };
    await page.evaluate((args) => (window as unknown as { showView(a: unknown): Promise<void> }).showView(args), { html, toolInput, toolResult, hostContext: fullContext });
    const view = page.frames().find((f) => f !== page.mainFrame());
    if (view === undefined) throw new Error('the view frame is missing');
    return { page, view, context };
  }

  const hostLog = (page: Page) => page.evaluate(() => (window as unknown as { hostLog: HostLogEntry[] }).hostLog);
  /**
   * A screenshot once the host has sized the iframe to the view (inline, it follows the view's size
   * notifications), so the picture is not taken mid-resize.
   */
  async function shot(page: Page, name: string): Promise<void> {
    const view = page.frames().find((f) => f !== page.mainFrame())!;
    const fullscreen = await view.evaluate(() => document.documentElement.dataset.display === 'fullscreen');
    if (!fullscreen) {
      const height = await view.evaluate(() => document.documentElement.getBoundingClientRect().height);
      await page.waitForFunction((h: number) => Math.abs(parseFloat(document.getElementById('view').style.height) - h) < 2, height);
    }
    // The viewport only: a full-page capture resizes the viewport, and the view with it, mid-capture.
    await page.screenshot({ path: join(SHOTS, `viewer-${name}.png`) });
  }
  const search = async (query: string) => {
    const input = { query, top_k: 5 };
    return { input, result: await call('search_documents', input) };
  };
  type Results = { results: { chunk_id: string; source: string; title: string; start: number; end: number; page?: number }[] };

  it('lists the results of a real search, best first, with the query words marked', async () => {
    const { input, result } = await search('beacon rotation');
    const structured = result.structuredContent as Results;
    expect(structured.results.length).toBeGreaterThan(0);
    const { page, view, context } = await hostView(input, result);
    await view.waitForSelector('.hit');
    await shot(page, 'results-light');
    const titles = await view.$$eval('.hit .hit-title', (els) => els.map((e) => e.textContent));
    expect(titles).toEqual(structured.results.map((r) => r.title));
    const sources = await view.$$eval('.hit .source', (els) => els.map((e) => e.textContent));
    expect(sources).toEqual(structured.results.map((r) => r.source));
    const marked = await view.$$eval('.hit:first-child .snippet mark', (els) => els.map((e) => e.textContent!.toLowerCase()));
    expect(marked).toEqual(expect.arrayContaining(['beacon', 'rotation']));
    await context.close();
  });

  it('opens a passage with one click: get_document through the host, fullscreen, the passage highlighted and in view, and reading on', async () => {
    const { input, result } = await search('beacon rotation');
    const hit = (result.structuredContent as Results).results[0]!;
    const chunk = (await call('get_chunk', { chunk_id: hit.chunk_id })).structuredContent as { text: string };
    const { page, view, context } = await hostView(input, result);
    await view.click('.hit:first-child .hit-title');
    const passage = await view.waitForSelector('mark.passage');
    expect(await passage.textContent()).toBe(chunk.text);
    const log = await hostLog(page);
    const reads = log.filter((e) => e.method === 'tools/call');
    expect(reads[0]?.params.name).toBe('get_document');
    expect(reads[0]?.params.arguments?.source).toBe(hit.source);
    expect(log.some((e) => e.method === 'ui/request-display-mode' && e.params.mode === 'fullscreen')).toBe(true);
    // In view: the passage lies within the frame's visible height once scrolled to.
    await view.waitForFunction(() => {
      const rect = document.querySelector('mark.passage')!.getBoundingClientRect();
      return rect.top >= 0 && rect.top < window.innerHeight;
    });
    await shot(page, 'document');
    // The text around it is there, and "Read on" fetches more of the document.
    expect(await view.textContent('.doc-text')).toContain('Paragraph 29 about routine');
    const before = (await view.textContent('.doc-text'))!.length;
    await view.click('text=Read on');
    await view.waitForFunction((n: number) => document.querySelector('.doc-text')!.textContent!.length > n, before);
    await view.click('text=← Results');
    await view.waitForSelector('.hit');
    await context.close();
  });

  it('follows the host: dark theme, its fonts, its safe-area insets', async () => {
    const { input, result } = await search('beacon rotation');
    const { page, view, context } = await hostView(input, result, {
      hostContext: { theme: 'dark', styles: { variables: { '--font-sans': 'Georgia, serif' } }, safeAreaInsets: { top: 30, right: 0, bottom: 20, left: 0 } },
    });
    await view.waitForSelector('.hit');
    await shot(page, 'results-dark');
    const look = await view.evaluate(() => {
      const body = getComputedStyle(document.body);
      const [r, g, b] = body.backgroundColor.match(/\d+/g)!.map(Number);
      return { theme: document.documentElement.dataset.theme, luminance: 0.2126 * r! + 0.7152 * g! + 0.0722 * b!, font: body.fontFamily, paddingTop: body.paddingTop };
    });
    expect(look).toEqual({ theme: 'dark', luminance: expect.any(Number), font: expect.stringContaining('Georgia'), paddingTop: '42px' });
    expect(look.luminance).toBeLessThan(80);
    // And a change of theme while shown.
    await page.evaluate(() => (window as unknown as { setHostContext(c: unknown): void }).setHostContext({ theme: 'light' }));
    await view.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    await context.close();
  });

  it('fits a phone\'s width', async () => {
    const { input, result } = await search('beacon rotation');
    const { page, view, context } = await hostView(input, result, { width: 360 });
    await view.waitForSelector('.hit');
    await shot(page, 'phone');
    expect(await view.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await view.click('.hit:first-child .hit-title');
    await view.waitForSelector('mark.passage');
    await shot(page, 'phone-document');
    expect(await view.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await context.close();
  });

  it('shows a PDF passage with its pages, and a range when the hit spans pages', async () => {
    const { input, result } = await search('turbine maintenance schedule');
    const structured = result.structuredContent as Results;
    const hit = structured.results.find((r) => r.source === 'manual.pdf')!;
    expect(hit.page).toBe(2);
    const { view, context } = await hostView(input, result);
    expect(await view.textContent('.hit[data-chunk-id="' + hit.chunk_id + '"] .pages')).toBe('p. 2');
    await view.click(`.hit[data-chunk-id="${hit.chunk_id}"] .hit-title`);
    await view.waitForSelector('mark.passage');
    expect(await view.textContent('.document-view .pages')).toBe('p. 2');
    await context.close();
    // A passage from page 2 to page 3 (last_page beside page).
    const spanning = { ...result, structuredContent: { ...structured, results: [{ ...hit, last_page: 3 }] } };
    const second = await hostView(input, spanning);
    expect(await second.view.textContent('.hit .pages')).toBe('pp. 2–3');
    await second.context.close();
  });

  it('renders a hostile document as text: its script, image and javascript: links do nothing', async () => {
    const { input, result } = await search('hostile marker');
    const structured = result.structuredContent as Results;
    const hit = structured.results.find((r) => r.source === 'hostile.md')!;
    // Links: a javascript: url is not shown; an https one is, and opens through the host.
    const withUrls = { ...result, structuredContent: { ...structured, results: [{ ...hit, url: 'javascript:window.pwned="url"' }, { ...hit, chunk_id: `${hit.chunk_id}-copy`, url: 'https://example.com/hostile.md' }] } };
    const { page, view, context } = await hostView(input, withUrls);
    await view.waitForSelector('.hit');
    expect(await view.$$eval('.hit', (items) => items.map((i) => i.querySelector('.source-link')?.getAttribute('href') ?? null))).toEqual([null, 'https://example.com/hostile.md']);
    await view.click('.hit:nth-child(2) .source-link');
    await page.waitForFunction(() => (window as unknown as { hostLog: HostLogEntry[] }).hostLog.some((e) => e.method === 'ui/open-link'));
    expect((await hostLog(page)).find((e) => e.method === 'ui/open-link')?.params.url).toBe('https://example.com/hostile.md');
    await view.click('.hit:first-child .hit-title');
    await view.waitForSelector('mark.passage');
    const text = await view.textContent('.doc-text');
    expect(text).toContain('<script>window.pwned');
    expect(text).toContain('<img src="http://127.0.0.1:9/leak.png"');
    const inert = await view.evaluate(() => ({
      pwned: (window as unknown as { pwned?: unknown }).pwned,
      scripts: document.querySelectorAll('script').length,
      images: document.querySelectorAll('img').length,
      links: [...document.querySelectorAll('a')].map((a) => a.getAttribute('href')),
    }));
    expect(inert).toEqual({ pwned: undefined, scripts: 1, images: 0, links: [] });
    expect(await page.evaluate(() => (window as unknown as { pwned?: unknown }).pwned)).toBeUndefined();
    await context.close();
  });

  it('made no request of its own: nothing left the browser in any of the above', () => {
    expect(requests).toEqual([]);
  });
});
