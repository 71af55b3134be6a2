// The docs a newcomer reads stay short enough to read, and every link between them lands somewhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES: Record<string, number> = {
  'README.md': 250,
  'docs/ARCHITECTURE.md': 200,
  'docs/BENCHMARKS.md': 400,
};

const DOCS = ['README.md', ...readdirSync('docs').filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

const lineCount = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** GitHub's heading anchor: lower case, punctuation dropped (but `-` and `_`), spaces as `-`. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (text: string): Set<string> =>
  new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ''))));

describe('the docs', () => {
  it.each(Object.entries(MAX_LINES))('%s stays at most %i lines', (file, max) => {
    expect(lineCount(readFileSync(file, 'utf8')), file).toBeLessThanOrEqual(max);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    let links = 0;
    for (const file of DOCS) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\]\(((?!https?:|mailto:)[^)\s#]*)(?:#([^)\s]+))?\)/g)) {
        links++;
        const target = m[1] ? normalize(join(dirname(file), m[1])) : file;
        if (!existsSync(target)) broken.push(`${file}: ${m[0]}`);
        else if (m[2] && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(m[2])) {
          broken.push(`${file}: ${m[0]} (no such heading)`);
        }
      }
    }
    expect(links).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});
