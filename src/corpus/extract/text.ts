// Plain text: no heading detection, since a `# ` or an underlined line in a .txt file is just text.
import type { Extracted } from './extracted.js';
import { extractWithFrontMatter } from './text-with-front-matter.js';

export function extractText(text: string): Extracted {
  return extractWithFrontMatter(text, () => []);
}
