// PDFs written with pdf-lib when the tests run: several pages, an outline, a hyphenated line end,
// metadata, and the hostile kinds (truncated, encrypted, a huge page count, no text layer).
import { zlibSync } from 'fflate';
import { PDFDocument, PDFHexString, PDFName, type PDFPage, type PDFRef, StandardFonts } from 'pdf-lib';

export interface PdfPageSpec {
  /** Lines drawn top to bottom; an empty string leaves a paragraph gap. */
  lines: string[];
}

export interface PdfSpec {
  pages: PdfPageSpec[];
  /** Document information Title. */
  title?: string;
  /** Outline entries: title, 0-based target page, and nested entries. */
  outline?: OutlineSpec[];
}

export interface OutlineSpec {
  title: string;
  page: number;
  children?: OutlineSpec[];
}

export async function makePdf(spec: PdfSpec): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (spec.title !== undefined) doc.setTitle(spec.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pages: PDFPage[] = [];
  for (const pageSpec of spec.pages) {
    const page = doc.addPage([400, 600]);
    let y = 560;
    for (const line of pageSpec.lines) {
      if (line !== '') page.drawText(line, { x: 40, y, size: 11, font });
      y -= 14;
    }
    pages.push(page);
  }
  if (spec.outline) addOutline(doc, pages.map((p) => p.ref), spec.outline);
  return doc.save({ useObjectStreams: false });
}

function addOutline(doc: PDFDocument, pageRefs: PDFRef[], entries: OutlineSpec[]): void {
  const context = doc.context;
  const rootRef = context.nextRef();
  const build = (items: OutlineSpec[], parent: PDFRef): { first: PDFRef; last: PDFRef; count: number } => {
    const refs = items.map(() => context.nextRef());
    let count = 0;
    items.forEach((item, i) => {
      const dict = context.obj({
        Title: PDFHexString.fromText(item.title),
        Parent: parent,
        Dest: [pageRefs[item.page]!, 'XYZ', null, null, null],
      });
      if (i > 0) dict.set(PDFName.of('Prev'), refs[i - 1]!);
      if (i < refs.length - 1) dict.set(PDFName.of('Next'), refs[i + 1]!);
      if (item.children?.length) {
        const kids = build(item.children, refs[i]!);
        dict.set(PDFName.of('First'), kids.first);
        dict.set(PDFName.of('Last'), kids.last);
        dict.set(PDFName.of('Count'), context.obj(kids.count));
        count += kids.count;
      }
      context.assign(refs[i]!, dict);
      count += 1;
    });
    return { first: refs[0]!, last: refs.at(-1)!, count };
  };
  const top = build(entries, rootRef);
  context.assign(rootRef, context.obj({ Type: 'Outlines', First: top.first, Last: top.last, Count: top.count }));
  doc.catalog.set(PDFName.of('Outlines'), rootRef);
}

/** A PDF whose user password is not empty: it cannot be opened without it. */
export async function makeEncryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([200, 200]).drawText('secret', { x: 20, y: 100, font, size: 12 });
  const context = doc.context;
  // RC4 40-bit standard security handler; O and U that no empty password matches.
  const encrypt = context.obj({ Filter: 'Standard', V: 1, R: 2, Length: 40, P: -44, O: PDFHexString.of('11'.repeat(32)), U: PDFHexString.of('22'.repeat(32)) });
  context.trailerInfo.Encrypt = context.register(encrypt);
  context.trailerInfo.ID = context.obj([PDFHexString.of('ab'.repeat(16)), PDFHexString.of('ab'.repeat(16))]);
  return doc.save({ useObjectStreams: false });
}

/** A small file with a huge page count: every page empty. */
export async function makeManyPagePdf(pageCount: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pageCount; i += 1) doc.addPage([10, 10]);
  return doc.save();
}

/** Pages with drawings but no text layer, like a scan. */
export async function makeScannedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < 2; i += 1) doc.addPage([200, 200]).drawRectangle({ x: 20, y: 20, width: 100, height: 150 });
  return doc.save();
}

/** The first `fraction` of a valid PDF's bytes, as a download cut short. */
export async function makeTruncatedPdf(fraction = 0.5): Promise<Uint8Array> {
  const whole = await makePdf({ pages: [{ lines: ['one'] }, { lines: ['two'] }, { lines: ['three'] }] });
  return whole.slice(0, Math.floor(whole.length * fraction));
}

/**
 * A one-page PDF whose content stream is a Flate stream of a few hundred KB that inflates to
 * `inflatedBytes` (spaces, then one line of text): pdf.js holds the output in an ArrayBuffer, which a
 * worker's heap limit does not count. Deflated with fflate, far faster than pdf-lib's pako.
 */
export async function makeFlateBombPdf(inflatedBytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([400, 600]);
  page.drawText('Flate bomb', { x: 40, y: 560, size: 11, font });
  const text = new TextEncoder().encode('BT /F1 11 Tf 40 540 Td (Boom) Tj ET\n');
  const content = new Uint8Array(inflatedBytes).fill(0x20);
  content.set(text, inflatedBytes - text.length);
  const stream = doc.context.stream(zlibSync(content, { level: 1 }), { Filter: 'FlateDecode' });
  page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  return doc.save({ useObjectStreams: false });
}
