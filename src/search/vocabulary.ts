/**
 * Numbers the terms of a build in the order they are first seen, and remembers the term of every
 * distinct word it was given, so each word is normalised and looked up once per build rather than
 * once per occurrence. Unbounded (a build's words are bounded by its corpus), unlike the tokenizer's
 * own memo, which serves queries for the life of the server.
 *
 * Plain ASCII words, the bulk of most corpora, are remembered in a table of their own, keyed by a
 * hash the tokenizer computes while it scans the word, so a word met again costs no substring, no
 * string hash and no Map probe: one slot of a typed array and a comparison with the bytes kept. The table folds case: "The" and "the" are one entry, which is sound
 * because an ASCII word's term depends only on its lowercase form.
 */
export class Vocabulary {
  /** Term of each id. */
  readonly terms: string[] = [];
  readonly #ids = new Map<string, number>();
  /** Raw word → its term's id, or -1 for a word that yields no term. */
  readonly #words = new Map<string, number>();

  /**
   * Open addressing over the ASCII words, four numbers a slot: hash, length (0: empty), offset of
   * the lowercase word in `#chars`, term id (-1: none). A probe that hits reads one slot and the
   * word's bytes, not a string object.
   */
  #table = new Int32Array(4 << 14);
  #entries = 0;
  #chars = new Uint8Array(1 << 16);
  #charsUsed = 0;

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
    const table = this.#table;
    const chars = this.#chars;
    const mask = (table.length >> 2) - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const at = slot << 2;
      const slotLength = table[at + 1] as number;
      if (slotLength === 0) break;
      if (table[at] !== hash || slotLength !== length) continue;
      let c = table[at + 2] as number;
      let k = start;
      while (k < end && foldAscii(text.charCodeAt(k)) === chars[c]) {
        k += 1;
        c += 1;
      }
      if (k === end) return table[at + 3] as number;
    }
    const word = text.slice(start, end).toLowerCase();
    const term = normalize(word);
    const id = term === '' ? -1 : this.termId(term);
    this.#addAscii(word, hash, id);
    return id;
  }

  #addAscii(word: string, hash: number, id: number): void {
    if (this.#charsUsed + word.length > this.#chars.length) {
      const bigger = new Uint8Array(Math.max(this.#chars.length * 2, this.#charsUsed + word.length));
      bigger.set(this.#chars);
      this.#chars = bigger;
    }
    const offset = this.#charsUsed;
    for (let k = 0; k < word.length; k += 1) this.#chars[offset + k] = word.charCodeAt(k);
    this.#charsUsed += word.length;
    this.#entries += 1;
    // Kept at most half full, so a probe ends soon at an empty slot.
    if (this.#entries * 2 > this.#table.length >> 2) {
      const old = this.#table;
      this.#table = new Int32Array(old.length * 2);
      for (let at = 0; at < old.length; at += 4) {
        if (old[at + 1] !== 0) this.#place(old[at] as number, old[at + 1] as number, old[at + 2] as number, old[at + 3] as number);
      }
    }
    this.#place(hash, word.length, offset, id);
  }

  #place(hash: number, length: number, offset: number, id: number): void {
    const table = this.#table;
    const mask = (table.length >> 2) - 1;
    let slot = hash & mask;
    while (table[(slot << 2) + 1] !== 0) slot = (slot + 1) & mask;
    const at = slot << 2;
    table[at] = hash;
    table[at + 1] = length;
    table[at + 2] = offset;
    table[at + 3] = id;
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
