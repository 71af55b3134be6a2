// reStructuredText: section titles underlined, or over- and underlined, with a repeated punctuation
// character. As in docutils, a title's level is the order in which its adornment style first appears.
import type { Section } from '../document.js';
import { type Extracted, type Line, isBlank, plainTitle, splitLines } from './extracted.js';
import { extractWithFrontMatter } from './text-with-front-matter.js';

/**
 * The character of an adornment line (three or more of one non-alphanumeric printable ASCII
 * character, then only spaces and tabs), else undefined. Scanned by hand: a regex backreference
 * repeated over a multi-megabyte line of `-` overflows V8's regex stack.
 */
function adornment(line: string): string | undefined {
  const c = line.charCodeAt(0);
  const punctuation = (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  if (!punctuation) return undefined;
  let i = 1;
  while (i < line.length && line.charCodeAt(i) === c) i += 1;
  if (i < 3) return undefined;
  while (i < line.length && (line.charCodeAt(i) === 32 || line.charCodeAt(i) === 9)) i += 1;
  return i === line.length ? line[0] : undefined;
}

export function extractRestructuredText(text: string): Extracted {
  return extractWithFrontMatter(text, restructuredTextSections);
}

export function restructuredTextSections(text: string, from: number): Section[] {
  const lines = splitLines(text, from);
  const sections: Section[] = [];
  const styles: string[] = [];
  const slice = (line: Line | undefined): string => (line === undefined ? '' : text.slice(line.start, line.end));
  const levelOf = (style: string): number => {
    let at = styles.indexOf(style);
    if (at < 0) at = styles.push(style) - 1;
    return at + 1;
  };
  for (let i = 0; i + 1 < lines.length; i += 1) {
    const line = lines[i] as Line;
    const content = slice(line);
    const next = slice(lines[i + 1]);
    const overline = adornment(content);
    if (overline !== undefined) {
      // Over-and-underlined: the title may be inset, and the underline must repeat the overline.
      const underline = lines[i + 2];
      const title = plainTitle(next);
      if (underline && next.trim() !== '' && adornment(next) === undefined && slice(underline).trim() === content.trim() && title !== '') {
        sections.push({ start: line.start, headingStart: line.start, contentStart: underline.next, level: levelOf(`over${overline}`), title });
        i += 2;
      }
      continue;
    }
    if (isBlank(text, line.start, line.end) || /^\s/.test(content)) continue;
    const underline = adornment(next);
    const previous = lines[i - 1];
    if (underline === undefined || (previous !== undefined && !isBlank(text, previous.start, previous.end))) continue;
    const title = plainTitle(content);
    if (title === '') continue;
    sections.push({ start: line.start, headingStart: line.start, contentStart: (lines[i + 1] as Line).next, level: levelOf(`under${underline}`), title });
    i += 1;
  }
  return sections;
}
