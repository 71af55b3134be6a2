// ASCII character classes by UTF-16 code, shared by the hand-written fast paths of the tokenizer, the
// chunker and the snippet scanner: each must agree with the regexes it stands in for (TOKEN's letters
// and digits, WORD's and the snippet's `\s`), so the classes are written once.

/** An ASCII letter or digit: the only ASCII characters a word holds, apostrophes apart. */
export function isAsciiWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/** The ASCII characters `\s` matches: tab, line feed, vertical tab, form feed, carriage return, space. */
export function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}
