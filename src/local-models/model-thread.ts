// The server's side of one local model's thread (model-worker.ts): starts it, sends it requests and
// matches their answers. The model loads in the thread; until it has, requests wait; when it cannot
// (missing, damaged, no runtime) or the thread dies, every request waiting and every later one fails
// with a LocalModelError naming the model and why, and the server stays up.
import type { Worker } from 'node:worker_threads';
import { workerStarter } from '../entry-file.js';
import { LocalModelError, type LocalModelErrorCode } from './local-model-error.js';
import type { ModelTask, Pooling } from './model-folder.js';

export interface ModelThreadData {
  modelsDir: string;
  id: string;
  task: ModelTask;
  /** ONNX Runtime's intra-op threads (its default would take every core). */
  threads: number;
  /** Fetch the model into modelsDir when it is not there. */
  allowDownloads: boolean;
  /** The hub it is fetched from (MODELS_URL). */
  hubUrl: string;
  /** The runtime package the thread imports. Default @huggingface/transformers; tests name one that does not load. */
  runtime?: string;
}

export type ModelRequest =
  | { id: number; op: 'embed'; texts: string[]; purpose: 'query' | 'passage' }
  | { id: number; op: 'rerank'; query: string; passages: string[] };

/** What the model declared, as the thread loaded it. */
export interface ModelInfo {
  maxTokens: number;
  pooling: Pooling;
  poolingFrom: string;
  declaresNormalize: boolean;
  queryPrefix: string;
}

export type ModelReply =
  | { ready: ModelInfo }
  | { failed: { code: LocalModelErrorCode; message: string } }
  | { progress: string }
  | { id: number; block: Float32Array; dimensions: number }
  | { id: number; scores: number[] }
  | { id: number; error: { code: LocalModelErrorCode; message: string } };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type Answer = { block: Float32Array; dimensions: number } | { scores: number[] };

const startWorker = workerStarter(import.meta.url, 'model-worker');

export class ModelThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  #next = 0;
  #failure: LocalModelError | undefined;
  #closed = false;
  /** Resolves with what the model declared once it has loaded; rejects when it cannot. */
  readonly ready: Promise<ModelInfo>;

  constructor(data: ModelThreadData, onProgress: (what: string) => void = () => undefined) {
    this.#worker = startWorker({ workerData: data });
    this.#worker.unref();
    this.ready = new Promise<ModelInfo>((resolve, reject) => {
      this.#worker.on('message', (reply: ModelReply) => {
        if ('ready' in reply) resolve(reply.ready);
        else if ('failed' in reply) {
          const error = new LocalModelError(reply.failed.code, reply.failed.message);
          this.#fail(error);
          reject(error);
        } else if ('progress' in reply) onProgress(reply.progress);
        else {
          const waiting = this.#pending.get(reply.id);
          this.#pending.delete(reply.id);
          if ('error' in reply) waiting?.reject(new LocalModelError(reply.error.code, reply.error.message));
          else waiting?.resolve(reply);
        }
      });
      const died = (why: string) => {
        if (this.#closed) return;
        const error = new LocalModelError('thread_failed', `the thread of model ${data.id} ${why}`);
        this.#fail(error);
        reject(error);
      };
      this.#worker.on('error', (error) => died(`failed (${error.message})`));
      this.#worker.on('exit', (code) => died(`ended (exit code ${code})`));
    });
    this.ready.catch(() => undefined);
  }

  #fail(error: LocalModelError): void {
    this.#failure ??= error;
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
  }

  #send<T extends Answer>(request: DistributiveOmit<ModelRequest, 'id'>): Promise<T> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.reject(new LocalModelError('thread_failed', 'the model thread is closed'));
    const id = (this.#next += 1);
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (answer: Answer) => void, reject });
      this.#worker.ref(); // a request in flight keeps the process alive, an idle thread does not
      this.#worker.postMessage({ ...request, id });
    }).finally(() => {
      if (this.#pending.size === 0) this.#worker.unref();
    });
  }

  /** Unit vectors of `texts`, in one block of texts × dimensions. */
  embed(texts: string[], purpose: 'query' | 'passage'): Promise<{ block: Float32Array; dimensions: number }> {
    return this.#send({ op: 'embed', texts, purpose });
  }

  rerank(query: string, passages: string[]): Promise<{ scores: number[] }> {
    return this.#send({ op: 'rerank', query, passages });
  }

  /**
   * Ends the thread once the run in progress (one batch at most) is done, and resolves then; past
   * `waitMs` it is terminated. Requests waiting fail.
   */
  async close(waitMs = 10_000): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#fail(new LocalModelError('thread_failed', 'the model thread is closed'));
    const ended = new Promise<void>((resolve) => this.#worker.once('exit', () => resolve()));
    this.#worker.postMessage({ op: 'close' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
    if ((await Promise.race([ended, late])) === 'late') await this.#worker.terminate();
    clearTimeout(timer);
  }
}
