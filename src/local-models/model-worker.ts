// The thread one local model runs in: loads @huggingface/transformers (only here, so the server's own
// thread never holds the runtime), fetches the model into MODELS_DIR when it is missing and downloads
// are on, loads its tokenizer and ONNX graph with a bounded number of ONNX Runtime threads, then
// answers requests: passage and query embeddings, or cross-encoder scores. Queries are answered
// before any passage batch waiting beside them.
// Long passages are embedded whole: cut into windows of the model's token limit (overlapping by a
// quarter), each window pooled as the model declares, the windows' vectors averaged by their token
// counts, then normalised.
import { parentPort, workerData } from 'node:worker_threads';
import { fetchModel } from './hub-download.js';
import { LocalModelError } from './local-model-error.js';
import { missingFiles, readModelFolder, type ModelFolder, type ModelTask } from './model-folder.js';
import { paddedInputs, specialTokens, tokenWindows } from './token-windows.js';
import type { ModelReply, ModelRequest, ModelThreadData } from './model-thread.js';

/**
 * The part of @huggingface/transformers this thread uses, written here so the project type-checks
 * without the optional package (`npm ci --omit=optional`).
 */
interface TensorLike {
  data: Float32Array;
  dims: number[];
}
interface Tokenizer {
  (texts: string[], options: { text_pair: string[]; padding: boolean; truncation: boolean; max_length: number }): unknown;
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  pad_token_id?: number | null;
}
type Model = (inputs: Record<string, unknown>) => Promise<unknown>;
interface Loader<T> {
  from_pretrained(id: string, options: Record<string, unknown>): Promise<T>;
}
interface Transformers {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; localModelPath: string; useFSCache: boolean };
  AutoTokenizer: Loader<Tokenizer>;
  AutoModel: Loader<Model>;
  AutoModelForSequenceClassification: Loader<Model>;
  Tensor: new (type: 'int64', data: BigInt64Array, dims: number[]) => unknown;
}
/** Imported by name at run time, so that neither the compiler nor the bundler needs the package. */
const RUNTIME = (workerData as ModelThreadData).runtime ?? '@huggingface/transformers';

