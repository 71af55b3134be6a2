// A rerank client whose cross-encoder runs in this process, in a thread of its own, behind the
// interface of the HTTP client: rerank_results uses it, and falls back to its own ordering with a note
// when the model is missing or fails. Passages longer than the model's token limit are truncated to
// it: a cross-encoder judges one query-passage pair, and rerank_results passes chunks.
import type { RerankClient } from '../providers/rerank-client.js';
import { ModelThread, type ModelInfo, type ModelThreadData } from './model-thread.js';

export interface LocalRerankOptions extends Omit<ModelThreadData, 'task'> {
  onLoaded?: (info: ModelInfo) => void;
  onProgress?: (what: string) => void;
}

export interface LocalRerankClient extends RerankClient {
  close(): Promise<void>;
}

export function createLocalRerank(options: LocalRerankOptions): LocalRerankClient {
  const { onLoaded, onProgress, ...data } = options;
  const thread = new ModelThread({ ...data, task: 'rerank' }, onProgress);
  void thread.ready.then((info) => onLoaded?.(info), () => undefined);
  return {
    model: data.id,
    async rerank(query, documents) {
      if (documents.length === 0) return [];
      await thread.ready;
      return (await thread.rerank(query, [...documents])).scores;
    },
    close: () => thread.close(),
  };
}
