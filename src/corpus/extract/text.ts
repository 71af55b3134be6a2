// Plain text: no heading detection, since a `# ` or an underlined line in a .txt file is just text.
import { parseFrontMatter } from '../front-matter.js';
import type { Extracted } from './extracted.js';

export function extractText(text: string): Extracted {
  const frontMatter = parseFrontMatter(text);
  return {
    text,
    bodyStart: frontMatter.bodyStart,
    ...(frontMatter.title === undefined ? {} : { title: frontMatter.title }),
    sections: [],
    ...(frontMatter.error === undefined ? {} : { warning: frontMatter.error }),
  };
}