const port = parentPort;
if (port === null) throw new Error('model-worker runs in a worker thread');
const data = workerData as ModelThreadData;
const post = (reply: ModelReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

interface Loaded {
  t: Transformers;
  folder: ModelFolder;
  tokenizer: Tokenizer;
  model: Model;
  /** The special tokens around one sequence, e.g. [CLS] … [SEP]. */
  before: number[];
  after: number[];
  pad: number;
  maxTokens: number;
}

async function load(): Promise<Loaded> {
  const { modelsDir, id, task, threads, allowDownloads, hubUrl } = data;
  const missing = missingFiles(modelsDir, id);
  if (missing.length > 0 && !allowDownloads) {
    throw new LocalModelError('model_missing', `model ${id} is not in MODELS_DIR (${modelsDir}: ${missing.join(', ')} missing) and downloads are off (MODELS_DOWNLOAD=false); fetch it with npm run models -- fetch ${id}`);
  }
  if (missing.length > 0) {
    post({ progress: `downloading model ${id} into MODELS_DIR` });
    await fetchModel(modelsDir, id, { hubUrl });
  }
  const folder = readModelFolder(modelsDir, id, task as ModelTask);
  let t: Transformers;
  try {
    t = (await import(RUNTIME)) as Transformers;
  } catch (error) {
    throw new LocalModelError(
      'runtime_unavailable',
      `the model runtime does not load (${message(error)}); install it with npm ci (not --omit=optional) on this platform`,
    );
  }
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.localModelPath = modelsDir;
  t.env.useFSCache = false;
  try {
    const options = { local_files_only: true, dtype: 'fp32' as const, session_options: { intraOpNumThreads: threads, interOpNumThreads: 1 } };
    const tokenizer = await t.AutoTokenizer.from_pretrained(id, { local_files_only: true });
    const model = task === 'rerank' ? await t.AutoModelForSequenceClassification.from_pretrained(id, options) : await t.AutoModel.from_pretrained(id, options);
    const { before, after } = specialTokens(tokenizer);
    return { t, folder, tokenizer, model, before, after, pad: tokenizer.pad_token_id ?? 0, maxTokens: folder.maxTokens };
  } catch (error) {
    throw new LocalModelError('model_damaged', `model ${id} does not load (${message(error)}); fetch it again (npm run models -- fetch ${id})`);
  }
}

/** One unit vector per text, in one block (texts × dimensions). */
async function embed(m: Loaded, texts: readonly string[], purpose: 'query' | 'passage'): Promise<{ block: Float32Array; dimensions: number }> {
  const { ids, owner } = tokenWindows(m, texts, purpose === 'query' ? m.folder.queryPrefix : m.folder.passagePrefix);
  const feed = paddedInputs(ids, m.pad);
  const tensor = (data: BigInt64Array) => new m.t.Tensor('int64', data, feed.dims);
  const output = (await m.model({ input_ids: tensor(feed.inputIds), attention_mask: tensor(feed.attentionMask), token_type_ids: tensor(feed.tokenTypeIds) })) as Record<string, TensorLike>;
  const hidden = output.last_hidden_state ?? output.token_embeddings ?? Object.values(output)[0];
  if (hidden === undefined || hidden.dims.length !== 3) throw new LocalModelError('model_damaged', `model ${m.folder.id} returned no token embeddings (last_hidden_state)`);
  const [, width, dimensions] = hidden.dims as [number, number, number];
  const block = new Float32Array(texts.length * dimensions);
  const weights = new Float64Array(texts.length);
  ids.forEach((row, w) => {
    const pooled = pool(hidden.data, w, width, dimensions, row.length, m.folder.pooling);
    const text = owner[w] as number;
    const out = block.subarray(text * dimensions, (text + 1) * dimensions);
    for (let d = 0; d < dimensions; d += 1) out[d] = (out[d] as number) + (pooled[d] as number) * row.length;
    weights[text] = (weights[text] as number) + row.length;
  });
  for (let i = 0; i < texts.length; i += 1) normalise(block.subarray(i * dimensions, (i + 1) * dimensions));
  return { block, dimensions };
}

function pool(hidden: Float32Array, row: number, width: number, dimensions: number, length: number, pooling: ModelFolder['pooling']): Float32Array {
  const out = new Float32Array(dimensions);
  const base = row * width * dimensions;
  if (pooling === 'cls') return hidden.slice(base, base + dimensions);
  if (pooling === 'max') out.fill(-Infinity);
  for (let t = 0; t < length; t += 1) {
    for (let d = 0; d < dimensions; d += 1) {
      const x = hidden[base + t * dimensions + d] as number;
      out[d] = pooling === 'max' ? Math.max(out[d] as number, x) : (out[d] as number) + x / length;
    }
  }
  return out;
}

function normalise(v: Float32Array): void {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return;
  const norm = Math.sqrt(sum);
  for (let i = 0; i < v.length; i += 1) v[i] = (v[i] as number) / norm;
}

async function rerank(m: Loaded, query: string, passages: readonly string[]): Promise<number[]> {
  if (passages.length === 0) return [];
  const encoded = m.tokenizer(new Array<string>(passages.length).fill(query), {
    text_pair: [...passages],
    padding: true,
    truncation: true,
    max_length: m.folder.maxTokens,
  }) as Record<string, unknown>;
  const output = (await m.model(encoded)) as { logits?: TensorLike };
  const logits = output.logits;
  if (logits === undefined) throw new LocalModelError('model_damaged', `model ${m.folder.id} returned no logits: is it a cross-encoder?`);
  const labels = logits.dims[1] ?? 1;
  // One label: its logit is the relevance. Two (not relevant, relevant): the second's margin.
  return passages.map((_, i) => (labels === 1 ? (logits.data[i] as number) : (logits.data[i * labels + 1] as number) - (logits.data[i * labels] as number)));
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const queue: ModelRequest[] = [];
let busy = false;
let loaded: Loaded | undefined;
/**
 * The server is closing: end once the run in progress is done. A thread stopped while ONNX Runtime
 * runs (terminate(), or the process exiting) aborts the whole process.
 */
let closing = false;
const endIfClosing = () => {
  if (closing && !busy) process.exit(0);
};

async function drain(): Promise<void> {
  if (busy || loaded === undefined) return;
  busy = true;
  const m = loaded;
  try {
    for (let request = queue.shift(); request !== undefined; request = queue.shift()) {
      try {
        if (request.op === 'rerank') {
          post({ id: request.id, scores: await rerank(m, request.query, request.passages) });
        } else {
          const { block, dimensions } = await embed(m, request.texts, request.purpose);
          post({ id: request.id, block, dimensions }, [block.buffer as ArrayBuffer]);
        }
      } catch (error) {
        post({ id: request.id, error: { code: error instanceof LocalModelError ? error.code : 'model_damaged', message: `model ${data.id}: ${message(error)}` } });
      }
    }
  } finally {
    busy = false;
    endIfClosing();
  }
}

port.on('message', (request: ModelRequest | { op: 'close' }) => {
  if (request.op === 'close') {
    closing = true;
    queue.length = 0;
    endIfClosing();
    return;
  }
  // A query jumps the passage batches: a user waits on it.
  if (request.op === 'embed' && request.purpose === 'query') {
    const firstPassage = queue.findIndex((r) => r.op !== 'embed' || r.purpose !== 'query');
    queue.splice(firstPassage < 0 ? queue.length : firstPassage, 0, request);
  } else {
    queue.push(request);
  }
  void drain();
});

load().then(
  (m) => {
    loaded = m;
    post({ ready: { maxTokens: m.folder.maxTokens, pooling: m.folder.pooling, poolingFrom: m.folder.poolingFrom, declaresNormalize: m.folder.declaresNormalize, queryPrefix: m.folder.queryPrefix } });
    void drain();
  },
  (error: unknown) => {
    post({ failed: { code: error instanceof LocalModelError ? error.code : 'model_damaged', message: message(error) } });
    endIfClosing();
  },
);
