// DOCX files written with JSZip when the tests run: a Word document with a title, Heading 1/2
// paragraphs and body text (any, or the crew manual); and a zip bomb dressed as one.
import { unzipSync, zipSync } from 'fflate';
import JSZip from 'jszip';

export interface DocxSpec {
  /** docProps/core.xml dc:title, when set. */
  title?: string;
  /** Paragraphs in order: a heading level (1–6) or 0 for body text. */
  paragraphs: Array<{ level: number; text: string }>;
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

function base(zip: JSZip, title: string | undefined): void {
  zip.file(
    '[Content_Types].xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
      '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>',
  );
  zip.file(
    '_rels/.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
      '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>',
  );
  zip.file(
    'word/_rels/document.xml.rels',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>',
  );
  const styles = [1, 2, 3, 4, 5, 6]
    .map((n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/></w:style>`)
    .join('');
  zip.file('word/styles.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ${W}>${styles}</w:styles>`);
  zip.file(
    'docProps/core.xml',
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">' +
      (title === undefined ? '' : `<dc:title>${escape(title)}</dc:title>`) +
      '</cp:coreProperties>',
  );
}

export async function makeDocx(spec: DocxSpec): Promise<Uint8Array> {
  const zip = new JSZip();
  base(zip, spec.title);
  const body = spec.paragraphs
    .map(({ level, text }) => {
      const style = level > 0 ? `<w:pPr><w:pStyle w:val="Heading${level}"/></w:pPr>` : '';
      return `<w:p>${style}<w:r><w:t xml:space="preserve">${escape(text)}</w:t></w:r></w:p>`;
    })
    .join('');
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body>${body}</w:body></w:document>`);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

/**
 * The crew manual both the extractor's tests and the end-to-end format tests read: a title property,
 * two levels of headings, and an ampersand the XML must escape.
 */
export function makeCrewManualDocx(): Promise<Uint8Array> {
  return makeDocx({
    title: 'Crew Manual',
    paragraphs: [
      { level: 1, text: 'Duties' },
      { level: 0, text: 'Keep watch & log every passing ship in the ledger.' },
      { level: 2, text: 'Night watch' },
      { level: 0, text: 'Light the lamps at dusk and trim the wicks at midnight.' },
      { level: 1, text: 'Safety' },
      { level: 0, text: 'Wear a life jacket on deck.' },
    ],
  });
}

/**
 * A DOCX-looking zip whose document.xml inflates to `unpackedBytes` of spaces from a few hundred KB
 * (written with fflate, which deflates this much far faster than JSZip).
 */
export async function makeDocxZipBomb(unpackedBytes = 128 * 1024 * 1024): Promise<Uint8Array> {
  const normal = unzipSync(await makeDocx({ title: 'Bomb', paragraphs: [{ level: 0, text: 'x' }] }));
  const head = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W}><w:body><w:p><w:r><w:t>`;
  const tail = '</w:t></w:r></w:p></w:body></w:document>';
  const document = new Uint8Array(unpackedBytes).fill(0x20);
  const encoder = new TextEncoder();
  document.set(encoder.encode(head), 0);
  document.set(encoder.encode(tail), unpackedBytes - tail.length);
  return zipSync({ ...normal, 'word/document.xml': [document, { level: 1 }] });
}

/**
 * `makeDocxZipBomb` with a zip directory that lies: the local and central headers of document.xml
 * declare `declaredBytes` unpacked, so a check of the declared sizes lets it through.
 */
export async function makeLyingDocx(unpackedBytes: number, declaredBytes = 100): Promise<Uint8Array> {
  const zip = await makeDocxZipBomb(unpackedBytes);
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const name = new TextEncoder().encode('word/document.xml');
  const named = (at: number): boolean => name.every((byte, i) => zip[at + i] === byte);
  let patched = 0;
  for (let at = 0; at + 46 < zip.length; at += 1) {
    const signature = view.getUint32(at, true);
    // Local file header: uncompressed size at 22, name at 30; central directory header: at 24 and 46.
    if (signature === 0x04034b50 && view.getUint16(at + 26, true) === name.length && named(at + 30)) {
      view.setUint32(at + 22, declaredBytes, true);
      patched += 1;
    } else if (signature === 0x02014b50 && view.getUint16(at + 28, true) === name.length && named(at + 46)) {
      view.setUint32(at + 24, declaredBytes, true);
      patched += 1;
    }
  }
  if (patched !== 2) throw new Error(`expected to patch 2 headers of word/document.xml, patched ${patched}`);
  return zip;
}
