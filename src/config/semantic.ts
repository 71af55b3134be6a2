// The embeddings and rerank settings' cross-field rules.
import type { z } from 'zod';
import { isLoopbackHost } from './loopback-host.js';
import type { envSchema } from './schema.js';

/**
 * The embeddings and rerank settings that only make sense together; API keys are secrets, read from
 * the raw environment and never quoted in a message.
 */
export function semanticProblems(env: Readonly<Record<string, string | undefined>>, e: z.output<typeof envSchema>): string[] {
  const problems: string[] = [];
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (e.EMBEDDINGS_URL !== undefined && e.EMBEDDINGS_MODEL === undefined) {
    problems.push(`EMBEDDINGS_MODEL="": is required with EMBEDDINGS_URL; set the model name the endpoint serves, e.g. text-embedding-3-small`);
  }
  if (e.EMBEDDINGS_URL === undefined) {
    for (const name of ['EMBEDDINGS_MODEL', 'EMBEDDINGS_DIMENSIONS', 'VECTOR_SCAN_THREADS'] as const) {
      if (set(name)) problems.push(`${name}=${JSON.stringify(env[name])}: has no effect without EMBEDDINGS_URL; set EMBEDDINGS_URL to an OpenAI-compatible base URL`);
    }
    if (set('EMBEDDINGS_API_KEY')) problems.push('EMBEDDINGS_API_KEY (value hidden): has no effect without EMBEDDINGS_URL');
  }
  // A provider key is a bearer token too: over http it crosses every network between here and the
  // endpoint in the clear. This link is not the one ALLOW_HTTP_PUBLIC_URL vouches for.
  for (const [urlName, keyName] of [['EMBEDDINGS_URL', 'EMBEDDINGS_API_KEY'], ['RERANK_URL', 'RERANK_API_KEY']] as const) {
    const value = e[urlName];
    if (value === undefined || !set(keyName) || e.ALLOW_HTTP_PROVIDER_URL === true) continue;
    const u = new URL(value);
    if (u.protocol === 'http:' && !isLoopbackHost(u.hostname)) {
      problems.push(
        `${urlName}=${JSON.stringify(value)}: is http on a host that is not loopback while ${keyName} is set, so the key would cross the network in the clear; ` +
          'use an https:// URL, or set ALLOW_HTTP_PROVIDER_URL=true if the network path to the endpoint is protected otherwise (a private network, a VPN, a TLS sidecar)',
      );
    }
  }
  if (e.RERANK_URL === undefined) {
    if (set('RERANK_MODEL')) problems.push(`RERANK_MODEL=${JSON.stringify(env.RERANK_MODEL)}: has no effect without RERANK_URL; set RERANK_URL to a Cohere-compatible base URL`);
    if (set('RERANK_API_KEY')) problems.push('RERANK_API_KEY (value hidden): has no effect without RERANK_URL');
  }
  return problems;
}
