/** A span of a document's text that is indexed and returned as one unit. */
export interface ChunkSpan {
  /** Offset of the first character, in UTF-16 code units of the document text. */
  start: number;
  /** Offset one past the last character; `text.slice(start, end)` is the chunk. */
  end: number;
  /** The Markdown headings above the chunk, outermost first; empty before the first heading. */
  headings: readonly string[];
}

export interface ChunkerOptions {
  /** Longest chunk, in words. */
  chunkWords: number;
  /** Words a chunk shares with the one before it when a section is split into windows. */
  overlapWords: number;
}

interface Section {
  /** Offset of the heading line, or of the first word when the section has no heading. */
  start: number;
  headings: readonly string[];
  /** Start and end offsets of each word, flattened: [s0, e0, s1, e1, ...]. */
  words: number[];
  /** How many of the words belong to the heading line itself. */
  headingWords: number;
  /** Word indexes that begin a paragraph. */
  paragraphStarts: number[];
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const BLANK = /^[ \t]*$/;
/** A word: a run of non-space characters, except that each ideograph or kana counts as a word. */
const WORD = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

/**
 * Splits a document body into chunks. Chunks never cross a Markdown heading; a section longer than
 * `chunkWords` is cut into evenly sized windows that overlap by `overlapWords`, each cut moved back
 * to a paragraph break when one lies in the second half of the window. A heading with no text of
 * its own joins the section below it, so "# Deploy" then "## Fly.io" yields one chunk under
 * "Deploy › Fly.io" rather than a chunk holding a lone heading.
 */
export function chunkText(text: string, bodyStart: number, options: ChunkerOptions): ChunkSpan[] {
  const sections = splitSections(text, bodyStart);
  const chunks: ChunkSpan[] = [];
  let carriedStart = -1;
  sections.forEach((section, index) => {
    const wordCount = section.words.length / 2;
    if (wordCount === 0) return;
    const isLast = index === sections.length - 1;
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
function windows(section: Section, { chunkWords, overlapWords }: ChunkerOptions): Array<[number, number]> {
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

/** Cuts the body into sections at ATX headings outside code fences, collecting word offsets. */
function splitSections(text: string, bodyStart: number): Section[] {
  const sections: Section[] = [];
  let current: Section = { start: -1, headings: [], words: [], headingWords: 0, paragraphStarts: [] };
  const open: Array<{ level: number; title: string }> = [];
  let fence = '';
  let inParagraph = false;
  let lineStart = bodyStart;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const fenceMatch = FENCE.exec(line);
    const heading = fence === '' ? HEADING.exec(line) : null;
    if (fenceMatch !== null) {
      const marker = fenceMatch[1] ?? '';
      if (fence === '') fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = '';
    }
    if (heading !== null) {
      if (current.words.length > 0) sections.push(current);
      const level = (heading[1] ?? '#').length;
      const title = (heading[2] ?? '').trim();
      // A heading closes every open heading of its level or deeper, whatever level the document starts at.
      while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= level) open.pop();
      if (title !== '') open.push({ level, title });
      const headings = open.map((h) => h.title);
      current = { start: lineStart, headings, words: [], headingWords: 0, paragraphStarts: [] };
      const contentStart = lineStart + line.indexOf(heading[1] ?? '#') + level;
      collectWords(text, contentStart, lineEnd, current);
      current.headingWords = current.words.length / 2;
      inParagraph = false;
    } else if (BLANK.test(line) && fence === '') {
      inParagraph = false;
    } else {
      if (!inParagraph) current.paragraphStarts.push(current.words.length / 2);
      inParagraph = true;
      const before = current.words.length;
      collectWords(text, lineStart, lineEnd, current);
      if (current.start < 0 && current.words.length > before) current.start = current.words[before] ?? lineStart;
    }
    lineStart = lineEnd + 1;
  }
  if (current.words.length > 0) sections.push(current);
  return sections;
}

function collectWords(text: string, from: number, to: number, section: Section): void {
  const line = text.slice(from, to);
  WORD.lastIndex = 0;
  for (let m = WORD.exec(line); m !== null; m = WORD.exec(line)) {
    section.words.push(from + m.index, from + m.index + m[0].length);
  }
}
