// The local models' clients for the semantic service, their module loaded only when a local provider
// is configured: a keyword-only server never loads it, nor the model runtime, which only a model's own
// thread imports. The model starts loading at once, in its thread, while the index is produced.
import type { LocalModelsConfig } from '../config/config.js';
import type { ModelInfo } from '../local-models/model-thread.js';
import type { Logger } from '../logger.js';
import type { EmbeddingsClient } from '../providers/embeddings-client.js';
import type { RerankClient } from '../providers/rerank-client.js';

/** Not configuration: tests name a runtime that does not load. */
export interface LocalTuning {
  runtime?: string;
}

function threadOptions(config: LocalModelsConfig, id: string, logger: Logger, task: string, tuning: LocalTuning) {
  return {
    ...tuning,
    modelsDir: config.modelsDir,
    id,
    threads: config.threads,
    allowDownloads: config.download,
    hubUrl: config.hubUrl,
    onProgress: (what: string) => logger.info({ model: id, models_dir: config.modelsDir }, what),
    onLoaded: (info: ModelInfo) =>
      logger.info(
        {
          model: id,
          max_tokens: info.maxTokens,
          pooling: info.pooling,
          pooling_from: info.poolingFrom,
          declares_normalize: info.declaresNormalize,
          query_prefix: info.queryPrefix,
          threads: config.threads,
        },
        `local ${task} model loaded`,
      ),
  };
}

export function localEmbeddings(config: LocalModelsConfig, id: string, logger: Logger, tuning: LocalTuning = {}): EmbeddingsClient {
  const client = import('../local-models/local-embeddings.js').then(({ createLocalEmbeddings }) => createLocalEmbeddings(threadOptions(config, id, logger, 'embedding', tuning)));
  client.catch(() => undefined); // every call awaits it and reports its failure
  let dimensions: number | undefined;
  return {
    model: id,
    batchSize: 16,
    requestedDimensions: undefined,
    get dimensions() {
      return dimensions;
    },
    async embed(texts, call) {
      const local = await client;
      const vectors = await local.embed(texts, call);
      dimensions = local.dimensions;
      return vectors;
    },
    close: async () => (await client).close(),
  };
}

export function localRerank(config: LocalModelsConfig, id: string, logger: Logger, tuning: LocalTuning = {}): RerankClient {
  const client = import('../local-models/local-rerank.js').then(({ createLocalRerank }) => createLocalRerank(threadOptions(config, id, logger, 'rerank', tuning)));
  client.catch(() => undefined);
  return {
    model: id,
    local: true,
    rerank: async (query, documents) => (await client).rerank(query, documents),
    close: async () => (await client).close(),
  };
}
