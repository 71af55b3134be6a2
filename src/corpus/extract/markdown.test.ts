import { describe, expect, it } from 'vitest';
import { cutTitle, MAX_HEADING_CHARS, MAX_TITLE_CHARS } from './extracted.js';
import { extractMarkdown, markdownSections } from './markdown.js';
import { extractRestructuredText } from './restructuredtext.js';
import { extractText } from './text.js';

/** The first heading's title, as the document title falls back to it. */
const headingTitle = (text: string, bodyStart: number, format: 'markdown' | 'restructuredtext' | 'text'): string | undefined => {
  const extract = format === 'markdown' ? extractMarkdown : format === 'restructuredtext' ? extractRestructuredText : extractText;
  const title = extract(text.slice(bodyStart)).title;
  return title === undefined ? undefined : cutTitle(title);
};

describe('extractors: the title from the first heading', () => {
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
    it('detects no headings: a `#` line or an underline is just text', () => {
      expect(extractText('Release notes\n=============\n# Not a heading\n').title).toBeUndefined();
      expect(extractText('# Not a heading\n').sections).toEqual([]);
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

describe('markdownSections', () => {
  const outline = (text: string): Array<[number, string]> => markdownSections(text, 0).map((s) => [s.level, s.title]);

  it('finds ATX and setext headings with their levels, in document order', () => {
    const text = 'Guide\n=====\n\nIntro.\n\n## Install ##\n\nSteps.\n\nUsage\n-----\n\n### Flags\n';
    expect(outline(text)).toEqual([
      [1, 'Guide'],
      [2, 'Install'],
      [2, 'Usage'],
      [3, 'Flags'],
    ]);
  });

  it('gives each section its start, where its words begin and where its text begins', () => {
    const text = 'Intro.\n\n## Fly.io\nRun it.\n\nSetext\n===\nBody.\n';
    const [atx, setext] = markdownSections(text, 0);
    expect(text.slice(atx!.start, atx!.headingStart)).toBe('##');
    expect(text.slice(atx!.contentStart)).toMatch(/^Run it\./);
    expect(text.slice(setext!.start, setext!.contentStart)).toBe('Setext\n===\n');
  });

  it('ignores `#` lines inside backtick and tilde fences, and a shorter fence does not close a longer one', () => {
    const text = '````\n# no\n```\n# still no\n````\n~~~\n# no\n~~~\n# Yes\n';
    expect(outline(text)).toEqual([[1, 'Yes']]);
  });

  it.each([
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('finds the same sections with %s line endings as with LF', (_name, eol) => {
    const lf = '---\ntitle: T\n---\n# One\n\ntext\n\nTwo\n---\n\n```\n# code\n```\n### Three ###\n';
    const other = lf.replaceAll('\n', eol);
    const strip = (text: string) => markdownSections(text, extractMarkdown(text).bodyStart).map((s) => [s.level, s.title]);
    expect(strip(other)).toEqual(strip(lf));
    expect(strip(lf)).toEqual([
      [1, 'One'],
      [2, 'Two'],
      [3, 'Three'],
    ]);
    expect(extractMarkdown(other).title).toBe('T');
  });

  it('reads a 1 MB single-line heading in linear time, cutting its title', () => {
    // `# a` + spaces + `b` made the old `(.*?)(?:[ \t]+#+)?[ \t]*$` regex backtrack quadratically:
    // hours at this size, so this test times out if that comes back.
    const text = `# a${' '.repeat(1024 * 1024)}b\n\nBody.\n`;
    const [section] = markdownSections(text, 0);
    expect(section?.title.length).toBeLessThanOrEqual(MAX_HEADING_CHARS);
    expect(section?.title.startsWith('a')).toBe(true);
    const closing = `# a${' '.repeat(1024 * 1024)}#${' '.repeat(1024 * 1024)}x`;
    expect(markdownSections(closing, 0)[0]?.level).toBe(1);
  });
});

describe('a 4 MB line of one punctuation character', () => {
  // A regex backreference repeated over such a line overflowed V8's regex stack ("Maximum call stack
  // size exceeded"), which failed the file and, with it, the whole corpus.
  const line = '-'.repeat(4 * 1024 * 1024);
  it.each([
    ['markdown, as a thematic break', extractMarkdown, `# T\n\n${line}\n\nText.\n`, ['T']],
    ['markdown, as a setext underline', extractMarkdown, `Title\n${line}\n`, ['Title']],
    ['restructuredtext, as an underline', extractRestructuredText, `Title\n${line}\n\nText.\n`, ['Title']],
    ['restructuredtext, as an over- and underline', extractRestructuredText, `${line}\nTitle\n${line}\n`, ['Title']],
    ['restructuredtext, as a transition', extractRestructuredText, `Text.\n\n${line}\n\nMore.\n`, []],
  ])('is read in %s', (_name, extract, text, titles) => {
    expect(extract(text).sections.map((s) => s.title)).toEqual(titles);
  });
});

describe('restructuredTextSections', () => {
  it('takes levels from the order in which adornment styles first appear', () => {
    const text = '=====\nTitle\n=====\n\nChapter\n-------\n\nText.\n\nSection\n~~~~~~~\n\nAnother chapter\n---------------\n';
    expect(extractRestructuredText(text).sections.map((s) => [s.level, s.title])).toEqual([
      [1, 'Title'],
      [2, 'Chapter'],
      [3, 'Section'],
      [2, 'Another chapter'],
    ]);
  });

  it('tells an overlined style from the same character used as an underline', () => {
    const text = '=====\nTop\n=====\n\nUnder\n=====\n';
    expect(extractRestructuredText(text).sections.map((s) => [s.level, s.title])).toEqual([
      [1, 'Top'],
      [2, 'Under'],
    ]);
  });
});
