// Meaning-based search: the embeddings and rerank endpoints, and the rules that tie their settings together.
import { resolve } from 'node:path';
import type { SemanticConfig } from './config.js';
import type { Env } from './env-kinds.js';
import { isHttpsOrLoopback, noEffectProblems } from './rules.js';
import { DEFAULT_LOCAL_EMBEDDINGS_MODEL, DEFAULT_LOCAL_RERANK_MODEL, MAX_DEFAULT_MODEL_THREADS, MAX_DEFAULT_SCAN_THREADS } from './schema.js';

/** The semantic variables as the server's parser reads them. */
interface SemanticValues {
  EMBEDDINGS_URL: string | undefined;
  EMBEDDINGS_MODEL: string | undefined;
  EMBEDDINGS_DIMENSIONS: number | undefined;
  VECTOR_SCAN_THREADS: number | undefined;
  RERANK_URL: string | undefined;
  RERANK_MODEL: string | undefined;
  ALLOW_HTTP_PROVIDER_URL: boolean;
  EMBEDDINGS_PROVIDER: 'http' | 'local' | undefined;
  RERANK_PROVIDER: 'http' | 'local' | undefined;
  MODELS_DIR: string;
  MODELS_DOWNLOAD: boolean;
  MODELS_URL: string;
  MODEL_THREADS: number | undefined;
}

const hiddenKeys = { shown: ' (value hidden)', hintSecrets: false } as const;

/**
 * The settings that only make sense together. API keys are secrets, read from the raw environment
 * and never quoted in a message.
 */
export function semanticProblems(env: Env, e: SemanticValues): string[] {
  const problems: string[] = [];
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  const localEmbeddings = e.EMBEDDINGS_PROVIDER === 'local';
  const localRerank = e.RERANK_PROVIDER === 'local';
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL === undefined) {
    problems.push(`EMBEDDINGS_MODEL="": is required with EMBEDDINGS_URL; set the model name the endpoint serves, e.g. text-embedding-3-small`);
  }
  for (const [kind, local, urlName, modelName] of [['EMBEDDINGS', localEmbeddings, 'EMBEDDINGS_URL', 'EMBEDDINGS_MODEL'], ['RERANK', localRerank, 'RERANK_URL', 'RERANK_MODEL']] as const) {
    if (local && e[urlName] !== undefined) {
      problems.push(`${kind}_PROVIDER="local": contradicts ${urlName}; unset ${urlName} to run the model in this process, or set ${kind}_PROVIDER=http to call the endpoint`);
    }
    if (!local && e[urlName] === undefined && e[modelName] !== undefined) {
      problems.push(`${modelName}=${JSON.stringify(env[modelName])}: has no effect without ${urlName} or ${kind}_PROVIDER=local`);
    }
    if (e[`${kind}_PROVIDER`] === 'http' && e[urlName] === undefined) problems.push(`${kind}_PROVIDER="http": needs ${urlName}`);
  }
  const noEmbeddingsUrl = noEffectProblems(env, 'EMBEDDINGS_URL', 'set EMBEDDINGS_URL to an OpenAI-compatible base URL, or EMBEDDINGS_PROVIDER=local', hiddenKeys);
  // The vector scan serves local vectors as it serves an endpoint's.
  problems.push(...(localEmbeddings ? noEmbeddingsUrl.filter((p) => !p.startsWith('VECTOR_SCAN_THREADS=')) : noEmbeddingsUrl));
  // A provider key is a bearer token too: over http it crosses every network between here and the
  // endpoint in the clear. This link is not the one ALLOW_HTTP_PUBLIC_URL vouches for.
  for (const [urlName, keyName] of [['EMBEDDINGS_URL', 'EMBEDDINGS_API_KEY'], ['RERANK_URL', 'RERANK_API_KEY']] as const) {
    const value = e[urlName];
    if (value === undefined || !set(keyName) || e.ALLOW_HTTP_PROVIDER_URL || isHttpsOrLoopback(value)) continue;
    problems.push(
      `${urlName}=${JSON.stringify(value)}: is http on a host that is not loopback while ${keyName} is set, so the key would cross the network in the clear; ` +
        'use an https:// URL, or set ALLOW_HTTP_PROVIDER_URL=true if the network path to the endpoint is protected otherwise (a private network, a VPN, a TLS sidecar)',
    );
  }
  problems.push(...noEffectProblems(env, 'RERANK_URL', 'set RERANK_URL to a Cohere-compatible base URL', hiddenKeys));
  return problems;
}

/** The endpoints' settings; `cpus` is how many CPUs this process may use (the caller measures it). */
export function semanticConfig(env: Env, e: SemanticValues, cpus: number): SemanticConfig {
  return {
    embeddings:
      e.EMBEDDINGS_URL === undefined
        ? undefined
        : { url: e.EMBEDDINGS_URL, model: e.EMBEDDINGS_MODEL ?? '', apiKey: env.EMBEDDINGS_API_KEY?.trim() || undefined, dimensions: e.EMBEDDINGS_DIMENSIONS },
    rerank: e.RERANK_URL === undefined ? undefined : { url: e.RERANK_URL, model: e.RERANK_MODEL, apiKey: env.RERANK_API_KEY?.trim() || undefined },
    scanThreads: e.VECTOR_SCAN_THREADS ?? Math.min(cpus, MAX_DEFAULT_SCAN_THREADS),
    local: {
      embeddingsModel: e.EMBEDDINGS_PROVIDER === 'local' ? (e.EMBEDDINGS_MODEL ?? DEFAULT_LOCAL_EMBEDDINGS_MODEL) : undefined,
      rerankModel: e.RERANK_PROVIDER === 'local' ? (e.RERANK_MODEL ?? DEFAULT_LOCAL_RERANK_MODEL) : undefined,
      modelsDir: resolve(e.MODELS_DIR),
      download: e.MODELS_DOWNLOAD,
      hubUrl: e.MODELS_URL,
      threads: e.MODEL_THREADS ?? Math.max(1, Math.min(cpus - 1, MAX_DEFAULT_MODEL_THREADS)),
    },
  };
}
