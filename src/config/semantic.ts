// Meaning-based search: the embeddings and rerank endpoints, and the rules that tie their settings together.
import type { SemanticConfig } from './config.js';
import type { Env } from './env-kinds.js';
import { isHttpsOrLoopback, noEffectProblems } from './rules.js';
import { MAX_DEFAULT_SCAN_THREADS } from './schema.js';

/** The semantic variables as the server's parser reads them. */
interface SemanticValues {
  EMBEDDINGS_URL: string | undefined;
  EMBEDDINGS_MODEL: string | undefined;
  EMBEDDINGS_DIMENSIONS: number | undefined;
  VECTOR_SCAN_THREADS: number | undefined;
  RERANK_URL: string | undefined;
  RERANK_MODEL: string | undefined;
  ALLOW_HTTP_PROVIDER_URL: boolean;
}

const hiddenKeys = { shown: ' (value hidden)', hintSecrets: false } as const;

/**
 * The settings that only make sense together. API keys are secrets, read from the raw environment
 * and never quoted in a message.
 */
export function semanticProblems(env: Env, e: SemanticValues): string[] {
  const problems: string[] = [];
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL === undefined) {
    problems.push(`EMBEDDINGS_MODEL="": is required with EMBEDDINGS_URL; set the model name the endpoint serves, e.g. text-embedding-3-small`);
  }
  problems.push(...noEffectProblems(env, 'EMBEDDINGS_URL', 'set EMBEDDINGS_URL to an OpenAI-compatible base URL', hiddenKeys));
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
  };
}
