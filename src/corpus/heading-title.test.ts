import { describe, expect, it } from 'vitest';
import { headingTitle, MAX_TITLE_CHARS } from './heading-title.js';

describe('headingTitle', () => {
  describe('markdown', () => {
    it.each([
      ['an ATX heading', '# Connecting Claude\n\nText', 'Connecting Claude'],
      ['an ATX heading with a closing sequence', '## Deploy ##\n', 'Deploy'],
      ['an ATX heading indented by up to three spaces', '   ### Deep\n', 'Deep'],
      ['a setext heading with =', 'Overview\n========\n\nText', 'Overview'],
      ['a setext heading with -', 'Overview\n---\n\nText', 'Overview'],
      ['a setext heading spanning two lines', 'A long\ntitle\n===\n', 'A long title'],
      ['the first heading after some paragraphs', 'Intro text.\n\n# Later\n', 'Later'],
      ['a heading with a trailing C# that is not a closing sequence', '# Using C#\n', 'Using C#'],
      ['a heading with badges and links reduced to its words', '# pkg [![v](https://x/v.svg)](https://x) [docs](https://d)\n', 'pkg docs'],
    ])('finds %s', (_name, text, expected) => {
      expect(headingTitle(text, 0, 'markdown')).toBe(expected);
    });

    it.each([
      ['a comment inside a fenced code block', '```bash\n# install\n```\n# Real\n', 'Real'],
      ['a heading inside a tilde fence', '~~~\n# not this\n~~~\n\nTitle\n===\n', 'Title'],
      ['a hashtag without a space', '#hashtag\n\n# Real\n', 'Real'],
      ['an empty ATX heading', '#\n\n# Real\n', 'Real'],
      ['a list item above a rule', '- item\n---\n# Real\n', 'Real'],
      ['an indented code line above a rule', '    code\n---\n# Real\n', 'Real'],
    ])('skips %s', (_name, text, expected) => {
      expect(headingTitle(text, 0, 'markdown')).toBe(expected);
    });

    it('starts looking at bodyStart', () => {
      const text = '# Not this\n# This one\n';
      expect(headingTitle(text, text.indexOf('# This'), 'markdown')).toBe('This one');
    });

    it('is undefined when there is no heading', () => {
      expect(headingTitle('Just a paragraph.\n\nAnother one.\n', 0, 'markdown')).toBeUndefined();
    });

    it(`cuts a title longer than ${MAX_TITLE_CHARS} characters`, () => {
      const title = headingTitle(`# ${'word '.repeat(100)}\n`, 0, 'markdown');
      expect(title?.length).toBe(MAX_TITLE_CHARS);
      expect(title?.endsWith('…')).toBe(true);
    });
  });

  describe('text', () => {
    it('follows the Markdown conventions', () => {
      expect(headingTitle('Release notes\n=============\n', 0, 'text')).toBe('Release notes');
    });
  });

  describe('restructuredtext', () => {
    it.each([
      ['an underlined title', 'Installation\n============\n\nText', 'Installation'],
      ['an over-and-underlined title', '==========\n Overview\n==========\n\nText', 'Overview'],
      ['a title with ~ adornment after a paragraph', 'Intro.\n\nUsage\n~~~~~\n', 'Usage'],
    ])('finds %s', (_name, text, expected) => {
      expect(headingTitle(text, 0, 'restructuredtext')).toBe(expected);
    });

    it('ignores a transition that is not under a title', () => {
      expect(headingTitle('Para one\ncontinues\n-----\n', 0, 'restructuredtext')).toBeUndefined();
    });

    it('does not treat a Markdown ATX heading as a reStructuredText title', () => {
      expect(headingTitle('# comment\n', 0, 'restructuredtext')).toBeUndefined();
    });
  });
});
