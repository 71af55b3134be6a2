// The vocabulary of a served index: term → id. A snapshot stores the terms in id order as one JSON
// array (snapshot-encode.ts); parsed at boot, that was one string per term and a Map over them, a JS
// object per term before the first query, which on a large corpus is hundreds of thousands of objects.
// Served from a snapshot, the table is instead the JSON bytes themselves, an offset per term into
// them and an open-addressing hash table of term ids, all typed arrays: a lookup encodes the query
// term as UTF-8 once and compares bytes. A built index keeps the Map it was built with.

/** Term → id, and back to the list (to write a snapshot again). */
export interface TermTable {
  readonly size: number;
  /** The id of `term`, or -1. */
  id(term: string): number;
  /** Every term, in id order. */
  list(): readonly string[];
}

/** The table of a built index: the terms in id order. Throws a RangeError when a term repeats. */
export function termTableOf(terms: readonly string[]): TermTable {
  const ids = new Map<string, number>();
  for (let t = 0; t < terms.length; t += 1) ids.set(terms[t] as string, t);
  if (ids.size !== terms.length) throw new RangeError('inverted index parts repeat a term');
  return { size: terms.length, id: (term) => ids.get(term) ?? -1, list: () => terms };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The table over `json`, the UTF-8 bytes of a JSON array of strings, without a string per term.
 * A term written with escapes (JSON escapes only `"`, `\` and control characters, which no
 * tokenizer term holds) is decoded once and kept as its UTF-8 bytes. Throws a RangeError when the
 * bytes are not such an array, or a term repeats.
 */
export function termTableOfJson(json: Uint8Array): TermTable {
  const { starts, ends, bytes } = scanStrings(json);
  const size = starts.length;
  const slots = new Int32Array(tableSize(size)).fill(-1);
  const mask = slots.length - 1;
  for (let t = 0; t < size; t += 1) {
    const from = starts[t] as number;
    const to = ends[t] as number;
    for (let slot = fnv1a(bytes, from, to) & mask; ; slot = (slot + 1) & mask) {
      const other = slots[slot] as number;
      if (other === -1) {
        slots[slot] = t;
        break;
      }
      if (sameBytes(bytes, starts[other] as number, ends[other] as number, bytes, from, to)) throw new RangeError('inverted index parts repeat a term');
    }
  }
  // The query side: a term encoded into a buffer kept between lookups, grown when a term is longer.
  const encoder = new TextEncoder();
  let scratch = new Uint8Array(256);
  let listed: readonly string[] | undefined;
  return {
    size,
    id(term) {
      if (term.length * 3 > scratch.length) scratch = new Uint8Array(term.length * 3);
      const length = encoder.encodeInto(term, scratch).written;
      for (let slot = fnv1a(scratch, 0, length) & mask; ; slot = (slot + 1) & mask) {
        const t = slots[slot] as number;
        if (t === -1) return -1;
        if (sameBytes(bytes, starts[t] as number, ends[t] as number, scratch, 0, length)) return t;
      }
    },
    list() {
      const decoder = new TextDecoder();
      listed ??= Array.from(starts, (from, t) => decoder.decode(bytes.subarray(from, ends[t])));
      return listed;
    },
  };
}

/** A power of two at least twice `size`: probes stay short. */
function tableSize(size: number): number {
  let n = 16;
  while (n < size * 2) n *= 2;
  return n;
}

/**
 * The byte range of every string of the array `json`, in order, in `bytes`: `json` itself, or a copy
 * with the escaped strings appended, decoded, after it.
 */
function scanStrings(json: Uint8Array): { starts: Uint32Array; ends: Uint32Array; bytes: Uint8Array } {
  const bad = (): never => {
    throw new RangeError('the terms are not a JSON array of strings');
  };
  let count = 0;
  for (let i = 0, inString = false; i < json.length; i += 1) {
    if (inString && json[i] === BACKSLASH) i += 1;
    else if (json[i] === QUOTE) {
      if (!inString) count += 1;
      inString = !inString;
    }
  }
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const escaped: Array<{ t: number; from: number; to: number }> = [];
  let i = 0;
  const space = (): void => {
    while (i < json.length && (json[i] === 0x20 || json[i] === 0x0a || json[i] === 0x0d || json[i] === 0x09)) i += 1;
  };
  space();
  if (json[i++] !== 0x5b) bad(); // [
  space();
  let t = 0;
  if (json[i] === 0x5d) i += 1; // ]
  else {
    for (;;) {
      space();
      if (json[i++] !== QUOTE) bad();
      const from = i;
      let hasEscape = false;
      while (i < json.length && json[i] !== QUOTE) {
        if ((json[i] as number) < 0x20) bad();
        if (json[i] === BACKSLASH) {
          hasEscape = true;
          i += 1;
        }
        i += 1;
      }
      if (i >= json.length || t >= starts.length) bad();
      if (hasEscape) escaped.push({ t, from: from - 1, to: i + 1 });
      starts[t] = from;
      ends[t] = i;
      t += 1;
      i += 1;
      space();
      if (json[i] === 0x2c) {
        i += 1;
        continue;
      }
      if (json[i++] !== 0x5d) bad();
      break;
    }
  }
  space();
  if (i !== json.length || t !== starts.length) bad();
  if (escaped.length === 0) return { starts, ends, bytes: json };
  // Rare: decoded and appended, so every term is its plain UTF-8 bytes.
  const encoder = new TextEncoder();
  const decoded = escaped.map(({ t: at, from, to }) => {
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(json.subarray(from, to)));
    } catch {
      return bad();
    }
    return { t: at, utf8: encoder.encode(value as string) };
  });
  const bytes = new Uint8Array(json.length + decoded.reduce((sum, d) => sum + d.utf8.length, 0));
  bytes.set(json);
  let at = json.length;
  for (const { t: which, utf8 } of decoded) {
    bytes.set(utf8, at);
    starts[which] = at;
    ends[which] = at + utf8.length;
    at += utf8.length;
  }
  return { starts, ends, bytes };
}

function fnv1a(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i += 1) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
  return hash >>> 0;
}

function sameBytes(a: Uint8Array, aFrom: number, aTo: number, b: Uint8Array, bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i += 1) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}
