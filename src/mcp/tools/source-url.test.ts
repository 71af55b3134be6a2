import { describe, expect, it } from 'vitest';
import { markdownDocument } from '../../../test/support/markdown-document.js';
import { SearchIndex } from '../../search/search-index.js';
import { IndexHolder } from '../index-holder.js';
import { lineAt, linker } from './source-url.js';

const TEMPLATE = 'https://github.com/acme/handbook/blob/{commit}/{path}#L{line}';

function corpus(commit?: string) {
  const index = SearchIndex.build([
    markdownDocument('guides/deploy me.md', '# Deploy\n\nfirst line\nsecond line\n'),
    markdownDocument('own.md', '---\nurl: https://handbook.example.com/own\n---\n# Own\n\ntext\n', 'Own', { url: 'https://handbook.example.com/own' }),
    markdownDocument('page.html', 'one\ntwo\nthree', 'Page', { format: 'html' }),
  ]);
  return IndexHolder.of({ index, skipped: [], ...(commit ? { commit } : {}) }).current!;
}

describe('lineAt', () => {
  it.each([
    [0, 1],
    [9, 2],
    [10, 3],
    [21, 4],
  ])('puts offset %i on line %i', (offset, line) => {
    expect(lineAt('# Deploy\n\nfirst line\nsecond line\n', offset)).toBe(line);
  });
});

describe('linker', () => {
  it('fills the template with the commit served, the path in the repository (encoded) and the first line', () => {
    const urlOf = linker({ template: TEMPLATE, pathPrefix: 'docs' }, corpus('0123abc'));
    expect(urlOf('guides/deploy me.md', 21)).toBe('https://github.com/acme/handbook/blob/0123abc/docs/guides/deploy%20me.md#L4');
    expect(urlOf('guides/deploy me.md')).toBe('https://github.com/acme/handbook/blob/0123abc/docs/guides/deploy%20me.md#L1');
  });

  it('lets a document\'s front matter url win, with or without a template', () => {
    expect(linker({ template: TEMPLATE, pathPrefix: '' }, corpus('c'))('own.md', 30)).toBe('https://handbook.example.com/own');
    expect(linker({ template: undefined, pathPrefix: '' }, corpus())('own.md')).toBe('https://handbook.example.com/own');
  });

  it('gives no url without a template or front matter, HEAD without a commit, and line 1 for extracted formats', () => {
    expect(linker({ template: undefined, pathPrefix: '' }, corpus())('guides/deploy me.md')).toBeUndefined();
    expect(linker(undefined, corpus())('own.md')).toBeUndefined();
    expect(linker({ template: TEMPLATE, pathPrefix: '' }, corpus())('page.html', 8)).toBe('https://github.com/acme/handbook/blob/HEAD/page.html#L1');
  });
});
