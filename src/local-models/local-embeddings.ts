// An embeddings client whose model runs in this process, in a thread of its own (model-thread.ts),
// behind the interface of the HTTP client: the semantic service embeds the corpus and queries, caches
// vectors by passage hash and falls back to keywords exactly as it does with an endpoint. Passages go
// to the thread one batch at a time, so a query (which jumps the thread's queue) waits for one batch
// at most.
import type { EmbedCallOptions, EmbeddingsClient } from '../providers/embeddings-client.js';
import { ProviderError } from '../providers/provider-error.js';
import { ModelThread, type ModelInfo, type ModelThreadData } from './model-thread.js';

export interface LocalEmbeddingsOptions extends Omit<ModelThreadData, 'task'> {
  /** Passages per request to the thread. Default 16; 1–2048. */
  batchSize?: number;
  /** Logged once the model has loaded (what it declared), or failed. */
  onLoaded?: (info: ModelInfo) => void;
  onProgress?: (what: string) => void;
}

export interface LocalEmbeddingsClient extends EmbeddingsClient {
  readonly thread: ModelThread;
  close(): Promise<void>;
}

export function createLocalEmbeddings(options: LocalEmbeddingsOptions): LocalEmbeddingsClient {
  const { batchSize = 16, onLoaded, onProgress, ...data } = options;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 2048) throw new RangeError(`local embeddings batchSize=${batchSize} is invalid: expected an integer from 1 to 2048`);
  const thread = new ModelThread({ ...data, task: 'embed' }, onProgress);
  void thread.ready.then((info) => onLoaded?.(info), () => undefined);
  let dimensions: number | undefined;
  return {
    model: data.id,
    batchSize,
    requestedDimensions: undefined,
    thread,
    get dimensions() {
      return dimensions;
    },
    async embed(texts, call: EmbedCallOptions = {}) {
      await thread.ready;
      const purpose = call.purpose ?? 'passage';
      const vectors: Float32Array[] = [];
      let block: Float32Array | undefined;
      for (let first = 0; first < texts.length; first += batchSize) {
        const batch = texts.slice(first, first + batchSize);
        const answer = withTimeout(thread.embed(batch, purpose), call.timeoutMs, data.id);
        const { block: part, dimensions: length } = await answer;
        // One block for the whole call, as the HTTP client allocates it: the allocator hands a block
        // that large back to the system once the vectors are freed.
        block ??= new Float32Array(texts.length * length);
        block.set(part, first * length);
        for (let i = 0; i < batch.length; i += 1) vectors.push(block.subarray((first + i) * length, (first + i + 1) * length));
        dimensions = length;
        call.onProgress?.(first + batch.length, texts.length);
      }
      return vectors;
    },
    close: () => thread.close(),
  };
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number | undefined, id: string): Promise<T> {
  if (timeoutMs === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProviderError('timeout', `local model ${id} did not answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
