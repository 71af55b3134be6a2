import { describe, expect, it } from 'vitest';
import { MAX_FRONT_MATTER_CHARS, parseFrontMatter } from './front-matter.js';

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
      ['a YAML timestamp, as its date', 'title: 2024-05-01T10:00:00Z', '2024-05-01'],
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

    it('names the line of the file where the YAML goes wrong', () => {
      const result = parseFrontMatter('---\r\ntitle: a\r\nauthor: b\r\ntitle: c\r\n---\r\nBody');
      expect(result.error).toBe('front matter is not valid YAML (Map keys must be unique, line 4)');
    });

    it.each([
      ['an unresolved alias', 'title: *nowhere'],
      ['a second YAML document', 'title: a\n...\nauthor: b'],
    ])('reports %s as an error', (_name, yaml) => {
      const result = parseFrontMatter(`---\n${yaml}\n---\nBody`);
      expect(result.error).toMatch(/^front matter is not valid YAML \(.+\)$/);
      expect(result.title).toBeUndefined();
    });
  });

  // What front-matter libraries once did with a block besides parse it as YAML.
  describe('a block that is not plain YAML', () => {
    it.each([
      ['---js', '---js\nmodule.exports = { title: process.exit(1) }\n---\nBody'],
      ['---javascript', '---javascript\n({ title: "x" })\n---\nBody'],
      ['---coffee', '---coffee\ntitle: "x"\n---\nBody'],
    ])('runs nothing and is not front matter when tagged %s', (_name, text) => {
      expect(parseFrontMatter(text)).toEqual({ bodyStart: 0 });
    });

    it.each([
      ['a JavaScript function tag', 'title: !!js/function "function () { return 1 }"', 'function () { return 1 }'],
      ['a JavaScript regexp tag', 'title: !!js/regexp /x/', '/x/'],
      ['an unknown local tag', 'title: !shell "rm -rf /"', 'rm -rf /'],
    ])('reads %s as its plain text, never as code', (_name, yaml, expected) => {
      const result = parseFrontMatter(`---\n${yaml}\n---\nBody`);
      expect(result).toEqual({ bodyStart: yaml.length + 9, title: expected });
    });

    it('reads each text afresh: two documents with the same front matter get separate results', () => {
      const text = '---\ntitle: Same\n---\nBody';
      const first = parseFrontMatter(text);
      const second = parseFrontMatter(text);
      expect(second).toEqual(first);
      expect(second).not.toBe(first);
    });
  });

  describe('hostile YAML', () => {
    it('refuses an alias bomb with a warning instead of expanding it', () => {
      const levels = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
      const names = 'abcdefghi';
      for (let i = 1; i < names.length; i++) {
        const alias = `*${names[i - 1]}`;
        levels.push(`${names[i]}: &${names[i]} [${Array(9).fill(alias).join(', ')}]`);
      }
      const text = `---\ntitle: Bomb\n${levels.join('\n')}\n---\nBody`;
      const result = parseFrontMatter(text);
      expect(result.error).toMatch(/^front matter is not valid YAML \(.*alias.*\)$/i);
      expect(result.title).toBeUndefined();
      expect(text.slice(result.bodyStart)).toBe('Body');
    });

    it('refuses nesting deeper than the parser can follow with a warning, not a crash', () => {
      const text = `---\ntitle: ${'['.repeat(5000)}${']'.repeat(5000)}\n---\nBody`;
      const result = parseFrontMatter(text);
      expect(result.error).toMatch(/^front matter is not valid YAML \(.+\)$/);
      expect(text.slice(result.bodyStart)).toBe('Body');
    });

    it('does not parse a block longer than the limit, says so, and still skips it as front matter', () => {
      const filler = 'k: v\n'.repeat(Math.ceil(MAX_FRONT_MATTER_CHARS / 5));
      const text = `---\ntitle: Long\n${filler}---\nBody`;
      const result = parseFrontMatter(text);
      expect(result.error).toMatch(/^front matter is \d+ characters, over the 65536 that are read; its title is not read$/);
      expect(result.title).toBeUndefined();
      expect(text.slice(result.bodyStart)).toBe('Body');
    });

    it('parses a block just under the limit', () => {
      const padding = '#'.repeat(MAX_FRONT_MATTER_CHARS - 'title: Edge\n'.length - 1);
      const text = `---\ntitle: Edge\n${padding}\n---\nBody`;
      expect(parseFrontMatter(text)).toEqual({ bodyStart: text.length - 4, title: 'Edge' });
    });
  });

  it('reads an http(s) url, the document\'s own link, and ignores any other value', () => {
    expect(parseFrontMatter('---\nurl: https://handbook.example.com/a\n---\nbody').url).toBe('https://handbook.example.com/a');
    expect(parseFrontMatter('---\nurl: javascript:alert(1)\n---\nbody').url).toBeUndefined();
    expect(parseFrontMatter('---\nurl: [1, 2]\n---\nbody').url).toBeUndefined();
  });
});
