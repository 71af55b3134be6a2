// Extraction time per MB for each format: one input of about 1 MB per format, generated here (PDF
// with pdf-lib, DOCX with JSZip, the rest as text), each extracted in-process several times; the
// median is reported. The machine is shared and noisy: compare rows of one run, not runs.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { extractDocument } from '../src/corpus/extract/extract-document.js';
import type { DocumentFormat } from '../src/corpus/document.js';
import { makeDocx } from '../test/support/docx-fixtures.js';
import { makePdf } from '../test/support/pdf-fixtures.js';

const TARGET = 1024 * 1024;
const RUNS = Number(process.argv[2] ?? 5);
const limits = { maxPages: 100_000, maxUnpackedBytes: 1024 * 1024 * 1024 };

const prose = readFileSync(resolve(import.meta.dirname, '../corpus/ranking.md'), 'utf8')
  .replace(/^---[\s\S]*?---\n/, '')
  .split(/\n{2,}/)
  .map((p) => p.replace(/\s+/g, ' ').trim())
  .filter((p) => p !== '' && !p.startsWith('#') && !p.startsWith('|') && !p.startsWith('`'));

function repeatTo<T>(make: (i: number) => T, size: (t: T) => number): T[] {
  const out: T[] = [];
  let total = 0;
  for (let i = 0; total < TARGET; i += 1) {
    const item = make(i);
    out.push(item);
    total += size(item);
  }
  return out;
}
const paragraph = (i: number): string => prose[i % prose.length] as string;

// Word documents are deflated XML: repeated paragraphs would compress far better than real prose, so
// the DOCX input is built from pseudo-random words (a fixed seed) to compress like real text does.
let seed = 42;
const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const vocabulary = Array.from({ length: 5000 }, () => Array.from({ length: 3 + Math.floor(random() * 8) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(''));
const randomParagraph = (): string => Array.from({ length: 40 + Math.floor(random() * 60) }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ') + '.';

const markdown = repeatTo((i) => (i % 6 === 0 ? `## Section ${i}\n\n` : '') + `${paragraph(i)}\n\n`, (s) => s.length).join('');
const rst = repeatTo((i) => (i % 6 === 0 ? `Section ${i}\n${'-'.repeat(`Section ${i}`.length)}\n\n` : '') + `${paragraph(i)}\n\n`, (s) => s.length).join('');
const html = `<!doctype html><html><head><title>Bench</title></head><body><nav>menu</nav><main>${repeatTo(
  (i) => (i % 6 === 0 ? `<h2>Section ${i}</h2>` : '') + `<p>${paragraph(i).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>\n`,
  (s) => s.length,
).join('')}</main></body></html>`;

const wrap = (text: string): string[] => text.replace(/[^\x20-\x7e]/g, ' ').match(/.{1,70}(\s|$)/g)?.map((l) => l.trim()) ?? [];

async function pdfOfAboutOneMb(): Promise<Uint8Array> {
  // Probe the bytes one page costs, then write enough pages.
  const pageLines = (p: number) => [`Section ${p}`, '', ...[0, 1, 2, 3].flatMap((k) => [...wrap(paragraph(p * 4 + k)), ''])].slice(0, 48);
  const probe = await makePdf({ pages: Array.from({ length: 10 }, (_, p) => ({ lines: pageLines(p) })) });
  const pages = Math.max(1, Math.round((TARGET / probe.length) * 10));
  return makePdf({ title: 'Bench', pages: Array.from({ length: pages }, (_, p) => ({ lines: pageLines(p) })) });
}

async function docxOfAboutOneMb(): Promise<Uint8Array> {
  // DOCX is deflated XML: grow the paragraph count until the file is about 1 MB.
  let count = 500;
  for (;;) {
    const paragraphs = Array.from({ length: count }, (_, i) => ({ level: i % 6 === 0 ? 2 : 0, text: i % 6 === 0 ? `Section ${i}` : randomParagraph() }));
    const bytes = await makeDocx({ title: 'Bench', paragraphs });
    if (bytes.length >= TARGET * 0.9) return bytes;
    count = Math.ceil(count * (TARGET / bytes.length) * 1.05);
  }
}

const enc = new TextEncoder();
const inputs: Array<[DocumentFormat, string | Uint8Array, number]> = [
  ['markdown', markdown, enc.encode(markdown).length],
  ['restructuredtext', rst, enc.encode(rst).length],
  ['text', markdown, enc.encode(markdown).length],
  ['html', html, enc.encode(html).length],
];
const pdf = await pdfOfAboutOneMb();
inputs.push(['pdf', pdf, pdf.length]);
const docx = await docxOfAboutOneMb();
inputs.push(['docx', docx, docx.length]);

console.log(`extraction, in-process, median of ${RUNS} runs after one warm-up (Node ${process.version}; shared 2-core machine, noisy)`);
console.log('| format | file | extracted text | sections | median ms | ms per MB of file | ms per MB of text |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [format, input, bytes] of inputs) {
  const first = await extractDocument(format, input, limits);
  const times: number[] = [];
  for (let r = 0; r < RUNS; r += 1) {
    const t = performance.now();
    await extractDocument(format, input, limits);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] as number;
  const mb = bytes / (1024 * 1024);
  console.log(
    `| ${format} | ${(bytes / 1024).toFixed(0)} KB | ${(first.text.length / 1024).toFixed(0)} K chars | ${first.sections.length} | ${median.toFixed(1)} | ${(median / mb).toFixed(1)} | ${(median / (first.text.length / (1024 * 1024))).toFixed(1)} |`,
  );
}
