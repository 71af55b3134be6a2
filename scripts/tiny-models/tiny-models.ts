// Small BERT-shaped models in the layout of a Hugging Face model repository (config.json,
// tokenizer.json with a WordPiece model, tokenizer_config.json, onnx/model.onnx, 1_Pooling/), for
// the tests and the benchmark: no model weights can be downloaded on the machines that run them, and
// these load through the same code a real model takes.
// - tiny-embed: every word of a synonym group has one token embedding (a one-hot "concept"), other
//   words none, so mean pooling gives a passage the sum of its concepts: a query for a word finds a
//   passage that holds only its synonym. Its token limit is small (32), so long passages need windows.
// - tiny-rerank: a cross-encoder whose logit is the dot product of the query's and the passage's
//   concepts (token type 0 and 1), divided by the passage's length.
// - bench-minilm: the shape of all-MiniLM-L6-v2 (6 layers, 384 wide, 12 heads, 30,522 tokens) with
//   seeded random weights: what a real small model costs to run, with no meaning.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeModel, FLOAT, INT64, type Graph, type Node, type Tensor } from './onnx-proto.js';

/** Groups of words the tiny models give one meaning each. */
export const SYNONYMS: readonly (readonly string[])[] = [
  ['car', 'automobile', 'vehicle'],
  ['doctor', 'physician'],
  ['buy', 'purchase'],
  ['big', 'large', 'huge'],
  ['fast', 'quick', 'rapid'],
  ['ocean', 'sea'],
  ['film', 'movie'],
  ['child', 'kid'],
  ['river'],
  ['mountain'],
  ['bread'],
  ['garden'],
];

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
export const TINY_EMBED_ID = 'corpus-mcp/tiny-embed';
export const TINY_RERANK_ID = 'corpus-mcp/tiny-rerank';
export const BENCH_MODEL_ID = 'corpus-mcp/bench-minilm';
/** The tiny embedding model's token limit, [CLS] and [SEP] included. */
export const TINY_MAX_TOKENS = 32;

const f32 = (name: string, dims: number[], data: Float32Array | number[]): Tensor => ({ name, dims, data: data instanceof Float32Array ? data : Float32Array.from(data) });
const i64 = (name: string, values: number[]): Tensor => ({ name, dims: [values.length], data: BigInt64Array.from(values.map(BigInt)) });
const node = (op: string, inputs: string[], outputs: string[], attributes: Node['attributes'] = []): Node => ({ op, inputs, outputs, attributes });
const BERT_INPUTS: Graph['inputs'] = ['input_ids', 'attention_mask', 'token_type_ids'].map((name) => ({ name, type: INT64, dims: ['batch', 'sequence'] }));

function tokenizerJson(vocab: readonly string[]): object {
  const id = (token: string) => vocab.indexOf(token);
  const special = (token: string, typeId: number) => ({ SpecialToken: { id: token, type_id: typeId } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content) => ({ id: id(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]', 0), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]', 0)],
      pair: [special('[CLS]', 0), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]', 0), { Sequence: { id: 'B', type_id: 1 } }, special('[SEP]', 1)],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [id(t)], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: Object.fromEntries(vocab.map((t, i) => [t, i])) },
  };
}

