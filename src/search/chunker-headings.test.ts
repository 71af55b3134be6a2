import { describe, expect, it } from 'vitest';
import { markdownSections } from '../corpus/extract/markdown.js';
import { chunkText as chunkSections, type ChunkerOptions } from './chunker.js';

/** The chunks of a Markdown text, with its sections found by the Markdown extractor. */
const chunkText = (text: string, bodyStart: number, options: ChunkerOptions) => chunkSections(text, bodyStart, markdownSections(text, bodyStart), options);

const paths = (text: string): string[] =>
  chunkText(text, 0, { chunkWords: 180, overlapWords: 40 }).map((c) => c.headings.join(' › '));

describe('chunkText', () => {
  describe('heading paths', () => {
    it('nests by heading level, not by position, when a document starts at ##', () => {
      const text = '## A\n\nalpha\n\n## B\n\nbeta\n\n### C\n\ngamma\n\n## D\n\ndelta\n';
      expect(paths(text)).toEqual(['A', 'B', 'B › C', 'D']);
    });

    it('closes deeper headings when a shallower one follows', () => {
      const text = '# Top\n\nintro\n\n## Sub\n\n#### Deep\n\nx\n\n### Mid\n\ny\n\n# Next\n\nz\n';
      expect(paths(text)).toEqual(['Top', 'Top › Sub › Deep', 'Top › Sub › Mid', 'Next']);
    });
  });
});
