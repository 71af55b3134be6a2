import { describe, expect, it } from 'vitest';
import { ExtractionError } from './extracted.js';
import { extractHtml, MAX_HTML_DEPTH } from './html.js';

const page = (body: string, head = '<title>Handbook</title>'): string => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('extractHtml', () => {
  describe('title', () => {
    it('comes from <title>, entities decoded', () => {
      expect(extractHtml(page('<h1>Heading</h1>', '<title>R&amp;D &mdash; Guide</title>')).title).toBe('R&D — Guide');
    });

    it('falls back to the first <h1>', () => {
      expect(extractHtml(page('<h2>Second</h2><h1>First <em>one</em></h1>', '')).title).toBe('First one');
    });

    it('ignores the <title> of an inline SVG', () => {
      expect(extractHtml(page('<svg><title>icon</title></svg><h1>Real</h1>', '')).title).toBe('Real');
    });
  });

  describe('text', () => {
    it('keeps link text, decodes entities and collapses whitespace', () => {
      const { text } = extractHtml(page('<p>Read   the <a href="/x">deploy\n guide</a> &amp; the&nbsp;FAQ.</p>'));
      expect(text).toBe('Read the deploy guide & the\u00a0FAQ.');
    });

    it('leaves out script, style, nav, header, footer, noscript, template and hidden elements', () => {
      const html = page(
        '<header>Site banner</header><nav>Menu link</nav><script>var secretScript = 1;</script>' +
          '<style>.secretStyle { color: red }</style><noscript>Enable JS</noscript><template>tpl</template>' +
          '<div hidden>hidden attr</div><p aria-hidden="true">aria hidden</p><p style="color: red; display: none">styled away</p>' +
          '<main><p>Visible text.</p></main><footer>Copyright</footer>',
      );
      expect(extractHtml(html).text).toBe('Visible text.');
    });

    it('puts blocks on lines of their own, with a blank line between paragraphs', () => {
      const { text } = extractHtml(page('<p>One</p><p>Two<br>Three</p><ul><li>a</li><li>b</li></ul><table><tr><td>x</td><td>y</td></tr></table>'));
      expect(text).toBe('One\n\nTwo\nThree\n\na\nb\n\nx y');
    });

    it('keeps the line breaks of <pre>', () => {
      expect(extractHtml(page('<pre>line 1\n  line 2</pre>')).text).toBe('line 1\n  line 2');
    });
  });

  describe('sections', () => {
    it('come from h1–h6, with offsets into the extracted text', () => {
      const { text, sections } = extractHtml(page('<h1>Guide</h1><p>Intro.</p><h2>Install</h2><p>Steps.</p><h3>On <b>Linux</b></h3><p>apt.</p>'));
      expect(sections.map((s) => [s.level, s.title])).toEqual([
        [1, 'Guide'],
        [2, 'Install'],
        [3, 'On Linux'],
      ]);
      for (const s of sections) expect(text.slice(s.start, s.contentStart).trim()).toBe(s.title);
      expect(text.slice(sections[1]!.contentStart).trim().startsWith('Steps.')).toBe(true);
    });

    it('skip a heading inside a left-out element', () => {
      expect(extractHtml(page('<nav><h2>Menu</h2></nav><h2>Real</h2><p>x</p>')).sections.map((s) => s.title)).toEqual(['Real']);
    });
  });

  describe('hostile input', () => {
    it(`refuses a page nested deeper than ${MAX_HTML_DEPTH} levels, without recursing`, () => {
      const html = '<div>'.repeat(100_000) + 'deep' + '</div>'.repeat(100_000);
      expect(() => extractHtml(html)).toThrow(ExtractionError);
      expect(() => extractHtml(html)).toThrow(`nested more than ${MAX_HTML_DEPTH} levels deep`);
    });

    it('reads a page nested just under the limit', () => {
      const depth = MAX_HTML_DEPTH - 10;
      expect(extractHtml('<div>'.repeat(depth) + 'deep' + '</div>'.repeat(depth)).text).toBe('deep');
    });
  });
});
