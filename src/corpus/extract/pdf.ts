// PDF: the text layer of every page through pdf.js (the build bundled by unpdf, which needs no
// worker file, canvas or native module), pages joined by a blank line, with page spans; the
// outline, when there is one, gives the sections. OCR is out of scope: a PDF without a text layer
// (a scan) is skipped with that reason.
import { getDocumentProxy } from 'unpdf';
import type { PageSpan, Section } from '../document.js';
import { type Extracted, ExtractionError, type ExtractionLimits, plainTitle } from './extracted.js';

type PdfDocument = Awaited<ReturnType<typeof getDocumentProxy>>;

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  hasEOL: boolean;
}

interface Line {
  text: string;
  /** Baseline and font size of the line's first item, to tell line from paragraph breaks. */
  y: number;
  size: number;
}

/** Outline entries read at most; a hostile outline can hold millions. */
const MAX_OUTLINE_ITEMS = 5000;
/** A word broken at a line end: a letter, a hyphen, then the next line starting in lower case. */
const HYPHENATED_END = /\p{L}-$/u;
const LOWER_START = /^\p{Ll}/u;

export async function extractPdf(bytes: Uint8Array, { maxPages }: ExtractionLimits): Promise<Extracted> {
  let pdf: PdfDocument;
  try {
    // pdf.js may take ownership of the buffer it is given, so it gets a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, disableFontFace: true, verbosity: 0 });
  } catch (error) {
    throw openError(error);
  }
  try {
    if (pdf.numPages > maxPages) throw new ExtractionError('over_limit', `${pdf.numPages} pages, over the ${maxPages}-page limit`);
    const parts: string[] = [];
    const pages: PageSpan[] = [];
    let length = 0;
    for (let n = 1; n <= pdf.numPages; n += 1) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      const text = pageText(content.items as TextItem[]);
      page.cleanup();
      if (n > 1) {
        parts.push('\n\n');
        length += 2;
      }
      pages.push({ start: length, end: length + text.length });
      parts.push(text);
      length += text.length;
    }
    const text = parts.join('');
    if (text.trim() === '') throw new ExtractionError('no_text', 'no text layer (a scanned PDF? OCR is not supported)');
    const title = (await metadataTitle(pdf)) ?? firstLine(text);
    const sections = await outlineSections(pdf, text, pages);
    return { text, bodyStart: 0, ...(title === undefined ? {} : { title }), sections, pages };
  } catch (error) {
    if (error instanceof ExtractionError) throw error;
    throw new ExtractionError('damaged', `damaged PDF (${firstMessageLine(error)})`);
  } finally {
    await pdf.destroy();
  }
}

/**
 * A page's text items as lines, in the order the page draws them (pdf.js's content order, which is
 * the reading order of almost every generated PDF); within a line, items are put left to right. A
 * vertical gap of more than 1.5 line heights starts a paragraph; a word hyphenated at a line end is
 * joined.
 */
function pageText(items: readonly TextItem[]): string {
  const lines: Line[] = [];
  let current: Array<{ x: number; end: number; str: string }> = [];
  let y = 0;
  let size = 0;
  let lineEnded = true;
  const flush = (): void => {
    if (current.length === 0) return;
    current.sort((a, b) => a.x - b.x);
    let text = '';
    let previousEnd = Number.NEGATIVE_INFINITY;
    for (const item of current) {
      const gap = item.x - previousEnd;
      if (text !== '' && gap > size * 0.15 && !/\s$/.test(text) && !/^\s/.test(item.str)) text += ' ';
      text += item.str;
      previousEnd = item.end;
    }
    const trimmed = text.replace(/\s+/g, ' ').trim();
    if (trimmed !== '') lines.push({ text: trimmed, y, size });
    current = [];
  };
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    const itemY = item.transform[5] ?? 0;
    const itemSize = Math.abs(item.transform[3] ?? 0) || item.height || 10;
    if (!lineEnded && current.length > 0 && Math.abs(itemY - y) > Math.max(size, itemSize) * 0.5) lineEnded = true;
    if (lineEnded) {
      flush();
      y = itemY;
      size = itemSize;
      lineEnded = false;
    }
    if (item.str !== '') {
      const x = item.transform[4] ?? 0;
      current.push({ x, end: x + item.width, str: item.str });
    }
    if (item.hasEOL) lineEnded = true;
  }
  flush();

  let out = '';
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as Line;
    const previous = lines[i - 1];
    if (previous !== undefined) {
      if (HYPHENATED_END.test(out) && LOWER_START.test(line.text)) out = out.slice(0, -1);
      else out += Math.abs(previous.y - line.y) > Math.max(previous.size, line.size) * 1.5 ? '\n\n' : '\n';
    }
    out += line.text;
  }
  return out;
}

