// Markdown: YAML front matter, ATX (`## Title`) and setext (`Title` over `===`/`---`) headings,
// fenced code blocks whose `#` lines are not headings; LF, CRLF and CR line endings alike.
import type { Section } from '../document.js';
import { type Extracted, type Line, plainTitle, splitLines } from './extracted.js';
import { extractWithFrontMatter } from './text-with-front-matter.js';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// Lines that start a block of their own, so they cannot be the text of a setext heading.
const NOT_PARAGRAPH = /^(?: {4}|\t| {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|#|<|\|))/;

export function extractMarkdown(text: string): Extracted {
  return extractWithFrontMatter(text, markdownSections);
}

/** The ATX and setext headings of `text` from `from` on, outside fenced code, in one pass. */
export function markdownSections(text: string, from: number): Section[] {
  const sections: Section[] = [];
  let fence = '';
  let paragraph: Line[] = [];
  for (const line of splitLines(text, from)) {
    const content = text.slice(line.start, line.end);
    const fenceMatch = FENCE.exec(content);
    if (fence !== '') {
      const marker = fenceMatch?.[1];
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = '';
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1] ?? '```';
      paragraph = [];
      continue;
    }
    const heading = atxHeading(text, line);
    if (heading) {
      sections.push(heading);
      paragraph = [];
      continue;
    }
    if (paragraph.length > 0 && isSetextUnderline(text, line)) {
      const first = paragraph[0] as Line;
      const raw = paragraph.map((l) => text.slice(l.start, l.end)).join(' ');
      sections.push({
        start: first.start,
        headingStart: first.start,
        contentStart: line.next,
        level: content.trim().startsWith('=') ? 1 : 2,
        title: plainTitle(raw),
      });
      paragraph = [];
      continue;
    }
    if (content.trim() === '' || NOT_PARAGRAPH.test(content) || isThematicBreak(text, line)) paragraph = [];
    else paragraph.push(line);
  }
  return sections;
}

const isSpace = (c: number): boolean => c === 32 || c === 9;

// Underlines and breaks are scanned by hand: a backreference repeated over a multi-megabyte line of
// `-` overflows V8's regex stack, and one such line would fail the whole file.

/** Where the line's content begins after at most three spaces of indent. */
function afterIndent(text: string, { start, end }: Line): number {
  let i = start;
  while (i < end && i - start < 3 && text.charCodeAt(i) === 32) i += 1;
  return i;
}

/** `===` or `---` (one character, repeated), then only spaces and tabs. */
function isSetextUnderline(text: string, line: Line): boolean {
  let i = afterIndent(text, line);
  const marker = text.charCodeAt(i);
  if (i >= line.end || (marker !== 61 && marker !== 45)) return false;
  while (i < line.end && text.charCodeAt(i) === marker) i += 1;
  while (i < line.end && isSpace(text.charCodeAt(i))) i += 1;
  return i === line.end;
}

/** Three or more of one of `-`, `*`, `_`, with only spaces and tabs between and after them. */
function isThematicBreak(text: string, line: Line): boolean {
  let i = afterIndent(text, line);
  const marker = text.charCodeAt(i);
  if (i >= line.end || (marker !== 45 && marker !== 42 && marker !== 95)) return false;
  let count = 0;
  for (; i < line.end; i += 1) {
    const c = text.charCodeAt(i);
    if (c === marker) count += 1;
    else if (!isSpace(c)) return false;
  }
  return count >= 3;
}

/**
 * An ATX heading line (`## Title ##`), scanned by hand: a regex with a lazy title followed by an
 * optional closing sequence and trailing spaces backtracks quadratically on a long line of spaces.
 */
function atxHeading(text: string, line: Line): Section | undefined {
  const { start, end } = line;
  let i = afterIndent(text, line);
  const hashes = i;
  while (i < end && text.charCodeAt(i) === 35) i += 1;
  const level = i - hashes;
  if (level === 0 || level > 6 || (i < end && !isSpace(text.charCodeAt(i)))) return undefined;
  const headingStart = i;
  let from = i;
  while (from < end && isSpace(text.charCodeAt(from))) from += 1;
  let to = end;
  while (to > from && isSpace(text.charCodeAt(to - 1))) to -= 1;
  // A closing run of `#` counts only when it stands alone or after a space ("C#" keeps its `#`).
  let closing = to;
  while (closing > from && text.charCodeAt(closing - 1) === 35) closing -= 1;
  if (closing === from) to = from;
  else if (closing < to && isSpace(text.charCodeAt(closing - 1))) {
    to = closing;
    while (to > from && isSpace(text.charCodeAt(to - 1))) to -= 1;
  }
  return { start, headingStart, contentStart: line.next, level, title: plainTitle(text.slice(from, to)) };
}
