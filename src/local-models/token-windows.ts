// How texts become a model's input rows: each text's tokens cut into windows that fit the model's
// token limit with its special tokens around them (overlapping by a quarter, so no passage is
// truncated), and the rows padded into the three BERT input matrices. Shared by the model's thread
// and the benchmark, which feeds the very same rows to a bare ONNX Runtime session.

export interface WindowRules {
  tokenizer: { encode(text: string, options?: { add_special_tokens?: boolean }): number[] };
  /** The special tokens before and after one sequence, e.g. [CLS] and [SEP]. */
  before: readonly number[];
  after: readonly number[];
  maxTokens: number;
}

/** The special tokens the tokenizer puts around one sequence: found by encoding a word with and without them. */
export function specialTokens(tokenizer: WindowRules['tokenizer']): { before: number[]; after: number[] } {
  const bare = tokenizer.encode('a', { add_special_tokens: false });
  const full = tokenizer.encode('a');
  const at = full.findIndex((_, i) => bare.every((token, j) => full[i + j] === token));
  return at < 0 ? { before: [], after: [] } : { before: full.slice(0, at), after: full.slice(at + bare.length) };
}

/** Every text's token windows (`ids`), and which text each window belongs to (`owner`). */
export function tokenWindows(rules: WindowRules, texts: readonly string[], prefix: string): { ids: number[][]; owner: number[] } {
  const room = Math.max(1, rules.maxTokens - rules.before.length - rules.after.length);
  const stride = Math.max(1, Math.floor((room * 3) / 4));
  const ids: number[][] = [];
  const owner: number[] = [];
  texts.forEach((text, i) => {
    const tokens = rules.tokenizer.encode(prefix + text, { add_special_tokens: false });
    for (let start = 0; ; start += stride) {
      ids.push([...rules.before, ...tokens.slice(start, start + room), ...rules.after]);
      owner.push(i);
      if (start + room >= tokens.length) break;
    }
  });
  return { ids, owner };
}

/** The rows padded to the longest with `pad`: input ids, attention mask and token types, each rows × width. */
export function paddedInputs(rows: readonly number[][], pad: number): { inputIds: BigInt64Array; attentionMask: BigInt64Array; tokenTypeIds: BigInt64Array; dims: [number, number] } {
  const width = Math.max(...rows.map((r) => r.length));
  const inputIds = new BigInt64Array(rows.length * width).fill(BigInt(pad));
  const attentionMask = new BigInt64Array(rows.length * width);
  rows.forEach((row, r) => {
    row.forEach((token, c) => {
      inputIds[r * width + c] = BigInt(token);
      attentionMask[r * width + c] = 1n;
    });
  });
  return { inputIds, attentionMask, tokenTypeIds: new BigInt64Array(inputIds.length), dims: [rows.length, width] };
}
