// Client for an OpenAI-compatible embeddings endpoint (OpenAI, Ollama, Text Embeddings Inference,
// vLLM, LiteLLM…): POST <url>/embeddings { model, input: string[], dimensions? } →
// { data: [{ index, embedding: number[] }] }. Texts are sent in batches, a few batches at a time;
// each batch is retried on its own. Vectors come back as unit-length Float32Arrays so that a dot
// product is the cosine similarity. No ranking happens here.
import { mapLimited } from './map-limited.js';
import { ANSWER_SLACK_BYTES, endpointName, postJson, type ProviderClientOptions, type RetryPolicy } from './post-json.js';
import { ProviderError } from './provider-error.js';

/** Retry policy defaults: timeoutMs 30000, maxRetries 4, backoffMs 500, maxRetryAfterMs 60000. */
export interface EmbeddingsClientOptions extends ProviderClientOptions {
  /** Model name sent with every request. */
  model: string;
  /** Sent as `dimensions` for models that can shorten their output; undefined leaves the model's own. */
  dimensions?: number;
  /** Texts per request. Default 64; 1–2048. */
  batchSize?: number;
  /** Requests in flight at once. Default 4; 1–64. */
  concurrency?: number;
}

/** Overrides of the retry policy for one call, e.g. a short budget for a query a user waits on (see RetryPolicy). */
export type EmbedCallOptions = Partial<Pick<RetryPolicy, 'timeoutMs' | 'maxRetries' | 'budgetMs' | 'retryOnlyWhenTold'>> & {
  /** What the texts are: a model with a query instruction puts it before queries only. Default 'passage'. */
  purpose?: 'query' | 'passage';
  /** Called as batches are answered, with the texts embedded so far and the call's total. */
  onProgress?: (done: number, total: number) => void;
};

export interface EmbeddingsClient {
  readonly model: string;
  /** Texts per request. */
  readonly batchSize: number;
  /** The vector length of the latest answer (or `dimensions` when requested); undefined before the first. */
  readonly dimensions: number | undefined;
  /** The `dimensions` option as given: part of what identifies the vectors this client returns. */
  readonly requestedDimensions: number | undefined;
  /** One unit vector per text, in order (all zeros where the endpoint answered all zeros). Throws `ProviderError`. */
  embed(texts: readonly string[], options?: EmbedCallOptions): Promise<Float32Array[]>;
  /** Releases what the client holds (a local model's thread); an HTTP client holds nothing. */
  close?(): Promise<void>;
}

/**
 * The longest vector accepted, and the largest EMBEDDINGS_DIMENSIONS: above today's largest models
 * (4096), and a bound on what one answer can make the client allocate (a call's block is texts ×
 * this at most).
 */
export const MAX_EMBEDDING_DIMENSIONS = 8192;

/**
 * Bytes one number of an answer may take in JSON: 24 for the longest a JSON writer prints
 * (`-2.2250738585072014e-308`), a comma, and a pretty-printer's newline and indent (8 spaces at the
 * vectors' depth with an indent of 2: 34 in all), rounded up.
 */
export const BYTES_PER_JSON_NUMBER = 40;
/** Bytes of one embedding's own envelope: `{"object":"embedding","index":2047,"embedding":[…]}` and whitespace. */
const BYTES_PER_EMBEDDING = 256;

/**
 * The most bytes an answer for `texts` texts can take: every vector at the requested length (or the
 * longest accepted, MAX_EMBEDDING_DIMENSIONS, when the model's own is used: a model swapped behind the
 * same name may answer longer vectors, which the semantic service must see to embed again), plus slack.
 * At the defaults (64 texts, native length) 21 MB; at 1536 numbers 4.0 MB; for one query 0.4 MB.
 */
export function maxEmbeddingsAnswerBytes(texts: number, requestedDimensions: number | undefined): number {
  return texts * ((requestedDimensions ?? MAX_EMBEDDING_DIMENSIONS) * BYTES_PER_JSON_NUMBER + BYTES_PER_EMBEDDING) + ANSWER_SLACK_BYTES;
}

const BATCH_RANGE = [1, 2048] as const;
const CONCURRENCY_RANGE = [1, 64] as const;

