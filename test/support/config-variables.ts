// The environment variables src/config.ts reads, found by watching it read rather than by listing them
// a second time: loadConfig (and the operator tool's readers) run over environments that record every
// name looked up. The environments switch on each optional feature so that the names read only inside
// it are seen too.
import { loadAuthDataDir, loadConfig, loadDatabaseUrl } from '../../src/config.js';

const TOKEN = 'x'.repeat(32);

/** Environments that between them take every branch of config.ts that reads a variable. */
const FEATURES: ReadonlyArray<Record<string, string>> = [
  {},
  { AUTH_TOKENS: TOKEN, HOST: '0.0.0.0', PUBLIC_URL: 'https://docs.example.com', EMBEDDINGS_URL: 'https://embeddings.example.com/v1', EMBEDDINGS_MODEL: 'm', RERANK_URL: 'https://rerank.example.com' },
  { OAUTH_ISSUER: 'https://issuer.example.com', PUBLIC_URL: 'https://docs.example.com' },
  {
    LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'https://accounts.example.com', LOGIN_CLIENT_ID: 'id', LOGIN_CLIENT_SECRET: 's',
    AUTH_SECRET: TOKEN, ALLOWED_EMAIL_DOMAINS: 'example.com', PUBLIC_URL: 'https://docs.example.com',
  },
];

export function configVariables(): ReadonlySet<string> {
  const read = new Set<string>();
  const recording = (env: Record<string, string>) =>
    new Proxy(env, {
      get(target, name, receiver) {
        if (typeof name === 'string') read.add(name);
        return Reflect.get(target, name, receiver) as unknown;
      },
    });
  for (const env of FEATURES) {
    loadConfig(recording(env));
    loadAuthDataDir(recording(env));
    loadDatabaseUrl(recording(env));
  }
  return read;
}