async function metadataTitle(pdf: PdfDocument): Promise<string | undefined> {
  try {
    const { info, metadata } = await pdf.getMetadata();
    const candidates = [metadata?.get('dc:title'), (info as { Title?: unknown } | undefined)?.Title];
    for (const candidate of candidates) {
      if (typeof candidate !== 'string') continue;
      const title = plainTitle(candidate);
      if (title !== '' && !/^untitled$/i.test(title)) return title;
    }
  } catch {
    // Broken metadata is no reason to skip the text.
  }
  return undefined;
}

function firstLine(text: string): string | undefined {
  const match = /\S[^\n]*/.exec(text.slice(0, 4000));
  return match ? plainTitle(match[0]) : undefined;
}

interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

/**
 * The outline's entries as sections, each at its title's first occurrence on its target page, or at
 * the top of that page when the title is not found there. Unresolvable entries are left out.
 */
async function outlineSections(pdf: PdfDocument, text: string, pages: readonly PageSpan[]): Promise<Section[]> {
  let outline: OutlineNode[] | null;
  try {
    outline = (await pdf.getOutline()) as OutlineNode[] | null;
  } catch {
    return [];
  }
  if (!outline) return [];
  const found: Array<Section & { order: number }> = [];
  const queue: Array<{ node: OutlineNode; level: number }> = [];
  const pushAll = (nodes: readonly OutlineNode[], level: number): void => {
    for (let i = nodes.length - 1; i >= 0; i -= 1) queue.push({ node: nodes[i] as OutlineNode, level });
  };
  pushAll(outline, 1);
  let visited = 0;
  while (queue.length > 0 && visited < MAX_OUTLINE_ITEMS) {
    const { node, level } = queue.pop() as { node: OutlineNode; level: number };
    visited += 1;
    pushAll(node.items ?? [], level + 1);
    const title = plainTitle(String(node.title ?? ''));
    const pageIndex = await destinationPage(pdf, node.dest);
    const page = pageIndex === undefined ? undefined : pages[pageIndex];
    if (title === '' || page === undefined) continue;
    const at = text.slice(page.start, page.end).indexOf(title);
    const start = at < 0 ? page.start : page.start + at;
    found.push({ start, headingStart: start, contentStart: at < 0 ? start : start + title.length, level, title, order: visited });
  }
  found.sort((a, b) => a.start - b.start || a.order - b.order);
  return found.map(({ order: _order, ...section }) => section);
}

async function destinationPage(pdf: PdfDocument, dest: OutlineNode['dest']): Promise<number | undefined> {
  try {
    const explicit = typeof dest === 'string' ? await pdf.getDestination(dest) : dest;
    const target = Array.isArray(explicit) ? explicit[0] : undefined;
    if (typeof target === 'number') return target;
    if (target && typeof target === 'object') return await pdf.getPageIndex(target as Parameters<PdfDocument['getPageIndex']>[0]);
  } catch {
    // A dangling destination: the entry is left out.
  }
  return undefined;
}

function openError(error: unknown): ExtractionError {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'PasswordException') return new ExtractionError('encrypted', 'encrypted PDF (it needs a password to open)');
  if (name === 'InvalidPDFException') return new ExtractionError('damaged', `not a readable PDF: truncated or damaged (${firstMessageLine(error)})`);
  return new ExtractionError('damaged', `damaged PDF (${firstMessageLine(error)})`);
}

function firstMessageLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n', 1)[0] ?? '').slice(0, 200);
}
