import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { makeCrewManualDocx, makeDocx, makeDocxZipBomb, makeLyingDocx } from '../../../test/support/docx-fixtures.js';
import { extractDocx } from './docx.js';
import { ExtractionError } from './extracted.js';

const limits = { maxPages: 2000, maxUnpackedBytes: 100 * 1024 * 1024 };

describe('extractDocx', () => {
  it('takes the title from the document properties', async () => {
    expect((await extractDocx(await makeCrewManualDocx(), limits)).title).toBe('Crew Manual');
  });

  it('falls back to the first Heading 1 without a title property', async () => {
    const docx = await makeDocx({ paragraphs: [{ level: 0, text: 'Preface.' }, { level: 1, text: 'Getting aboard' }, { level: 0, text: 'x' }] });
    expect((await extractDocx(docx, limits)).title).toBe('Getting aboard');
  });

  it('keeps the headings as sections, at their offsets in the text', async () => {
    const { text, sections } = await extractDocx(await makeCrewManualDocx(), limits);
    expect(sections.map((s) => [s.level, s.title])).toEqual([
      [1, 'Duties'],
      [2, 'Night watch'],
      [1, 'Safety'],
    ]);
    for (const s of sections) expect(text.slice(s.start, s.contentStart).trim()).toBe(s.title);
    expect(text).toContain('Keep watch & log every passing ship in the ledger.');
  });

  describe('files it refuses, with a reason', () => {
    it('a zip bomb dressed as a DOCX, before inflating it', async () => {
      const error = await extractDocx(await makeDocxZipBomb(), limits).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionError);
      expect((error as Error).message).toBe('would unpack to 128 MB, over the 100 MB limit (a zip bomb?)');
      expect((error as ExtractionError).code).toBe('over_limit');
    });

    it('a zip bomb whose directory lies about its sizes, stopped while inflating, before mammoth sees it', async () => {
      const docx = await makeLyingDocx(64 * 1024 * 1024);
      // The declared sizes pass the check: only counting the inflated bytes catches it.
      const error = await extractDocx(docx, { ...limits, maxUnpackedBytes: 8 * 1024 * 1024 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExtractionError);
      expect((error as Error).message).toBe('unpacks to more than the 8 MB limit, though its zip directory declares less (a zip bomb?)');
    });

    it('bytes that are not a zip', async () => {
      await expect(extractDocx(new TextEncoder().encode('just text'), limits)).rejects.toThrow(/^not a readable DOCX/);
    });

    it('a zip without a Word document in it', async () => {
      await expect(extractDocx(zipSync({ 'readme.txt': new TextEncoder().encode('hi') }), limits)).rejects.toThrow(
        'not a Word document (the archive has no word/document.xml)',
      );
    });
  });
});
