import type { Section } from '../corpus/document.js';

/** A span of a document's text that is indexed and returned as one unit. */
export interface ChunkSpan {
  /** Offset of the first character, in UTF-16 code units of the document text. */
  start: number;
  /** Offset one past the last character; `text.slice(start, end)` is the chunk. */
  end: number;
  /** Titles of the sections the chunk lies in, outermost first; empty before the first heading. */
  headings: readonly string[];
}

export interface ChunkerOptions {
  /** Longest chunk, in words. */
  chunkWords: number;
  /** Words a chunk shares with the one before it when a section is split into windows. */
  overlapWords: number;
}

interface Part {
  /** Offset of the heading, or of the first word when the part has no heading. */
  start: number;
  headings: readonly string[];
  /** Start and end offsets of each word, flattened: [s0, e0, s1, e1, ...]. */
  words: number[];
  /** How many of the words belong to the heading itself. */
  headingWords: number;
  /** Word indexes that begin a paragraph. */
  paragraphStarts: number[];
}

/** A word: a run of non-space characters, except that each ideograph or kana counts as a word. */
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * Splits a document body into chunks along the sections its extractor found (sorted by `start`, at
 * or after `bodyStart`); the chunker itself knows no markup. Chunks never cross a section; a section longer than
 * `chunkWords` is cut into evenly sized windows that overlap by `overlapWords`, each cut moved back
 * to a paragraph break when one lies in the second half of the window. A heading with no text of
 * its own joins the section below it, so "# Deploy" then "## Fly.io" yields one chunk under
 * "Deploy › Fly.io" rather than a chunk holding a lone heading.
 */
export function chunkText(text: string, bodyStart: number, sections: readonly Section[], options: ChunkerOptions): ChunkSpan[] {
  const parts = splitParts(text, bodyStart, sections);
  const chunks: ChunkSpan[] = [];
  let carriedStart = -1;
  parts.forEach((section, index) => {
    const wordCount = section.words.length / 2;
    if (wordCount === 0) return;
    const isLast = index === parts.length - 1;
    if (wordCount === section.headingWords && !isLast) {
      if (carriedStart < 0) carriedStart = section.start;
      return;
    }
    const start = carriedStart >= 0 ? carriedStart : section.start;
    carriedStart = -1;
    for (const [from, to] of windows(section, options)) {
      chunks.push({
        start: from === 0 ? start : (section.words[from * 2] ?? 0),
        end: section.words[to * 2 - 1] ?? 0,
        headings: section.headings,
      });
    }
  });
  return chunks;
}

/** Word ranges `[from, to)` of the windows a section is cut into. */
function windows(section: Part, { chunkWords, overlapWords }: ChunkerOptions): Array<[number, number]> {
  const total = section.words.length / 2;
  const out: Array<[number, number]> = [];
  let from = 0;
  let paragraph = 0;
  while (total - from > chunkWords) {
    // Even windows: the remaining words over as few windows as fit, so no runt chunk at the end.
    const remaining = total - from;
    const count = Math.ceil((remaining - overlapWords) / (chunkWords - overlapWords));
    const size = Math.min(chunkWords, Math.ceil((remaining + (count - 1) * overlapWords) / count));
    let to = from + size;
    while (paragraph < section.paragraphStarts.length && (section.paragraphStarts[paragraph] ?? 0) <= from) paragraph += 1;
    for (let p = paragraph; p < section.paragraphStarts.length; p += 1) {
      const candidate = section.paragraphStarts[p] ?? 0;
      if (candidate > from + size) break;
      if (candidate >= from + Math.ceil(size / 2)) to = candidate;
    }
    out.push([from, to]);
    from = Math.max(from + 1, to - overlapWords);
  }
  out.push([from, total]);
  return out;
}

/** Cuts the body into parts at the sections, collecting word offsets and paragraph starts. */
function splitParts(text: string, bodyStart: number, sections: readonly Section[]): Part[] {
  const parts: Part[] = [];
  const open: Array<{ level: number; title: string }> = [];
  let current: Part = { start: -1, headings: [], words: [], headingWords: 0, paragraphStarts: [] };
  let from = bodyStart;
  for (const section of sections) {
    // Offsets from an extractor are trusted to be ordered; clamping keeps a bad one from reading text twice.
    const start = Math.max(section.start, from);
    collectBody(text, from, start, current);
    if (current.words.length > 0) parts.push(current);
    // A heading closes every open heading of its level or deeper, whatever level the document starts at.
    while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= section.level) open.pop();
    if (section.title !== '') open.push({ level: section.level, title: section.title });
    current = { start, headings: open.map((h) => h.title), words: [], headingWords: 0, paragraphStarts: [] };
    const contentStart = Math.min(Math.max(section.contentStart, start), text.length);
    collectWords(text, Math.max(section.headingStart, start), contentStart, current.words);
    current.headingWords = current.words.length / 2;
    from = contentStart;
  }
  collectBody(text, from, text.length, current);
  if (current.words.length > 0) parts.push(current);
  return parts;
}

/**
 * Appends the start and end offsets of each word of `text[from, to)` to `words`: what WORD finds
 * in that slice. Runs of ASCII are
 * split by hand, the bulk of most text; the regex takes over where a non-ASCII character could
 * change the answer, on the slice as WORD would see it.
 */
export function collectWords(text: string, from: number, to: number, words: number[]): void {
  let span: string | undefined;
  let at = from;
  while (at < to) {
    const code = text.charCodeAt(at);
    if (code < 0x80) {
      if (isAsciiSpace(code)) {
        at += 1;
        continue;
      }
      let end = at + 1;
      while (end < to) {
        const next = text.charCodeAt(end);
        if (next >= 0x80 || isAsciiSpace(next)) break;
        end += 1;
      }
      if (end === to || text.charCodeAt(end) < 0x80) {
        words.push(at, end);
        at = end;
        continue;
      }
    }
    span ??= text.slice(from, to);
    WORD.lastIndex = at - from;
    const m = WORD.exec(span);
    if (m === null) return;
    at = from + m.index + m[0].length;
    words.push(from + m.index, at);
  }
}

/** The ASCII characters `\s` matches: tab, line feed, vertical tab, form feed, carriage return, space. */
function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/**
 * Collects the words of a section's text; a word begins a paragraph when it is the first of the text
 * or a blank line (two line breaks, CRLF counting as one) lies between it and the word before.
 */
function collectBody(text: string, from: number, to: number, part: Part): void {
  const first = part.words.length;
  collectWords(text, from, to, part.words);
  let previousEnd = from;
  for (let w = first; w < part.words.length; w += 2) {
    const wordStart = part.words[w] as number;
    if (w === first || lineBreaks(text, previousEnd, wordStart) >= 2) part.paragraphStarts.push(w / 2);
    previousEnd = part.words[w + 1] as number;
  }
  if (part.start < 0 && part.words.length > first) part.start = part.words[first] as number;
}

function lineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) count += 1;
  }
  return count;
}