function writeFolder(root: string, id: string, files: Record<string, string | Uint8Array>): string {
  const dir = join(root, ...id.split('/'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function bertConfig(architecture: string, vocabSize: number, hidden: number, maxTokens: number, more: object = {}): string {
  return json({ architectures: [architecture], model_type: 'bert', vocab_size: vocabSize, hidden_size: hidden, max_position_embeddings: maxTokens, ...more });
}

function tokenizerConfig(maxTokens: number): string {
  return json({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: maxTokens, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]' });
}

/** The tiny models' vocabulary and each token's concept embedding (zeros for special tokens and `query`). */
function conceptTable(extraWords: readonly string[]): { vocab: string[]; table: Float32Array; hidden: number } {
  const vocab = [...SPECIAL, ...SYNONYMS.flat(), ...extraWords];
  const hidden = SYNONYMS.length;
  const table = new Float32Array(vocab.length * hidden);
  SYNONYMS.forEach((group, concept) => {
    for (const word of group) table[vocab.indexOf(word) * hidden + concept] = 1;
  });
  return { vocab, table, hidden };
}

function tinyEmbed(): Record<string, string | Uint8Array> {
  const { vocab, table, hidden } = conceptTable(['query', ':']);
  const graph: Graph = {
    name: 'tiny-embed',
    initializers: [f32('word_embeddings', [vocab.length, hidden], table), f32('token_type_embeddings', [2, hidden], new Float32Array(2 * hidden)), i64('last_axis', [-1])],
    nodes: [
      node('Gather', ['word_embeddings', 'input_ids'], ['words']),
      node('Gather', ['token_type_embeddings', 'token_type_ids'], ['types']),
      node('Add', ['words', 'types'], ['embedded']),
      node('Cast', ['attention_mask'], ['mask_float'], [{ name: 'to', i: FLOAT }]),
      node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_3d']),
      node('Mul', ['embedded', 'mask_3d'], ['last_hidden_state']),
    ],
    inputs: BERT_INPUTS,
    outputs: [{ name: 'last_hidden_state', type: FLOAT, dims: ['batch', 'sequence', hidden] }],
  };
  return {
    'config.json': bertConfig('BertModel', vocab.length, hidden, TINY_MAX_TOKENS),
    'tokenizer.json': json(tokenizerJson(vocab)),
    'tokenizer_config.json': tokenizerConfig(TINY_MAX_TOKENS),
    'modules.json': json([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
    '1_Pooling/config.json': json({ word_embedding_dimension: hidden, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true }),
    'config_sentence_transformers.json': json({ prompts: { query: 'query: ', document: '' }, default_prompt_name: null }),
    'onnx/model.onnx': encodeModel(graph),
  };
}

function tinyRerank(): Record<string, string | Uint8Array> {
  const { vocab, table, hidden } = conceptTable([]);
  const graph: Graph = {
    name: 'tiny-rerank',
    initializers: [f32('word_embeddings', [vocab.length, hidden], table), f32('one', [], [1]), i64('last_axis', [-1]), i64('sequence_axis', [1])],
    nodes: [
      node('Gather', ['word_embeddings', 'input_ids'], ['words']),
      node('Cast', ['attention_mask'], ['mask'], [{ name: 'to', i: FLOAT }]),
      node('Cast', ['token_type_ids'], ['second'], [{ name: 'to', i: FLOAT }]),
      node('Sub', ['one', 'second'], ['first']),
      node('Mul', ['first', 'mask'], ['query_weight']),
      node('Mul', ['second', 'mask'], ['passage_weight']),
      node('Unsqueeze', ['query_weight', 'last_axis'], ['query_weight_3d']),
      node('Unsqueeze', ['passage_weight', 'last_axis'], ['passage_weight_3d']),
      node('Mul', ['words', 'query_weight_3d'], ['query_words']),
      node('Mul', ['words', 'passage_weight_3d'], ['passage_words']),
      node('ReduceSum', ['query_words', 'sequence_axis'], ['query'], [{ name: 'keepdims', i: 0 }]),
      node('ReduceSum', ['passage_words', 'sequence_axis'], ['passage_sum'], [{ name: 'keepdims', i: 0 }]),
      node('ReduceSum', ['passage_weight', 'sequence_axis'], ['passage_length']),
      node('Div', ['passage_sum', 'passage_length'], ['passage']),
      node('Mul', ['query', 'passage'], ['both']),
      node('ReduceSum', ['both', 'sequence_axis'], ['logits']),
    ],
    inputs: BERT_INPUTS,
    outputs: [{ name: 'logits', type: FLOAT, dims: ['batch', 1] }],
  };
  return {
    'config.json': bertConfig('BertForSequenceClassification', vocab.length, hidden, 512, { id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } }),
    'tokenizer.json': json(tokenizerJson(vocab)),
    'tokenizer_config.json': tokenizerConfig(512),
    'onnx/model.onnx': encodeModel(graph),
  };
}

/** Seeded uniform numbers in [-scale, scale) (mulberry32). */
function randomWeights(count: number, seed: number, scale: number): Float32Array {
  const out = new Float32Array(count);
  let a = seed >>> 0;
  for (let i = 0; i < count; i += 1) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1) * scale;
  }
  return out;
}

/** A BERT encoder of all-MiniLM-L6-v2's shape with random weights, and a vocabulary of `words` (plus filler tokens to 30,522). */
function benchMiniLm(words: readonly string[]): Record<string, string | Uint8Array> {
  const hidden = 384;
  const heads = 12;
  const layers = 6;
  const ffn = 1536;
  const maxTokens = 512;
  const vocab = [...new Set([...SPECIAL, ...words])];
  for (let i = 0; vocab.length < 30_522; i += 1) vocab.push(`##x${i}`);
  let seed = 1;
  const initializers: Tensor[] = [];
  const weight = (name: string, dims: number[], scale = 0.05): string => {
    initializers.push(f32(name, dims, randomWeights(dims.reduce((a, b) => a * b, 1), (seed += 1), scale)));
    return name;
  };
  const constant = (name: string, dims: number[], value: number): string => {
    initializers.push(f32(name, dims, new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(value)));
    return name;
  };
  initializers.push(i64('heads_shape', [0, 0, heads, hidden / heads]), i64('hidden_shape', [0, 0, hidden]), i64('mask_axes', [1, 2]), i64('zero', [0]), i64('one_axis', [1]));
  initializers.push(f32('one', [], [1]), f32('mask_value', [], [-10000]), f32('scale', [], [1 / Math.sqrt(hidden / heads)]), f32('half', [], [0.5]), f32('sqrt2', [], [Math.SQRT2]));
  const nodes: Node[] = [
    // Positions 0..sequence-1 from the ids' shape: Range(0, Shape(ids)[1], 1).
    node('Shape', ['input_ids'], ['ids_shape']),
    node('Gather', ['ids_shape', 'one_axis'], ['sequence_length_1d'], [{ name: 'axis', i: 0 }]),
    node('Squeeze', ['sequence_length_1d', 'zero'], ['sequence_length']),
    node('Range', ['zero_scalar', 'sequence_length', 'one_scalar'], ['positions']),
    node('Gather', [weight('word_embeddings', [vocab.length, hidden]), 'input_ids'], ['words']),
    node('Gather', [weight('position_embeddings', [maxTokens, hidden]), 'positions'], ['places']),
    node('Gather', [weight('token_type_embeddings', [2, hidden]), 'token_type_ids'], ['types']),
    node('Add', ['words', 'places'], ['words_places']),
    node('Add', ['words_places', 'types'], ['embedded']),
    node('LayerNormalization', ['embedded', constant('ln_e_g', [hidden], 1), constant('ln_e_b', [hidden], 0)], ['h0'], [{ name: 'axis', i: -1 }, { name: 'epsilon', f: 1e-12 }]),
    node('Cast', ['attention_mask'], ['mask_float'], [{ name: 'to', i: FLOAT }]),
    node('Sub', ['one', 'mask_float'], ['mask_off']),
    node('Mul', ['mask_off', 'mask_value'], ['mask_bias_2d']),
    node('Unsqueeze', ['mask_bias_2d', 'mask_axes'], ['mask_bias']),
  ];
  initializers.push({ name: 'zero_scalar', dims: [], data: BigInt64Array.from([0n]) }, { name: 'one_scalar', dims: [], data: BigInt64Array.from([1n]) });
  let x = 'h0';
  for (let l = 0; l < layers; l += 1) {
    const p = (s: string) => `l${l}_${s}`;
    const linear = (input: string, name: string, from: number, to: number): string => {
      nodes.push(node('MatMul', [input, weight(p(`${name}_w`), [from, to])], [p(`${name}_mm`)]));
      nodes.push(node('Add', [p(`${name}_mm`), constant(p(`${name}_b`), [to], 0)], [p(name)]));
      return p(name);
    };
    const split = (name: string, perm: number[]): string => {
      nodes.push(node('Reshape', [linear(x, name, hidden, hidden), 'heads_shape'], [p(`${name}_heads`)]));
      nodes.push(node('Transpose', [p(`${name}_heads`)], [p(`${name}_t`)], [{ name: 'perm', ints: perm }]));
      return p(`${name}_t`);
    };
    const q = split('q', [0, 2, 1, 3]);
    const k = split('k', [0, 2, 3, 1]);
    const v = split('v', [0, 2, 1, 3]);
    nodes.push(
      node('MatMul', [q, k], [p('scores_raw')]),
      node('Mul', [p('scores_raw'), 'scale'], [p('scores_scaled')]),
      node('Add', [p('scores_scaled'), 'mask_bias'], [p('scores')]),
      node('Softmax', [p('scores')], [p('probs')], [{ name: 'axis', i: -1 }]),
      node('MatMul', [p('probs'), v], [p('context_heads')]),
      node('Transpose', [p('context_heads')], [p('context_t')], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
      node('Reshape', [p('context_t'), 'hidden_shape'], [p('context')]),
    );
    const attended = linear(p('context'), 'o', hidden, hidden);
    nodes.push(node('Add', [x, attended], [p('res1')]));
    nodes.push(node('LayerNormalization', [p('res1'), constant(p('ln1_g'), [hidden], 1), constant(p('ln1_b'), [hidden], 0)], [p('h1')], [{ name: 'axis', i: -1 }, { name: 'epsilon', f: 1e-12 }]));
    x = p('h1');
    const up = linear(x, 'up', hidden, ffn);
    // GELU, exact: x · ½ · (1 + erf(x / √2)).
    nodes.push(
      node('Div', [up, 'sqrt2'], [p('gelu_in')]),
      node('Erf', [p('gelu_in')], [p('gelu_erf')]),
      node('Add', [p('gelu_erf'), 'one'], [p('gelu_sum')]),
      node('Mul', [up, p('gelu_sum')], [p('gelu_mul')]),
      node('Mul', [p('gelu_mul'), 'half'], [p('gelu')]),
    );
    const down = linear(p('gelu'), 'down', ffn, hidden);
    nodes.push(node('Add', [x, down], [p('res2')]));
    const out = l === layers - 1 ? 'last_hidden_state' : p('h2');
    nodes.push(node('LayerNormalization', [p('res2'), constant(p('ln2_g'), [hidden], 1), constant(p('ln2_b'), [hidden], 0)], [out], [{ name: 'axis', i: -1 }, { name: 'epsilon', f: 1e-12 }]));
    x = out;
  }
  const graph: Graph = { name: 'bench-minilm', nodes, initializers, inputs: BERT_INPUTS, outputs: [{ name: 'last_hidden_state', type: FLOAT, dims: ['batch', 'sequence', hidden] }] };
  return {
    'config.json': bertConfig('BertModel', vocab.length, hidden, maxTokens, { num_hidden_layers: layers, num_attention_heads: heads, intermediate_size: ffn }),
    'tokenizer.json': json(tokenizerJson(vocab)),
    'tokenizer_config.json': tokenizerConfig(256),
    'modules.json': json([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
    '1_Pooling/config.json': json({ word_embedding_dimension: hidden, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true }),
    'onnx/model.onnx': encodeModel(graph),
  };
}

/** Writes tiny-embed and tiny-rerank under `modelsDir` (one folder per model id); returns their folders. */
export function writeTinyModels(modelsDir: string): { embed: string; rerank: string } {
  return { embed: writeFolder(modelsDir, TINY_EMBED_ID, tinyEmbed()), rerank: writeFolder(modelsDir, TINY_RERANK_ID, tinyRerank()) };
}

/** Writes bench-minilm under `modelsDir`, its vocabulary taken from `words` (about 90 MB). */
export function writeBenchModel(modelsDir: string, words: readonly string[]): string {
  return writeFolder(modelsDir, BENCH_MODEL_ID, benchMiniLm(words));
}
