import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markdownSections } from '../corpus/extract/markdown.js';
import { chunkText as chunkSections, collectWords, type ChunkerOptions } from './chunker.js';

/** The chunks of a Markdown text, with its sections found by the Markdown extractor. */
const chunkText = (text: string, bodyStart: number, options: ChunkerOptions) => chunkSections(text, bodyStart, markdownSections(text, bodyStart), options);

const words = (n: number, prefix = 'w'): string => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const wordCount = (text: string): number => text.split(/\s+/).filter((w) => w !== '').length;
const options = { chunkWords: 180, overlapWords: 40 };

describe('chunkText', () => {
  it('returns one chunk spanning a short body, exactly as sliced from the text', () => {
    const text = 'Just a short note.\n';
    const [chunk, ...rest] = chunkText(text, 0, options);
    expect(rest).toEqual([]);
    expect(text.slice(chunk!.start, chunk!.end)).toBe('Just a short note.');
    expect(chunk!.headings).toEqual([]);
  });

  it('returns no chunks for an empty or blank body', () => {
    expect(chunkText('', 0, options)).toEqual([]);
    expect(chunkText('  \n\n \n', 0, options)).toEqual([]);
  });

  it('starts after front matter at bodyStart', () => {
    const text = '---\ntitle: Hidden words\n---\nVisible body.';
    const chunks = chunkText(text, text.indexOf('Visible'), options);
    expect(chunks.map((c) => text.slice(c.start, c.end))).toEqual(['Visible body.']);
  });

  it('cuts a long section into windows of at most chunkWords sharing overlapWords words', () => {
    const text = words(500);
    const chunks = chunkText(text, 0, options);
    expect(chunks.length).toBe(4);
    const spans = chunks.map((c) => text.slice(c.start, c.end).split(' '));
    for (const span of spans) expect(span.length).toBeLessThanOrEqual(180);
    for (let i = 1; i < spans.length; i += 1) {
      expect(spans[i]!.slice(0, 40)).toEqual(spans[i - 1]!.slice(-40));
    }
    expect(spans.at(-1)!.at(-1)).toBe('w499');
  });

  it('sizes windows evenly instead of leaving a runt at the end', () => {
    const text = words(200);
    const sizes = chunkText(text, 0, options).map((c) => wordCount(text.slice(c.start, c.end)));
    expect(sizes.length).toBe(2);
    expect(Math.abs(sizes[0]! - sizes[1]!)).toBeLessThanOrEqual(1);
  });

  it('moves a cut back to a paragraph break in the second half of the window', () => {
    const text = `${words(150, 'a')}\n\n${words(150, 'b')}`;
    const [first] = chunkText(text, 0, options);
    expect(text.slice(first!.start, first!.end).endsWith('a149')).toBe(true);
  });

  it('never lets a chunk cross a heading, and gives each chunk its heading path', () => {
    const text = '# Deploy\n\nIntro text.\n\n## Fly.io\n\nRun fly launch.\n\n### Regions\n\nPick one.\n\n## Render\n\nUse a blueprint.\n';
    const chunks = chunkText(text, 0, options);
    expect(chunks.map((c) => [c.headings.join(' › '), text.slice(c.start, c.end)])).toEqual([
      ['Deploy', '# Deploy\n\nIntro text.'],
      ['Deploy › Fly.io', '## Fly.io\n\nRun fly launch.'],
      ['Deploy › Fly.io › Regions', '### Regions\n\nPick one.'],
      ['Deploy › Render', '## Render\n\nUse a blueprint.'],
    ]);
  });

  it('joins a heading without text of its own to the section below it', () => {
    const text = '# Deploy\n\n## Fly.io\n\nRun fly launch.';
    expect(chunkText(text, 0, options).map((c) => [c.headings.join(' › '), c.start, c.end])).toEqual([['Deploy › Fly.io', 0, text.length]]);
  });

  it('keeps a trailing heading with nothing below it as a chunk', () => {
    const text = 'Body.\n\n# Appendix\n';
    expect(chunkText(text, 0, options).map((c) => text.slice(c.start, c.end))).toEqual(['Body.', '# Appendix']);
  });

  it('ignores "#" lines inside code fences', () => {
    const text = '# Real\n\n```sh\n# not a heading\n```\n';
    const chunks = chunkText(text, 0, options);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.headings).toEqual(['Real']);
  });

  it.each([
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('gives a %s file the same headings and chunks as its LF twin', (_name, eol) => {
    const lf = `# Guide\n\n${words(150, 'a')}\n\n${words(150, 'b')}\n\nSetup\n-----\n\nText.\n\n## Deep\n\n${words(300, 'c')}\n`;
    const other = lf.replaceAll('\n', eol);
    const view = (text: string) => chunkText(text, 0, options).map((c) => [c.headings.join(' › '), text.slice(c.start, c.end).replaceAll(eol, '\n')]);
    expect(view(other)).toEqual(view(lf));
    expect(view(lf).map(([heading]) => heading)).toEqual(['Guide', 'Guide', 'Guide', 'Guide › Setup', 'Guide › Deep', 'Guide › Deep']);
  });

  it('counts each ideograph as a word, so unspaced text is cut too', () => {
    const text = '漢'.repeat(400);
    const chunks = chunkText(text, 0, options);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) expect(c.end - c.start).toBeLessThanOrEqual(180);
  });

  it('covers every word, keeps offsets in bounds and in order, for any Markdown-ish text', () => {
    const line = fc.oneof(
      fc.constantFrom('', '# Title', '## Sub', '```', 'para one two', '  ', '#nohash'),
      fc.array(fc.constantFrom('alpha', 'beta', 'γάμμα', '漢字', 'x'), { minLength: 1, maxLength: 30 }).map((w) => w.join(' ')),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), fc.integer({ min: 20, max: 60 }), fc.integer({ min: 0, max: 10 }), (lines, chunkWords, overlapWords) => {
        const text = lines.join('\n');
        const chunks = chunkText(text, 0, { chunkWords, overlapWords });
        let previousStart = -1;
        for (const c of chunks) {
          expect(c.start).toBeGreaterThan(previousStart);
          expect(c.end).toBeGreaterThan(c.start);
          expect(c.end).toBeLessThanOrEqual(text.length);
          previousStart = c.start;
        }
        const covered = new Uint8Array(text.length);
        for (const c of chunks) covered.fill(1, c.start, c.end);
        for (const m of text.matchAll(/\S+/g)) {
          if (/^#{1,6}$/.test(m[0]) || m[0] === '```') continue;
          expect(covered[m.index]).toBe(1);
        }
        expect(chunks.length === 0).toBe(wordCount(text) === 0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('collectWords', () => {
  /** The model: the word pattern run over the slice. */
  const modelWords = (text: string, from: number, to: number): number[] =>
    [...text.slice(from, to).matchAll(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[^\s\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu)].flatMap((m) => [
      from + m.index,
      from + m.index + m[0].length,
    ]);

  it('finds the same words as the word pattern over the slice, for any mix of ASCII, other scripts and spaces', () => {
    const piece = fc.constantFrom('a', 'Word', '42', '-', "'", ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2028', 'é', 'café', '東京', 'カタ', '한국', '🍕', '𠀀', '\ud83c', 'x\u00a0y');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.nat(), fc.nat(), (pieces, a, b) => {
        const text = pieces.join('');
        const from = a % (text.length + 1);
        const to = from + (b % (text.length - from + 1));
        const words: number[] = [];
        collectWords(text, from, to, words);
        expect(words).toEqual(modelWords(text, from, to));
      }),
      { numRuns: 1000 },
    );
  });
});
