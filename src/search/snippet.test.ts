import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMatches, makeSnippet, SNIPPET_CHARS } from './snippet.js';
import { createTokenizer } from './tokenizer.js';

const tokenizer = createTokenizer();
const filler = (n: number): string => Array.from({ length: n }, (_, i) => `filler${i}`).join(' ');
const snippet = (text: string, query: string): string => makeSnippet(tokenizer, text, 0, text.length, new Set(tokenizer.terms(query)));

describe('makeSnippet', () => {
  it('returns a short chunk whole, with whitespace collapsed', () => {
    expect(snippet('Deploy  with\n\nfly launch.', 'fly')).toBe('Deploy with fly launch.');
  });

  it('stays within the character budget, ellipses included', () => {
    const text = `${filler(100)} fly launch deploys ${filler(100)}`;
    const result = snippet(text, 'fly launch');
    expect(result.length).toBeLessThanOrEqual(SNIPPET_CHARS);
    expect(result.startsWith('…')).toBe(true);
    expect(result.endsWith('…')).toBe(true);
  });

  it('centres on the densest cluster of query terms rather than the first match', () => {
    const text = `fly once here. ${filler(80)} Then fly launch deploys the region quickly. ${filler(80)}`;
    expect(snippet(text, 'fly launch region')).toContain('fly launch deploys the region');
  });

  it('cuts at word boundaries', () => {
    const text = `${filler(100)} target ${filler(100)}`;
    const words = snippet(text, 'target').replace(/…/g, '').split(' ');
    for (const word of words) expect(word).toMatch(/^(filler\d+|target)$/);
  });

  it('shows the opening of the chunk when no query term occurs in it', () => {
    const text = filler(200);
    expect(snippet(text, 'absent').startsWith('filler0 filler1')).toBe(true);
  });

  it('collapses whitespace exactly as replace(/\\s+/g, " ").trim() would', () => {
    const piece = fc.constantFrom('a', 'word', ' ', '  ', '\n', '\t', '\u00a0', '\u2003', '\u3000', '\ufeff', '\u0001', 'é', '東', '😀');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        expect(snippet(text, 'word')).toBe(text.replace(/\s+/g, ' ').trim());
      }),
    );
  });

  it('gives the same snippet when one term set serves many chunks', () => {
    const terms = new Set(tokenizer.terms('fly launch region'));
    const texts = [`${filler(80)} fly launch ${filler(80)}`, `${filler(60)} the region ${filler(90)}`, `launch ${filler(120)} fly`];
    for (const text of texts) {
      expect(makeSnippet(tokenizer, text, 0, text.length, terms)).toBe(snippet(text, 'fly launch region'));
    }
  });

  it('respects the chunk bounds inside a longer document', () => {
    const text = `before ${filler(10)} inside text here ${filler(10)} after`;
    const start = text.indexOf('inside');
    const end = start + 'inside text here'.length;
    expect(makeSnippet(tokenizer, text, start, end, new Set(['text']))).toBe('inside text here');
  });
});

describe('findMatches', () => {
  it('finds stemmed, possessive and CJK matches at their offsets, in text order', () => {
    const chunk = "Studies of Alzheimer's in 東京 show studying helps.";
    const found = findMatches(tokenizer, chunk, new Set(tokenizer.terms('study alzheimer 東京')));
    expect(found.start.map((s, i) => chunk.slice(s, found.end[i]))).toEqual(['Studies', "Alzheimer's", '東京', 'studying']);
  });

  it('matches whole words only', () => {
    const chunk = 'preflight flight inflight';
    const found = findMatches(tokenizer, chunk, new Set(['flight']));
    expect(found.start.map((s, i) => chunk.slice(s, found.end[i]))).toEqual(['flight']);
  });

  it('finds Arabic words, emoji and combining marks', () => {
    const chunk = 'قرأت الكتاب ثم 🚀 launch, then café and naïve';
    const found = findMatches(tokenizer, chunk, new Set(tokenizer.terms('الكتاب 🚀 cafe')));
    expect(found.start.map((s, i) => chunk.slice(s, found.end[i]))).toEqual(['الكتاب', '🚀', 'café']);
  });

  it('ends a word where the tokenizer does, before the prolonged sound mark ー', () => {
    // The tokenizer reads "cacheー" as the word "cache" then a katakana run; the snippet must agree.
    const chunk = 'cacheーデータ';
    const terms = new Set(tokenizer.terms('cache'));
    const expected: string[] = [];
    tokenizer.scan(chunk, (term, from, to) => {
      if (terms.has(term)) expected.push(chunk.slice(from, to));
    });
    const found = findMatches(tokenizer, chunk, terms);
    expect(expected).toEqual(['cache']);
    expect(found.start.map((s, i) => chunk.slice(s, found.end[i]))).toEqual(expected);
  });

  it('finds what tokenizing the whole chunk finds, for plain words', () => {
    const vocabulary = ['study', 'studies', 'studying', 'cell', 'cells', "cell's", 'Cells', 'DNA', 'dna', 'the', 'of', 'run', 'running', 'runner', 'x1', 'fly', 'flies'];
    const separator = fc.constantFrom(' ', ', ', '. ', '\n', ' (', ') ', '-', "'");
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...vocabulary), separator), { maxLength: 40 }), fc.subarray(vocabulary, { minLength: 1 }), (words, query) => {
        const chunk = words.map(([word, sep]) => word + sep).join('');
        const terms = new Set(tokenizer.terms(query.join(' ')));
        const expected: string[] = [];
        tokenizer.scan(chunk, (term, from, to) => {
          if (terms.has(term)) expected.push(`${from}-${to}:${term}`);
        });
        const found = findMatches(tokenizer, chunk, terms);
        expect(found.start.map((s, i) => `${s}-${found.end[i]}:${found.term[i]}`)).toEqual(expected);
      }),
    );
  });
});
