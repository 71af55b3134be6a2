// End-to-end over the real server and SDK client: every format's documents are searchable, cite
// offsets that round-trip between get_chunk and get_document, and hostile files are skipped with a
// reason while the rest is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { makeCrewManualDocx, makeDocxZipBomb } from './support/docx-fixtures.js';
import { makeEncryptedPdf, makeManyPagePdf, makePdf, makeScannedPdf, makeTruncatedPdf } from './support/pdf-fixtures.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';

interface Hit {
  chunk_id: string;
  source: string;
  heading: string;
  start: number;
  end: number;
  page?: number;
}

const words = (n: number, prefix: string): string => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const LF_MARKDOWN = `# Field guide\n\nOwls hunt at night.\n\n${words(200, 'owl')}\n\nWading birds\n------------\n\nHerons stand still in shallow water.\n\n## Egrets\n\n${words(220, 'egret')}\n`;

const HTML = `<!doctype html>
<html><head><title>Harbour handbook</title><style>.secretstyleword { color: red }</style>
<script>const secretscriptword = 1;</script></head>
<body>
<header>Bannerword site header</header>
<nav><a href="/">Navlinkword home</a></nav>
<main>
<h1>Harbour handbook</h1>
<p>Moor the <a href="/boats">rowing boats</a> at the north quay &amp; log each mooring.</p>
<h2>Tides</h2>
<p>Check the tide table before launching the pilot cutter.</p>
<div style="display:none">hiddenstyleword</div>
</main>
<footer>Footerword copyright</footer>
</body></html>`;

const makeHandbookPdf = () =>
  makePdf({
    title: 'Quay Handbook',
    pages: [
      { lines: ['Arrivals', 'Vessels report to the harbour master on arrival.'] },
      { lines: ['Tides', 'Check the tide table before launching the pilot cutter.'] },
      { lines: ['Storms', 'Raise the storm cones when the barometer falls.'] },
    ],
    outline: [
      { title: 'Arrivals', page: 0 },
      { title: 'Tides', page: 1 },
      { title: 'Storms', page: 2 },
    ],
  });

/** Three short pages and no outline: one passage runs from page 1 to page 3. */
const makeCrossingPdf = () =>
  makePdf({
    pages: [
      { lines: ['Ferry crossing', 'The ferry leaves the north slip at dawn.'] },
      { lines: ['Passengers wait on the upper deck while the ramp is raised.'] },
      { lines: ['The quartermaster counts the lifebelts before the return leg.'] },
    ],
  });

async function ok<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

