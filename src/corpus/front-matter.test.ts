import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from './front-matter.js';

describe('parseFrontMatter', () => {
  describe('bodyStart', () => {
    it.each([
      ['LF line endings', '---\ntitle: Deploy\n---\nBody'],
      ['CRLF line endings', '---\r\ntitle: Deploy\r\n---\r\nBody'],
      ['trailing spaces on the delimiters', '---  \ntitle: Deploy\n--- \nBody'],
    ])('points just past the closing delimiter line (%s)', (_name, text) => {
      const { bodyStart, title } = parseFrontMatter(text);
      expect(text.slice(bodyStart)).toBe('Body');
      expect(title).toBe('Deploy');
    });

    it('is the end of the text when nothing follows the closing delimiter', () => {
      const text = '---\ntitle: Only\n---';
      expect(parseFrontMatter(text).bodyStart).toBe(text.length);
    });

    it('treats an empty block as front matter without a title', () => {
      expect(parseFrontMatter('---\n---\nBody')).toEqual({ bodyStart: 8 });
    });

    it.each([
      ['no opening delimiter', 'Body\n---\ntitle: x\n---\n'],
      ['no closing delimiter', '---\ntitle: x\nBody'],
      ['a longer rule as the opening line', '----\ntitle: x\n---\nBody'],
      ['a language tag after the opening delimiter', '---js\n{ title: "x" }\n---\nBody'],
      ['a block that is YAML but not a mapping (a reStructuredText overline title)', '---\nTitle\n---\nBody'],
      ['a block that is a YAML list', '---\n- a\n- b\n---\nBody'],
    ])('is 0 for %s', (_name, text) => {
      expect(parseFrontMatter(text)).toEqual({ bodyStart: 0 });
    });
  });

  describe('title', () => {
    it.each([
      ['a string, trimmed', 'title: "  Spaced  "', 'Spaced'],
      ['a number', 'title: 2024', '2024'],
      ['a YAML date', 'title: 2024-05-01', '2024-05-01'],
    ])('is read from %s', (_name, yaml, expected) => {
      expect(parseFrontMatter(`---\n${yaml}\n---\nBody`).title).toBe(expected);
    });

    it.each([
      ['missing', 'author: Ada'],
      ['empty', 'title: ""'],
      ['a list', 'title: [a, b]'],
      ['a mapping', 'title: { text: x }'],
    ])('is undefined when the title is %s', (_name, yaml) => {
      const result = parseFrontMatter(`---\n${yaml}\n---\nBody`);
      expect(result.title).toBeUndefined();
      expect(result.bodyStart).toBeGreaterThan(0);
    });
  });

  describe('malformed YAML', () => {
    it('reports the error and still treats the delimited block as front matter', () => {
      const text = '---\ntitle: [unclosed\n---\nBody';
      const result = parseFrontMatter(text);
      expect(result.error).toMatch(/^front matter is not valid YAML \(.+\)$/);
      expect(result.title).toBeUndefined();
      expect(text.slice(result.bodyStart)).toBe('Body');
    });
  });
});
