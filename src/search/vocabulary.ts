/**
 * Numbers the terms of a build in the order they are first seen, and remembers the term of every
 * distinct word it was given, so each word is normalised and looked up once per build rather than
 * once per occurrence. Unbounded (a build's words are bounded by its corpus), unlike the tokenizer's
 * own memo, which serves queries for the life of the server.
 *
 * Plain ASCII words, the bulk of most corpora, are remembered in a table of their own, keyed by a
 * hash the tokenizer computes while it scans the word, so a word met again costs no substring, no
 * string hash and no Map probe. The table folds case: "The" and "the" are one entry, which is sound
 * because an ASCII word's term depends only on its lowercase form.
 */
export class Vocabulary {
  /** Term of each id. */
  readonly terms: string[] = [];
  readonly #ids = new Map<string, number>();
  /** Raw word → its term's id, or -1 for a word that yields no term. */
  readonly #words = new Map<string, number>();

  /** Open addressing over the ASCII words: slot → entry + 1, 0 when empty. */
  #slots = new Int32Array(1 << 14);
  /** Per entry: the lowercase word, its hash and its term id (-1 for none). */
  readonly #asciiWords: string[] = [];
  #asciiHash = new Int32Array(1 << 13);
  #asciiTerm = new Int32Array(1 << 13);

  termId(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.#ids.set(term, id);
      this.terms.push(term);
    }
    return id;
  }

  wordId(raw: string, normalize: (word: string) => string): number {
    let id = this.#words.get(raw);
    if (id === undefined) {
      const term = normalize(raw);
      id = term === '' ? -1 : this.termId(term);
      this.#words.set(raw, id);
    }
    return id;
  }

  /**
   * The term id of the ASCII letters-and-digits word `text[start, end)`, or -1 when it yields no
   * term; `hash` is `asciiWordHash` of it. `normalize` is called once per distinct word, lowercased.
   */
  asciiWordId(text: string, start: number, end: number, hash: number, normalize: (word: string) => string): number {
    const mask = this.#slots.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = (this.#slots[slot] as number) - 1;
      if (entry < 0) break;
      if (this.#asciiHash[entry] !== hash) continue;
      const word = this.#asciiWords[entry] as string;
      if (word.length !== length) continue;
      let k = 0;
      while (k < length && foldAscii(text.charCodeAt(start + k)) === word.charCodeAt(k)) k += 1;
      if (k === length) return this.#asciiTerm[entry] as number;
    }
    const word = text.slice(start, end).toLowerCase();
    const term = normalize(word);
    const id = term === '' ? -1 : this.termId(term);
    this.#addAscii(word, hash, id);
    return id;
  }

  #addAscii(word: string, hash: number, id: number): void {
    const entry = this.#asciiWords.length;
    if (entry === this.#asciiHash.length) {
      this.#asciiHash = grow(this.#asciiHash);
      this.#asciiTerm = grow(this.#asciiTerm);
    }
    this.#asciiWords.push(word);
    this.#asciiHash[entry] = hash;
    this.#asciiTerm[entry] = id;
    // Kept at most half full, so a probe ends soon at an empty slot.
    if ((entry + 1) * 2 > this.#slots.length) {
      this.#slots = new Int32Array(this.#slots.length * 2);
      for (let e = 0; e <= entry; e += 1) this.#place(e);
    } else {
      this.#place(entry);
    }
  }

  #place(entry: number): void {
    const mask = this.#slots.length - 1;
    let slot = (this.#asciiHash[entry] as number) & mask;
    while (this.#slots[slot] !== 0) slot = (slot + 1) & mask;
    this.#slots[slot] = entry + 1;
  }
}

/** FNV-1a offset basis: the hash of the empty word. */
export const ASCII_HASH_SEED = 0x811c9dc5 | 0;

/** The hash of a word extended by ASCII character `code`, case folded (FNV-1a). */
export function asciiWordHash(hash: number, code: number): number {
  return Math.imul(hash ^ foldAscii(code), 16777619);
}

/** An ASCII letter in lowercase; any other code as it is. */
function foldAscii(code: number): number {
  return code >= 65 && code <= 90 ? code + 32 : code;
}

function grow(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}
