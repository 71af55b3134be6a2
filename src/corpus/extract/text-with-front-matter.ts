// The shape shared by the formats read as lines of text (Markdown, reStructuredText, plain text):
// optional YAML front matter, then a body whose sections the format finds.
import type { Section } from '../document.js';
import { parseFrontMatter } from '../front-matter.js';
import type { Extracted } from './extracted.js';

/**
 * The text as decoded, its body after any front matter, the sections `findSections` finds in the
 * body, and as title the front matter `title`, else the first non-empty section title.
 */
export function extractWithFrontMatter(text: string, findSections: (text: string, bodyStart: number) => Section[]): Extracted {
  const frontMatter = parseFrontMatter(text);
  const sections = findSections(text, frontMatter.bodyStart);
  const title = frontMatter.title ?? sections.find((s) => s.title !== '')?.title;
  return {
    text,
    bodyStart: frontMatter.bodyStart,
    ...(title === undefined ? {} : { title }),
    ...(frontMatter.url === undefined ? {} : { url: frontMatter.url }),
    sections,
    ...(frontMatter.error === undefined ? {} : { warning: frontMatter.error }),
  };
}
