// Rules that tie one variable to another. Each is written once and named after what it refuses; each
// returns the problems it finds, one line per variable, and never quotes a secret.
import { isAbsolute, relative, resolve } from 'node:path';
import { overlapTooLong } from '../search/search-options.js';
import type { Env } from './env-kinds.js';
import { isLoopbackHost } from './loopback-host.js';
import { VARIABLES } from './schema.js';

const isSet = (env: Env, name: string) => (env[name] ?? '').trim() !== '';

/**
 * The variables that declare `requires: required` and are set while `required` is not: a typo or a
 * forgotten switch, refused rather than ignored. `hint` says how to turn the feature on; a secret's
 * value is never shown, as `hidden` says (with no hint when `hintSecrets` is false).
 */
export function noEffectProblems(env: Env, required: string, hint: string, hidden: { shown: '=(set)' | ' (value hidden)'; hintSecrets: boolean }): string[] {
  if (isSet(env, required)) return [];
  const problems: string[] = [];
  for (const [name, variable] of Object.entries(VARIABLES)) {
    if (variable.requires !== required || !isSet(env, name)) continue;
    const shown = variable.secret === true ? `${name}${hidden.shown}` : `${name}=${JSON.stringify(env[name])}`;
    const withHint = variable.secret !== true || hidden.hintSecrets;
    problems.push(`${shown}: has no effect without ${required}${withHint ? `; ${hint}` : ''}`);
  }
  return problems;
}

/** RFC 8414 §2: an issuer (and what it points to) is an https URL; plain http is tolerated on loopback for local IdPs. */
export function httpsOrLoopbackProblems(urls: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(urls)
    .filter(([, value]) => value !== undefined && !isHttpsOrLoopback(value))
    .map(([name, value]) => `${name}=${JSON.stringify(value)}: must be an https:// URL (http is accepted only for a loopback host)`);
}

export function isHttpsOrLoopback(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'https:' || isLoopbackHost(u.hostname);
}

export function overlapProblems(env: Env, chunkWords: number, overlapWords: number | undefined): string[] {
  if (overlapWords === undefined || !overlapTooLong(chunkWords, overlapWords)) return [];
  return [`CHUNK_OVERLAP_WORDS=${JSON.stringify(env.CHUNK_OVERLAP_WORDS)}: must be at most half of CHUNK_WORDS (${chunkWords})`];
}

/** What a HOST off loopback needs: authentication (or a deliberate opt-out), and the URL clients use. */
export function hostProblems(host: string, publicUrl: string | undefined, auth: { enabled: boolean; allowUnauthenticated: boolean } | undefined): string[] {
  if (isLoopbackHost(host)) return [];
  const problems: string[] = [];
  // Secure default: without auth, only this machine may connect.
  if (auth !== undefined && !auth.enabled && !auth.allowUnauthenticated) {
    problems.push(
      `HOST=${JSON.stringify(host)}: is not a loopback address and no authentication is configured, so anyone who can reach it could read the documents. ` +
        'Set AUTH_TOKENS (e.g. AUTH_TOKENS=$(openssl rand -hex 32)), AUTH_TOKENS_FILE, or OAUTH_ISSUER (with PUBLIC_URL); ' +
        'or set ALLOW_UNAUTHENTICATED=true for a deliberately public server; or bind HOST=127.0.0.1',
    );
  }
  // Off loopback the server cannot know the name clients use: the Host check, the OAuth audience,
  // the challenge's resource_metadata and the landing page are all derived from PUBLIC_URL.
  if (publicUrl === undefined) {
    problems.push(
      `HOST=${JSON.stringify(host)}: is not a loopback address, so it needs PUBLIC_URL, the URL clients use (e.g. https://docs.example.com): ` +
        'the Host check, the token audience and the protected resource metadata are derived from it',
    );
  }
  return problems;
}

/** Bearer tokens must not cross a network in the clear, unless the operator vouches for the path. */
export function clearTextProblems(host: string, publicUrl: string | undefined, auth: { enabled: boolean; allowHttpPublicUrl: boolean } | undefined): string[] {
  if (auth?.enabled !== true || auth.allowHttpPublicUrl || isLoopbackHost(host) || publicUrl === undefined || isHttpsOrLoopback(publicUrl)) return [];
  return [
    `PUBLIC_URL=${JSON.stringify(publicUrl)}: must be an https:// URL when authentication is on, or bearer tokens cross the network in the clear; ` +
      'terminate TLS in front of the server, or set ALLOW_HTTP_PUBLIC_URL=true if the network path is protected otherwise',
  ];
}

/**
 * A tokens file inside the corpus would be indexed and served: compared as written and as real paths
 * (`realPath`: symbolic links resolved), so a CORPUS_DIR that is a link to the folder holding the file
 * is refused too. (A hard link is not a path: the corpus walk skips the file by device and inode.)
 */
export function tokensFileProblems(tokensFile: string | undefined, corpusDir: string, realPath: (path: string) => string = resolve): string[] {
  if (tokensFile === undefined) return [];
  const within = (folder: string, file: string): boolean => {
    const inside = relative(folder, file);
    return inside === '' || (!inside.startsWith('..') && !isAbsolute(inside));
  };
  const real = { file: realPath(tokensFile), folder: realPath(corpusDir) };
  if (within(resolve(corpusDir), resolve(tokensFile))) {
    return [`AUTH_TOKENS_FILE=${JSON.stringify(tokensFile)}: is inside CORPUS_DIR, so it would be indexed and served; keep it outside`];
  }
  if (within(real.folder, real.file)) {
    return [
      `AUTH_TOKENS_FILE=${JSON.stringify(tokensFile)}: is inside CORPUS_DIR once symbolic links are resolved (${JSON.stringify(real.file)} in ${JSON.stringify(real.folder)}), so it would be indexed and served; keep it outside`,
    ];
  }
  return [];
}

/** With the built-in sign-in, PUBLIC_URL is the issuer of the tokens: an https origin, bare. */
export function issuerProblems(provider: string, host: string, publicUrl: string | undefined): string[] {
  const issuer = publicUrl === undefined ? undefined : new URL(publicUrl);
  if (issuer === undefined && !isLoopbackHost(host)) {
    return [`LOGIN_PROVIDER=${JSON.stringify(provider)}: needs PUBLIC_URL, the https origin clients use (e.g. https://docs.example.com): it is the issuer of the tokens`];
  }
  if (issuer !== undefined && !isHttpsOrLoopback(publicUrl!)) {
    return [`PUBLIC_URL=${JSON.stringify(publicUrl)}: must be https with LOGIN_PROVIDER (it is the OAuth issuer; http is accepted only for a loopback host)`];
  }
  if (issuer !== undefined && (issuer.pathname.replace(/\/+$/, '') !== '' || issuer.search !== '')) {
    return [`PUBLIC_URL=${JSON.stringify(publicUrl)}: must be a bare origin with LOGIN_PROVIDER (e.g. https://docs.example.com): the issuer and /authorize, /token sit at its root`];
  }
  return [];
}

export function metricsPortProblems(env: Env, port: number, metricsPort: number | undefined): string[] {
  if (metricsPort === undefined || metricsPort === 0 || metricsPort !== port) return [];
  return [`METRICS_PORT=${JSON.stringify(env.METRICS_PORT)}: must differ from PORT (${port}); the metrics listener is a port of its own`];
}
