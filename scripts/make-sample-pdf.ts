// Writes corpus/formats/pdf-documents.pdf, the bundled corpus's sample PDF: three pages, an outline,
// and a title in its metadata. Run `npx tsx scripts/make-sample-pdf.ts` after editing the text.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { makePdf } from '../test/support/pdf-fixtures.js';

const OUT = resolve(import.meta.dirname, '../corpus/formats/pdf-documents.pdf');

const wrap = (paragraph: string, width = 62): string[] => {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return [...lines, ''];
};

const page = (heading: string, ...paragraphs: string[]) => ({ lines: [heading, '', ...paragraphs.flatMap((p) => wrap(p))] });

const bytes = await makePdf({
  title: 'PDF documents in corpus-mcp',
  pages: [
    page(
      'How PDF files are read',
      'corpus-mcp reads the text layer of every page of a PDF file with pdf.js. The pages are joined with a blank line between them, and every search result, every passage from get_chunk and every stretch of text from get_document says which page it comes from, counting the first page as page 1.',
      'This sample file is a PDF of three pages, written by scripts/make-sample-pdf.ts, so that a new installation shows PDF search and page numbers at work.',
    ),
    page(
      'Titles and sections',
      'The title of a PDF document comes from its metadata, or else from the first line of its text. When the PDF has an outline, also called bookmarks, each outline entry becomes a section, and its title becomes the heading path of the passages below it.',
      'A word broken by a hyphen at the end of a line is joined again, so a search for the whole word finds it.',
    ),
    page(
      'Scanned PDFs and limits',
      'A scanned PDF holds only pictures of its pages and no text layer. corpus-mcp does not run OCR, so such a file is skipped, and list_documents says why: no text layer. Run an OCR tool such as ocrmypdf first to add a text layer.',
      'A PDF with more pages than the page limit, an encrypted PDF, or a damaged or truncated file is skipped with its reason, and the rest of the corpus is served.',
    ),
  ],
  outline: [
    { title: 'How PDF files are read', page: 0 },
    { title: 'Titles and sections', page: 1 },
    { title: 'Scanned PDFs and limits', page: 2 },
  ],
});
writeFileSync(OUT, bytes);
