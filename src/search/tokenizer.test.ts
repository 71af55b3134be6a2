import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTokenizer } from './tokenizer.js';
import { TermIdList } from './term-id-list.js';
import { Vocabulary } from './vocabulary.js';

const tokenizer = createTokenizer();
const terms = (text: string): string[] => tokenizer.terms(text);

describe('createTokenizer', () => {
  describe('terms', () => {
    it('lowercases and stems English words with the Porter stemmer', () => {
      expect(terms('Running RUNS runner studies')).toEqual(['run', 'run', 'runner', 'studi']);
    });

    it('drops stop words but keeps negations and other meaningful short words', () => {
      expect(terms('the effect of the drug is not significant')).toEqual(['effect', 'drug', 'not', 'signific']);
    });

    it.each([
      ['Café', 'cafe'],
      ['naïve', 'naiv'],
      ['ＡＢＣ', 'abc'],
      ["Alzheimer's", 'alzheim'],
      ['Alzheimer’s', 'alzheim'],
    ])('normalises %s to %s', (word, term) => {
      expect(terms(word)).toEqual([term]);
    });

    it('splits on punctuation and hyphens and keeps numbers', () => {
      expect(terms('IL-6, 0-dimensional; 2001.')).toEqual(['il', '6', '0', 'dimension', '2001']);
    });

    it('indexes Chinese and Japanese as overlapping character bigrams', () => {
      expect(terms('东京都')).toEqual(['东京', '京都']);
      expect(terms('カタカナ')).toEqual(['カタ', 'タカ', 'カナ']);
      expect(terms('猫')).toEqual(['猫']);
    });

    it('keeps Arabic, Cyrillic and Devanagari words whole, with their marks', () => {
      expect(terms('مرحبا بالعالم')).toEqual(['مرحبا', 'بالعالم']);
      expect(terms('Привет мир')).toEqual(['привет', 'мир']);
      expect(terms('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    });

    it('makes each emoji a term of its own', () => {
      expect(terms('pizza🍕party 🎉')).toEqual(['pizza', '🍕', 'parti', '🎉']);
    });

    it('drops tokens longer than 64 characters', () => {
      expect(terms(`${'x'.repeat(65)} short`)).toEqual(['short']);
    });

    it('returns nothing for punctuation, whitespace or stop words only', () => {
      expect(terms(' ?!…— ')).toEqual([]);
      expect(terms('the of and to')).toEqual([]);
    });
  });

  describe('scan', () => {
    it('reports spans that point back at the words they came from', () => {
      const text = 'Deploying to Fly.io: 東京 🍕 naïve';
      const spans: Array<[string, string]> = [];
      tokenizer.scan(text, (term, start, end) => spans.push([term, text.slice(start, end)]));
      expect(spans).toEqual([
        ['deploi', 'Deploying'],
        ['fly', 'Fly'],
        ['io', 'io'],
        ['東京', '東京'],
        ['🍕', '🍕'],
        ['naiv', 'naïve'],
      ]);
    });

    it('reports the same terms as terms()', () => {
      const text = 'Mixed 文本 with العربية and emoji 🎉, numbers 42.';
      const scanned: string[] = [];
      tokenizer.scan(text, (term) => scanned.push(term));
      expect(scanned).toEqual(terms(text));
    });
  });

  describe('ids', () => {
    /** The terms `ids` numbered, looked up in the vocabulary. */
    const idTerms = (vocabulary: Vocabulary, text: string, start?: number, end?: number): Array<string | undefined> => {
      const list = new TermIdList(1);
      tokenizer.ids(text, vocabulary, list, start, end);
      return [...list.view()].map((id) => vocabulary.terms[id]);
    };

    const piece = fc.constantFrom(
      'the', 'The', 'THE', 'running', 'Runs', 'studies', 'x'.repeat(70), '42', 'IL', '-', ' ', '\n', "'", "don't", 'word\'', '’', 'Alzheimer’s',
      'é', 'café', 'CAFÉ', 'ＡＢＣ', '東京都', 'カタカナ', '猫', '🍕', '🎉', 'ß', 'Привет', 'हिन्दी', 'ไทย', '\u00a0', '𝐀', 'ǅ', '\u0301',
    );

    it('numbers exactly the terms of the slice, in order, for any mix of scripts and case', () => {
      fc.assert(
        fc.property(fc.array(fc.array(piece, { maxLength: 30 }), { minLength: 1, maxLength: 4 }), fc.nat(), fc.nat(), (texts, a, b) => {
          // One vocabulary over several texts, as in a build: words met before are looked up, not normalised.
          const vocabulary = new Vocabulary();
          for (const pieces of texts) {
            const text = pieces.join('');
            const start = a % (text.length + 1);
            const end = start + (b % (text.length - start + 1));
            expect(idTerms(vocabulary, text, start, end)).toEqual(terms(text.slice(start, end)));
            expect(idTerms(vocabulary, text)).toEqual(terms(text));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('keeps tens of thousands of distinct words apart', () => {
      const vocabulary = new Vocabulary();
      const text = Array.from({ length: 40_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
      expect(idTerms(vocabulary, text)).toEqual(terms(text));
      expect(idTerms(vocabulary, text.toUpperCase())).toEqual(terms(text));
    });

    it('gives a word the same id whatever its case, and one id per term', () => {
      const vocabulary = new Vocabulary();
      const list = new TermIdList();
      tokenizer.ids('Running runs RUNNING the café Café', vocabulary, list);
      expect([...list.view()].map((id) => vocabulary.terms[id])).toEqual(['run', 'run', 'run', 'cafe', 'cafe']);
      expect(new Set(list.view()).size).toBe(2);
    });
  });

  describe('normalizeWord', () => {
    it('gives the same term as terms() for a single word, and "" for a stop word', () => {
      expect(tokenizer.normalizeWord('Studies')).toBe('studi');
      expect(tokenizer.normalizeWord('The')).toBe('');
    });
  });

  describe('onlyStopWords', () => {
    it.each([
      ['the and of', true],
      ["The AND of it's", true],
      ['the lighthouse', false],
      ['!!! ???', false],
      ['', false],
      ['the 日本', false],
      [`the ${'x'.repeat(80)}`, false],
    ])('%j: %s', (text, expected) => {
      expect(createTokenizer().onlyStopWords(text)).toBe(expected);
    });
  });
});
