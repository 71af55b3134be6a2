// What counts as a word character, for the tokenizer that makes terms and for the snippet that finds
// them again in the text: one table, so a highlight never disagrees with what was indexed.

/**
 * Scripts written without spaces between words, as a regex character-class body. A run of them is
 * indexed as overlapping character bigrams (a lone character as itself), the usual dictionary-free
 * way to make them searchable. U+30FC (ー, the prolonged sound mark) is Script=Common but is written
 * inside katakana and hiragana words (データ), so it belongs to their runs.
 */
export const UNSPACED = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC`;

/** The characters a word of a spaced script is made of, as a character-class body: letters, marks, digits. */
export const WORD_LETTERS = String.raw`\p{L}\p{M}\p{N}`;

/** Characters that the tokenizer turns into bigrams or single-symbol terms, never into words. */
export const NOT_WORDISH = new RegExp(`[${UNSPACED}\\p{Extended_Pictographic}]`, 'u');

/** A letter, mark or digit of any script. */
export const WORD_CHAR = new RegExp(`[${WORD_LETTERS}]`, 'u');