describe('documents beyond Markdown, end to end', () => {
  it('says in /readyz as many skipped files as list_documents names, and the entries that are not documents apart', async () => {
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { skipped: number; not_documents: number };
    const list = await ok<{ skipped: Array<{ path: string }> }>(client, 'list_documents', {});
    expect(list.skipped.length).toBeGreaterThan(0);
    expect(ready.skipped).toBe(list.skipped.length);
    expect(list.skipped.map((s) => s.path)).not.toContain('logo.png');
    expect(ready.not_documents).toBe(2);
  });


  let server: TestServer;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer({
      files: {
        'guide-lf.md': LF_MARKDOWN,
        'guide-crlf.md': LF_MARKDOWN.replaceAll('\n', '\r\n'),
        'harbour.html': HTML,
        'hostile/deep.html': `${'<div>'.repeat(100_000)}deepword${'</div>'.repeat(100_000)}`,
        // Not refused: a valid Markdown file, read in linear time, its title cut to 200 characters.
        'long-heading.md': `# Beacon${' '.repeat(1024 * 1024)}lamp\n\nThe beacon lamp is lit at dusk.\n`,
        'guide.rst': 'Pilotage\n========\n\nPilots board at the outer buoy.\n\nFees\n----\n\nPilotage fees are paid per metre of draught.\n',
        'handbook.pdf': Buffer.from(await makeHandbookPdf()),
        'crossing.pdf': Buffer.from(await makeCrossingPdf()),
        'hostile/encrypted.pdf': Buffer.from(await makeEncryptedPdf()),
        'hostile/truncated.pdf': Buffer.from(await makeTruncatedPdf(0.5)),
        'hostile/bomb.pdf': Buffer.from(await makeManyPagePdf(5000)),
        'hostile/scanned.pdf': Buffer.from(await makeScannedPdf()),
        'crew.docx': Buffer.from(await makeCrewManualDocx()),
        'hostile/bomb.docx': Buffer.from(await makeDocxZipBomb()),
        // Not documents: skipped, and named to the operator only.
        'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
        '.env': 'SECRET=1\n',
      },
    });
    ({ client } = await connectClient(server.mcpUrl));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const search = async (query: string, path_prefix?: string): Promise<Hit[]> =>
    (await ok<{ results: Hit[] }>(client, 'search_documents', { query, top_k: 10, ...(path_prefix ? { path_prefix } : {}) })).results;

  /** Every chunk of a document, following next_chunk_id from #0. */
  const chunksOf = async (source: string): Promise<Array<{ heading: string; text: string; start: number; end: number }>> => {
    const chunks = [];
    for (let id: string | null = `${source}#0`; id !== null; ) {
      const chunk: { heading: string; text: string; start: number; end: number; next_chunk_id: string | null } = await ok(client, 'get_chunk', { chunk_id: id });
      chunks.push(chunk);
      id = chunk.next_chunk_id;
    }
    return chunks;
  };

  describe('HTML', () => {
    it('is listed with the <title> as its title', async () => {
      const list = await ok<{ documents: Array<{ source: string; title: string }> }>(client, 'list_documents', {});
      expect(list.documents).toContainEqual(expect.objectContaining({ source: 'harbour.html', title: 'Harbour handbook' }));
    });

    it('finds the main text under its heading path, with link text and decoded entities', async () => {
      const [hit] = await search('pilot cutter tide table', 'harbour');
      expect(hit).toMatchObject({ source: 'harbour.html', heading: 'Harbour handbook › Tides' });
      const [boats] = await search('rowing boats north quay');
      expect(boats?.source).toBe('harbour.html');
      const chunk = await ok<{ text: string }>(client, 'get_chunk', { chunk_id: boats!.chunk_id });
      expect(chunk.text).toContain('Moor the rowing boats at the north quay & log each mooring.');
    });

    it.each(['secretscriptword', 'secretstyleword', 'navlinkword', 'bannerword', 'footerword', 'hiddenstyleword'])(
      'does not make text inside script, style, nav, header, footer or hidden elements searchable (%s)',
      async (word) => {
        expect(await search(word)).toEqual([]);
      },
    );

    it('gives each resource the size of the text resources/read serves, not of the file', async () => {
      const { resources } = await client.listResources();
      for (const source of ['harbour.html', 'handbook.pdf', 'crew.docx', 'guide-lf.md']) {
        const resource = resources.find((r) => r.name === source)!;
        const [content] = (await client.readResource({ uri: resource.uri })).contents as Array<{ text: string }>;
        expect(resource.size, source).toBe(Buffer.byteLength(content!.text));
      }
      const listed = await ok<{ documents: Array<{ source: string; bytes: number }> }>(client, 'list_documents', {});
      expect(resources.find((r) => r.name === 'harbour.html')!.size).toBeLessThan(listed.documents.find((d) => d.source === 'harbour.html')!.bytes);
    });

    it('serves the extracted text, not the markup, as the resource', async () => {
      const read = await client.readResource({ uri: 'corpus:///harbour.html' });
      const [content] = read.contents as Array<{ mimeType: string; text: string }>;
      expect(content?.mimeType).toBe('text/plain');
      expect(content?.text).not.toContain('<');
      expect(content?.text).toContain('Check the tide table');
    });
  });

  describe('PDF', () => {
    it('gives every hit and passage the page it begins on, and its outline heading', async () => {
      const [hit] = await search('pilot cutter', 'handbook');
      expect(hit).toMatchObject({ source: 'handbook.pdf', heading: 'Tides', page: 2 });
      const chunk = await ok<{ page: number; text: string }>(client, 'get_chunk', { chunk_id: hit!.chunk_id });
      expect(chunk.page).toBe(2);
      expect(chunk.text).toContain('Check the tide table');
      const [storm] = await search('storm cones barometer', 'handbook');
      expect(storm?.page).toBe(3);
    });

    it('cites a passage that crosses pages with its first and last page, in the structure and in the text', async () => {
      const result = (await client.callTool({ name: 'search_documents', arguments: { query: 'quartermaster lifebelts' } })) as CallToolResult;
      const [hit] = (result.structuredContent as { results: Array<Hit & { last_page?: number }> }).results;
      expect(hit).toMatchObject({ source: 'crossing.pdf', page: 1, last_page: 3 });
      expect((result.content[0] as { text: string }).text).toContain('"page":1,"last_page":3');
      const chunk = (await client.callTool({ name: 'get_chunk', arguments: { chunk_id: hit!.chunk_id } })) as CallToolResult;
      expect(chunk.structuredContent).toMatchObject({ page: 1, last_page: 3 });
      expect((chunk.content[0] as { text: string }).text).toContain('"page":1,"last_page":3');
      expect((chunk.structuredContent as { text: string }).text).toContain('quartermaster');
    });

    it('cites a passage on one page with that page as first and last', async () => {
      const [hit] = await search('barometer storm cones');
      expect(hit).toMatchObject({ source: 'handbook.pdf', page: 3, last_page: 3 });
    });

    it('tells get_document which pages a stretch of text lies on', async () => {
      const whole = await ok<{ text: string; page: number; last_page: number }>(client, 'get_document', { source: 'handbook.pdf' });
      expect(whole).toMatchObject({ page: 1, last_page: 3 });
      const offset = whole.text.indexOf('Raise the storm');
      expect(await ok(client, 'get_document', { source: 'handbook.pdf', offset, max_chars: 10 })).toMatchObject({ page: 3, last_page: 3 });
    });

    it('is listed with its metadata title', async () => {
      const list = await ok<{ documents: Array<{ source: string; title: string }> }>(client, 'list_documents', {});
      expect(list.documents).toContainEqual(expect.objectContaining({ source: 'handbook.pdf', title: 'Quay Handbook' }));
    });

    it('leaves page out of the answers for documents without pages', async () => {
      const [hit] = await search('herons shallow water');
      expect(hit?.source).toMatch(/^guide-/);
      expect(hit).not.toHaveProperty('page');
      expect(await ok(client, 'get_chunk', { chunk_id: hit!.chunk_id })).not.toHaveProperty('page');
    });
  });

  describe('DOCX', () => {
    it('is searchable under its Word headings, with its document-properties title', async () => {
      const [hit] = await search('lamps wicks midnight', 'crew');
      expect(hit).toMatchObject({ source: 'crew.docx', heading: 'Duties › Night watch' });
      const list = await ok<{ documents: Array<{ source: string; title: string }> }>(client, 'list_documents', {});
      expect(list.documents).toContainEqual(expect.objectContaining({ source: 'crew.docx', title: 'Crew Manual' }));
    });
  });

  describe('offsets', () => {
    it.each(['harbour.html', 'guide-lf.md', 'guide-crlf.md', 'handbook.pdf', 'crew.docx', 'guide.rst'])('round-trip between get_chunk and get_document (%s)', async (source) => {
      for (const chunk of await chunksOf(source)) {
        const page = await ok<{ text: string }>(client, 'get_document', { source, offset: chunk.start, max_chars: chunk.end - chunk.start });
        expect(page.text).toBe(chunk.text);
      }
    });
  });

  describe('line endings', () => {
    it('gives a CRLF Markdown file the same headings and chunks as its LF twin', async () => {
      const lf = await chunksOf('guide-lf.md');
      const crlf = await chunksOf('guide-crlf.md');
      expect(lf.length).toBeGreaterThan(3);
      expect(crlf.map((c) => [c.heading, c.text.replaceAll('\r\n', '\n')])).toEqual(lf.map((c) => [c.heading, c.text]));
      expect(new Set(lf.map((c) => c.heading))).toEqual(new Set(['Field guide', 'Field guide › Wading birds', 'Field guide › Egrets']));
    });
  });

  describe('reStructuredText', () => {
    it('gives heading paths from its section titles', async () => {
      const [hit] = await search('fees draught', 'guide.rst');
      expect(hit).toMatchObject({ source: 'guide.rst', heading: 'Pilotage › Fees' });
    });
  });

  describe('hostile files', () => {
    it('serves a Markdown file whose heading is one 1 MB line, its title cut short', async () => {
      const list = await ok<{ documents: Array<{ source: string; title: string }> }>(client, 'list_documents', {});
      const title = list.documents.find((d) => d.source === 'long-heading.md')?.title;
      expect(title?.startsWith('Beacon')).toBe(true);
      expect(title?.length).toBeLessThanOrEqual(200);
      const [hit] = await search('beacon lamp dusk', 'long-heading');
      expect(hit?.source).toBe('long-heading.md');
    });

    it('skips each with its reason in list_documents while serving the rest', async () => {
      const list = await ok<{ skipped: Array<{ path: string; reason: string }> }>(client, 'list_documents', {});
      const reasons = Object.fromEntries(list.skipped.filter((s) => s.path.startsWith('hostile/')).map((s) => [s.path, s.reason]));
      expect(reasons).toEqual({
        'hostile/bomb.docx': 'would unpack to 128 MB, over the 100 MB limit (a zip bomb?)',
        'hostile/bomb.pdf': '5000 pages, over the 2000-page limit',
        'hostile/deep.html': 'elements nested more than 2000 levels deep (a broken or hostile page)',
        'hostile/encrypted.pdf': 'encrypted PDF (it needs a password to open)',
        'hostile/scanned.pdf': 'no text layer (a scanned PDF? OCR is not supported)',
        'hostile/truncated.pdf': expect.stringMatching(/^not a readable PDF: truncated or damaged/) as unknown,
      });
      expect(await search('deepword')).toEqual([]);
      expect(await search('secret')).toEqual([]);
    });
  });
});
