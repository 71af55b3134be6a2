import { describe, expect, it } from 'vitest';
import { makeEncryptedPdf, makeManyPagePdf, makePdf, makeScannedPdf, makeTruncatedPdf } from '../../../test/support/pdf-fixtures.js';
import { pageAt } from '../document.js';
import { ExtractionError } from './extracted.js';
import { extractPdf } from './pdf.js';

const limits = { maxPages: 2000, maxUnpackedBytes: 100 * 1024 * 1024 };

const handbook = () =>
  makePdf({
    title: 'Harbour Handbook',
    pages: [
      { lines: ['Introduction', 'The harbour opens at dawn.', '', 'Boats moor at the north quay.'] },
      { lines: ['Tides', 'Check the tide table before an exam-', 'ple launch of the pilot cutter.'] },
      { lines: ['Storms', 'Raise the storm flags.', 'Spring tides', 'Moor twice.'] },
    ],
    outline: [
      { title: 'Introduction', page: 0 },
      { title: 'Tides', page: 1 },
      { title: 'Storms', page: 2, children: [{ title: 'Spring tides', page: 2 }] },
    ],
  });

describe('extractPdf', () => {
  it('takes the title from the metadata', async () => {
    expect((await extractPdf(await handbook(), limits)).title).toBe('Harbour Handbook');
  });

  it('falls back to the first line when the metadata has no title', async () => {
    const pdf = await makePdf({ pages: [{ lines: ['Quay rules', 'Body text.'] }] });
    expect((await extractPdf(pdf, limits)).title).toBe('Quay rules');
  });

  it('gives each page a span of the text, in order, so every offset has a page number', async () => {
    const { text, pages } = await extractPdf(await handbook(), limits);
    expect(pages).toHaveLength(3);
    expect(text.slice(pages![0]!.start, pages![0]!.end)).toBe('Introduction\nThe harbour opens at dawn.\n\nBoats moor at the north quay.');
    expect(text.slice(pages![2]!.start, pages![2]!.end)).toContain('Raise the storm flags.');
    expect(pageAt(pages, text.indexOf('pilot cutter'))).toBe(2);
    expect(pageAt(pages, text.indexOf('storm flags'))).toBe(3);
  });

  it('joins a word hyphenated at a line end', async () => {
    const { text } = await extractPdf(await handbook(), limits);
    expect(text).toContain('before an example launch');
    expect(text).not.toContain('exam-');
  });

  it('keeps a hyphen that does not break a word (next line not in lower case)', async () => {
    const { text } = await extractPdf(await makePdf({ pages: [{ lines: ['Route A-', 'B is closed.'] }] }), limits);
    expect(text).toBe('Route A-\nB is closed.');
  });

  it('takes sections from the outline, nested levels included, at their titles on their pages', async () => {
    const { text, sections } = await extractPdf(await handbook(), limits);
    expect(sections.map((s) => [s.level, s.title])).toEqual([
      [1, 'Introduction'],
      [1, 'Tides'],
      [1, 'Storms'],
      [2, 'Spring tides'],
    ]);
    for (const s of sections) expect(text.slice(s.start, s.contentStart)).toBe(s.title);
  });

  it('has no sections without an outline', async () => {
    expect((await extractPdf(await makePdf({ pages: [{ lines: ['Just text.'] }] }), limits)).sections).toEqual([]);
  });

  describe('files it refuses, with a reason', () => {
    it.each([
      ['an encrypted PDF', makeEncryptedPdf, 'encrypted PDF (it needs a password to open)', 'encrypted'],
      ['a truncated PDF', () => makeTruncatedPdf(0.5), /^not a readable PDF: truncated or damaged/, 'damaged'],
      ['a PDF with no text layer', makeScannedPdf, 'no text layer (a scanned PDF? OCR is not supported)', 'no_text'],
      ['a PDF over the page limit', () => makeManyPagePdf(5000), '5000 pages, over the 2000-page limit', 'over_limit'],
      ['bytes that are not a PDF', async () => new TextEncoder().encode('<html>not a pdf</html>'), /^not a readable PDF/, 'damaged'],
    ])('%s', async (_name, make, reason, code) => {
      const error = await extractPdf(await make(), limits).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionError);
      expect((error as Error).message).toMatch(reason);
      expect((error as ExtractionError).code).toBe(code);
    });
  });
});
