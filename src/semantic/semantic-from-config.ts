import type { SemanticConfig } from '../config/config.js';
import type { Logger } from '../logger.js';
import { createEmbeddingsClient } from '../providers/embeddings-client.js';
import { createRerankClient } from '../providers/rerank-client.js';
import { localEmbeddings, localRerank } from './local-providers.js';
import { SemanticService, type SemanticServiceOptions } from './semantic-service.js';

/** Provider settings that are not configuration: tests shorten the waits. */
export type SemanticTuning = Pick<SemanticServiceOptions, 'queryTimeoutMs' | 'retryDelayMs' | 'maxRetryDelayMs'> & {
  /** Per-attempt timeout and retries of the chunk-embedding requests. Defaults: the client's (30 s, 4 retries). */
  embedTimeoutMs?: number;
  embedMaxRetries?: number;
  backoffMs?: number;
  /** The local models' runtime package (see LocalTuning). */
  localRuntime?: string;
};

/**
 * The semantic service for `config`: off when no endpoint is configured. Logs which endpoints are on
 * (model, requested dimension, origin), never their keys.
 */
export function semanticServiceFromConfig(config: SemanticConfig, logger: Logger, tuning: SemanticTuning = {}): SemanticService {
  const { embedTimeoutMs, embedMaxRetries, backoffMs, localRuntime, ...serviceTuning } = tuning;
  const localTuning = localRuntime === undefined ? {} : { runtime: localRuntime };
  const e = config.embeddings;
  const r = config.rerank;
  const local = config.local ?? { embeddingsModel: undefined, rerankModel: undefined, modelsDir: '', download: false, hubUrl: '', threads: 1 };
  const embeddings =
    local.embeddingsModel !== undefined
      ? localEmbeddings(local, local.embeddingsModel, logger, localTuning)
      : e === undefined
      ? undefined
      : createEmbeddingsClient({
          url: e.url,
          model: e.model,
          apiKey: e.apiKey,
          dimensions: e.dimensions,
          logger,
          ...(embedTimeoutMs !== undefined ? { timeoutMs: embedTimeoutMs } : {}),
          ...(embedMaxRetries !== undefined ? { maxRetries: embedMaxRetries } : {}),
          ...(backoffMs !== undefined ? { backoffMs } : {}),
        });
  const rerank =
    local.rerankModel !== undefined
      ? localRerank(local, local.rerankModel, logger, localTuning)
      : r === undefined
        ? undefined
        : createRerankClient({ url: r.url, model: r.model, apiKey: r.apiKey, logger, ...(backoffMs !== undefined ? { backoffMs } : {}) });
  if (e !== undefined) {
    logger.info(
      { embeddings_url: new URL(e.url).origin, model: e.model, dimensions: e.dimensions ?? 'the model default', api_key: e.apiKey !== undefined },
      'embeddings endpoint configured: hybrid search is the default once the chunks are embedded',
    );
  }
  for (const [task, model] of [['embedding', local.embeddingsModel], ['rerank', local.rerankModel]] as const) {
    if (model === undefined) continue;
    logger.info(
      { model, models_dir: local.modelsDir, downloads: local.download, threads: local.threads },
      task === 'embedding' ? 'local embedding model configured: hybrid search is the default once the chunks are embedded' : 'local rerank model configured for rerank_results',
    );
  }
  if (r !== undefined) {
    logger.info({ rerank_url: new URL(r.url).origin, model: r.model, api_key: r.apiKey !== undefined }, 'rerank endpoint configured for rerank_results');
  }
  return new SemanticService({ embeddings, rerank, logger, scanThreads: config.scanThreads, ...serviceTuning });
}
