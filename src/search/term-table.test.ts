// A snapshot's vocabulary is served from its JSON bytes (no string per term at boot): every term must
// map to the id the built index gave it, every other string to -1, and a damaged array be refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { termTableOf, termTableOfJson } from './term-table.js';

const bytesOf = (terms: readonly string[]): Uint8Array => new TextEncoder().encode(JSON.stringify(terms));

describe('termTableOfJson', () => {
  it('answers the id of every term as the built table does, and -1 for any other string', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'grapheme', maxLength: 12 }), { maxLength: 300 }), fc.array(fc.string({ maxLength: 12 })), (terms, others) => {
        const table = termTableOfJson(bytesOf(terms));
        const built = termTableOf(terms);
        expect(table.size).toBe(terms.length);
        terms.forEach((term, t) => expect(table.id(term)).toBe(t));
        for (const other of others) expect(table.id(other)).toBe(built.id(other));
        expect(table.list()).toEqual(terms);
      }),
    );
  });

  it('reads terms written with escapes, non-ASCII terms and long ones', () => {
    const terms = ['plain', 'quo"te', 'back\\slash', 'tab\there', 'naïve', '水', '😀', 'x'.repeat(1000), ''];
    const table = termTableOfJson(bytesOf(terms));
    terms.forEach((term, t) => expect(table.id(term)).toBe(t));
    expect(table.id('quo')).toBe(-1);
    expect(table.list()).toEqual(terms);
  });

  it('reads an empty vocabulary', () => {
    const table = termTableOfJson(bytesOf([]));
    expect(table.size).toBe(0);
    expect(table.id('anything')).toBe(-1);
  });

  it('refuses bytes that are not a JSON array of strings, and a repeated term', () => {
    for (const text of ['', '[', '["a"', '["a",]', '["a" "b"]', '{"a":1}', '[1]', '["a"]x', '["a\u0001"]', '["\\q"]']) {
      expect(() => termTableOfJson(new TextEncoder().encode(text)), text).toThrow(RangeError);
    }
    expect(() => termTableOfJson(bytesOf(['a', 'b', 'a']))).toThrow(/repeat a term/);
    expect(() => termTableOfJson(bytesOf(['a"', 'a"']))).toThrow(/repeat a term/);
  });
});
