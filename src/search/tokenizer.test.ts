import { describe, expect, it } from 'vitest';
import { createTokenizer } from './tokenizer.js';

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

  describe('normalizeWord', () => {
    it('gives the same term as terms() for a single word, and "" for a stop word', () => {
      expect(tokenizer.normalizeWord('Studies')).toBe('studi');
      expect(tokenizer.normalizeWord('The')).toBe('');
    });
  });
});
