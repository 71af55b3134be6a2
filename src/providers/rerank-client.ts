// Client for a Cohere-compatible rerank endpoint (Cohere, Jina, Text Embeddings Inference, vLLM):
// POST <url>/rerank { model, query, documents: string[], top_n } → { results: [{ index,
// relevance_score }] }. TEI answers with a bare array of { index, score }; both shapes are read.
import { ANSWER_SLACK_BYTES, endpointName, postJson, type ProviderClientOptions } from './post-json.js';
import { ProviderError } from './provider-error.js';

/** Retry policy defaults: timeoutMs 15000, maxRetries 1 (a user is waiting), backoffMs 300, maxRetryAfterMs 5000. */
export interface RerankClientOptions extends ProviderClientOptions {
  /** Model name sent with every request; undefined omits it (TEI serves one model). */
  model?: string;
}

export interface RerankClient {
  readonly model: string | undefined;
  /** True for a model run in this process (the notes then say "model", not "endpoint"). */
  readonly local?: boolean;
  /** One relevance score per document, in input order (higher is more relevant). Throws `ProviderError`. */
  rerank(query: string, documents: readonly string[]): Promise<number[]>;
  /** Releases what the client holds (a local model's thread). */
  close?(): Promise<void>;
}

/** Bytes of one result: `{"index":1999,"relevance_score":-1.2345678901234567e-10}` with room for extra fields. */
const BYTES_PER_RESULT = 256;

/**
 * The most bytes a rerank answer can take: a result per document, plus the request's own size (some
 * servers echo each document's text whatever `return_documents` says), plus slack.
 */
export function maxRerankAnswerBytes(documents: number, requestBytes: number): number {
  return documents * BYTES_PER_RESULT + requestBytes + ANSWER_SLACK_BYTES;
}

export function createRerankClient(options: RerankClientOptions): RerankClient {
  const { url, model, apiKey, timeoutMs = 15_000, maxRetries = 1, backoffMs = 300, maxRetryAfterMs = 5000, logger } = options;
  const endpoint = `${url.replace(/\/+$/, '')}/rerank`;
  /** How logs and messages name it: no user name, password or query string. */
  const shown = endpointName(endpoint);
  return {
    model,
    async rerank(query, documents) {
      if (documents.length === 0) return [];
      const body: Record<string, unknown> = { query, documents, top_n: documents.length, return_documents: false };
      if (model !== undefined) body.model = model;
      const maxResponseBytes = maxRerankAnswerBytes(documents.length, Buffer.byteLength(JSON.stringify(body)));
      const answer = await postJson({
        url: endpoint,
        body,
        apiKey,
        timeoutMs,
        maxRetries,
        backoffMs,
        maxRetryAfterMs,
        fetch: options.fetch,
        maxResponseBytes,
        onRetry: (info) => logger?.warn({ endpoint: shown, model, ...info }, 'rerank request failed; retrying'),
        onTooLarge: ({ maxBytes }) => logger?.warn({ endpoint: shown, model, documents: documents.length, max_bytes: maxBytes }, 'provider answer larger than its cap; request aborted'),
      });
      return readScores(answer, documents.length, shown);
    },
  };
}

function readScores(answer: unknown, expected: number, endpoint: string): number[] {
  const list = Array.isArray(answer) ? answer : (answer as { results?: unknown } | null)?.results;
  if (!Array.isArray(list)) throw new ProviderError('bad_response', `POST ${endpoint} returned no results array`);
  const scores = new Array<number>(expected).fill(Number.NaN);
  for (const item of list as unknown[]) {
    const { index, relevance_score: relevance, score } = (item ?? {}) as { index?: unknown; relevance_score?: unknown; score?: unknown };
    const value = relevance ?? score;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || typeof value !== 'number' || !Number.isFinite(value)) {
      throw new ProviderError('bad_response', `POST ${endpoint} returned a result without a valid index and score`);
    }
    scores[index] = value;
  }
  if (scores.some(Number.isNaN)) throw new ProviderError('bad_response', `POST ${endpoint} scored ${list.length} of ${expected} documents`);
  return scores;
}