export function createEmbeddingsClient(options: EmbeddingsClientOptions): EmbeddingsClient {
  const {
    url,
    model,
    apiKey,
    dimensions: requested,
    batchSize = 64,
    concurrency = 4,
    timeoutMs = 30_000,
    maxRetries = 4,
    backoffMs = 500,
    maxRetryAfterMs = 60_000,
    logger,
  } = options;
  if (!Number.isInteger(batchSize) || batchSize < BATCH_RANGE[0] || batchSize > BATCH_RANGE[1]) {
    throw new RangeError(`embeddings batchSize=${batchSize} is invalid: expected an integer from ${BATCH_RANGE[0]} to ${BATCH_RANGE[1]}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < CONCURRENCY_RANGE[0] || concurrency > CONCURRENCY_RANGE[1]) {
    throw new RangeError(`embeddings concurrency=${concurrency} is invalid: expected an integer from ${CONCURRENCY_RANGE[0]} to ${CONCURRENCY_RANGE[1]}`);
  }
  const endpoint = `${url.replace(/\/+$/, '')}/embeddings`;
  /** How logs and messages name it: no user name, password or query string. */
  const shown = endpointName(endpoint);
  let dimensions = requested;

  const embedBatch = async (batch: readonly string[], policy: RetryPolicy, signal: AbortSignal, into: VectorBlock): Promise<Float32Array[]> => {
    const body: Record<string, unknown> = { model, input: batch, encoding_format: 'float' };
    if (requested !== undefined) body.dimensions = requested;
    const answer = await postJson({
      ...policy,
      url: endpoint,
      body,
      apiKey,
      fetch: options.fetch,
      signal,
      maxResponseBytes: maxEmbeddingsAnswerBytes(batch.length, requested),
      onRetry: (info) => logger?.warn({ endpoint: shown, model, ...info }, 'embeddings request failed; retrying'),
      onTooLarge: ({ maxBytes }) => logger?.warn({ endpoint: shown, model, texts: batch.length, max_bytes: maxBytes }, 'provider answer larger than its cap; request aborted'),
    });
    return readVectors(answer, batch.length, shown, into);
  };

  return {
    model,
    batchSize,
    requestedDimensions: requested,
    get dimensions() {
      return dimensions;
    },
    async embed(texts, call = {}) {
      const policy: RetryPolicy = {
        timeoutMs: call.timeoutMs ?? timeoutMs,
        maxRetries: call.maxRetries ?? maxRetries,
        backoffMs,
        maxRetryAfterMs,
        budgetMs: call.budgetMs,
        retryOnlyWhenTold: call.retryOnlyWhenTold,
      };
      const batches: string[][] = [];
      for (let i = 0; i < texts.length; i += batchSize) batches.push(texts.slice(i, i + batchSize));
      const block = callBlock(texts.length, shown, requested);
      let done = 0;
      const answers = await mapLimited(batches, concurrency, async (batch, i, signal) => {
        const answer = await embedBatch(batch, policy, signal, (length) => block(length, i * batchSize, batch.length));
        done += batch.length;
        call.onProgress?.(done, texts.length);
        return answer;
      });
      const vectors = answers.flat();
      // The block held every vector of the call to one length. Across calls the latest length wins: a
      // model swapped behind the same name is the semantic service's to notice (its stored vectors no
      // longer match) and repair by embedding again.
      if (vectors[0] !== undefined) dimensions = vectors[0].length;
      return vectors;
    },
  };
}

/** Where an answer's `expected` vectors of `length` numbers go: a Float32Array of expected × length. */
export type VectorBlock = (length: number) => Float32Array;

/**
 * The vector block of one `embed` call of `count` texts: one allocation for all its batches, made when
 * the first answer tells the length (which must be `requested`, when given), each batch a slice of
 * it. Tens of thousands of vectors a pass in one block rather than one allocation each (or per
 * batch): the allocator hands a block that large back to the system once the vectors are freed (about 210 MiB of RSS at 35k chunks × 1536, see
 * docs/BENCHMARKS.md, "Memory of the chunk vectors").
 */
function callBlock(count: number, endpoint: string, requested: number | undefined): (length: number, first: number, size: number) => Float32Array {
  let block: Float32Array | undefined;
  let blockLength = requested;
  return (length, first, size) => {
    blockLength ??= length;
    if (length !== blockLength) {
      const expected = requested === undefined ? 'others of the same call had' : 'EMBEDDINGS_DIMENSIONS asks for';
      throw new ProviderError('bad_response', `POST ${endpoint} returned a vector of ${length} numbers where ${expected} ${blockLength}`);
    }
    block ??= new Float32Array(count * length);
    return block.subarray(first * length, (first + size) * length);
  };
}

/**
 * The answer's vectors in input order, normalised to unit length, as views of `into(length)` (by
 * default a block of their own). The vectors of one answer must have one length. Throws on any
 * surprise.
 */
export function readVectors(answer: unknown, expected: number, endpoint: string, into: VectorBlock = (length) => new Float32Array(expected * length)): Float32Array[] {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw new ProviderError('bad_response', `POST ${endpoint} returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${expected} inputs`);
  }
  const numbers = new Array<readonly number[]>(expected);
  data.forEach((item: unknown, position) => {
    const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || numbers[index] !== undefined) {
      throw new ProviderError('bad_response', `POST ${endpoint} returned an embedding with index ${String(index)} for ${expected} inputs`);
    }
    if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new ProviderError('bad_response', `POST ${endpoint} returned an embedding that is not a non-empty array of numbers (base64 answers are not supported)`);
    }
    numbers[index] = embedding as number[];
  });
  const length = (numbers[0] as readonly number[]).length;
  if (length > MAX_EMBEDDING_DIMENSIONS) {
    throw new ProviderError('bad_response', `POST ${endpoint} returned vectors of ${length} numbers; at most ${MAX_EMBEDDING_DIMENSIONS} are supported`);
  }
  const mismatch = numbers.find((vector) => vector.length !== length);
  if (mismatch !== undefined) {
    throw new ProviderError('bad_response', `POST ${endpoint} returned a vector of ${mismatch.length} numbers where others of the same answer had ${length}`);
  }
  const block = into(length);
  return numbers.map((vector, i) => normalise(vector, block.subarray(i * length, (i + 1) * length)));
}

/**
 * The unit vector of `numbers`, computed in float64 and scaled by the largest magnitude first, so a
 * number beyond float32's range (or a sum of squares beyond float64's) cannot turn into Infinity or
 * NaN. An all-zero vector stays zero: it has no direction, and the caller decides what that means.
 * Written into `out` when given (`numbers.length` long).
 */
export function normalise(numbers: readonly number[], out: Float32Array = new Float32Array(numbers.length)): Float32Array {
  let largest = 0;
  for (const x of numbers) largest = Math.max(largest, Math.abs(x));
  if (largest === 0) return out.fill(0);
  let sum = 0;
  for (const x of numbers) sum += (x / largest) ** 2;
  const norm = Math.sqrt(sum);
  numbers.forEach((x, i) => {
    out[i] = x / largest / norm;
  });
  return out;
}
