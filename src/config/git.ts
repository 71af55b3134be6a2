// The git source's settings and the rules that tie them together. The token and the webhook secret
// are secrets, read from the raw environment and never quoted in a message.
import { isAbsolute, posix } from 'node:path';
import type { GitSourceConfig } from './config.js';
import type { Env } from './env-kinds.js';
import { isLoopbackHost } from './loopback-host.js';
import { noEffectProblems } from './rules.js';

/** The git variables as the server's parser reads them. */
interface GitValues {
  CORPUS_GIT_URL: string | undefined;
  CORPUS_GIT_REF: string | undefined;
  CORPUS_GIT_PATH: string | undefined;
  CORPUS_GIT_POLL: number;
  CORPUS_GIT_MAX_MB: number;
  SOURCE_URL_TEMPLATE: string | undefined;
}

const PLACEHOLDERS = ['commit', 'path', 'line'] as const;
const hidden = { shown: '=(set)', hintSecrets: true } as const;

/** The scheme of a URL-shaped remote (`https`, `ssh`, `file`…), or undefined for a path or `user@host:path`. */
const schemeOf = (remote: string): string | undefined => /^([a-z][a-z0-9+.-]*):\/\//i.exec(remote)?.[1]?.toLowerCase();

export function gitProblems(env: Env, e: GitValues): string[] {
  const problems = noEffectProblems(env, 'CORPUS_GIT_URL', 'set CORPUS_GIT_URL to the repository to serve', hidden);
  const remote = e.CORPUS_GIT_URL?.trim();
  if (remote !== undefined) {
    const scheme = schemeOf(remote);
    const shown = `CORPUS_GIT_URL=${JSON.stringify(remote.replace(/\/\/[^/@]*@/, '//…@'))}`;
    if (scheme !== undefined) {
      let url: URL | undefined;
      try {
        url = new URL(remote);
      } catch {
        problems.push(`${shown}: is not a valid URL; use https://host/org/repo.git, ssh://git@host/org/repo.git, git@host:org/repo.git or a local path`);
      }
      if (url !== undefined && !['https', 'http', 'ssh', 'git', 'file'].includes(scheme)) {
        problems.push(`${shown}: git over ${scheme} is not supported; use https, ssh, git, file or a local path`);
      } else if (url !== undefined && url.password !== '') {
        problems.push(`${shown}: must not carry a password or token; put the token in CORPUS_GIT_TOKEN`);
      } else if (url !== undefined && scheme === 'http' && !isLoopbackHost(url.hostname) && (env.CORPUS_GIT_TOKEN ?? '').trim() !== '') {
        problems.push(`${shown}: is http on a host that is not loopback while CORPUS_GIT_TOKEN is set, so the token would cross the network in the clear; use https`);
      }
    }
  }
  const path = e.CORPUS_GIT_PATH?.trim();
  if (path !== undefined && (isAbsolute(path) || posix.normalize(path).split('/').includes('..') || path.includes('\\'))) {
    problems.push(`CORPUS_GIT_PATH=${JSON.stringify(path)}: must be a folder inside the repository, relative and without "..", e.g. docs`);
  }
  const template = e.SOURCE_URL_TEMPLATE?.trim();
  if (template !== undefined) {
    const unknown = [...template.matchAll(/\{([^}]*)\}/g)].map((m) => m[1] ?? '').filter((name) => !(PLACEHOLDERS as readonly string[]).includes(name));
    if (!/^https?:\/\//i.test(template)) problems.push(`SOURCE_URL_TEMPLATE=${JSON.stringify(template)}: must be an http:// or https:// URL with {commit}, {path} and {line} placeholders`);
    else if (unknown.length > 0) problems.push(`SOURCE_URL_TEMPLATE=${JSON.stringify(template)}: unknown placeholder {${unknown[0]}}; the placeholders are {commit}, {path} and {line}`);
  }
  return problems;
}

export function gitConfig(env: Env, e: GitValues): { git: GitSourceConfig | undefined; sourceUrlTemplate: string | undefined } {
  const remote = e.CORPUS_GIT_URL?.trim();
  const template = e.SOURCE_URL_TEMPLATE?.trim() || (remote === undefined ? undefined : derivedTemplate(remote));
  if (remote === undefined) return { git: undefined, sourceUrlTemplate: template };
  const path = posix.normalize(e.CORPUS_GIT_PATH?.trim() || '.').replace(/^\.\/?$/, '').replace(/\/+$/, '');
  return {
    git: {
      url: remote,
      ref: e.CORPUS_GIT_REF?.trim() || undefined,
      path,
      token: env.CORPUS_GIT_TOKEN?.trim() || undefined,
      pollSeconds: e.CORPUS_GIT_POLL,
      webhookSecret: env.CORPUS_GIT_WEBHOOK_SECRET?.trim() || undefined,
      maxBytes: e.CORPUS_GIT_MAX_MB * 1024 * 1024,
    },
    sourceUrlTemplate: template,
  };
}

/**
 * The browse URL of a file at a commit for a GitHub or GitLab remote (https, ssh or scp-like), or
 * undefined for any other host.
 */
export function derivedTemplate(remote: string): string | undefined {
  let host: string;
  let repoPath: string;
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(remote);
  if (schemeOf(remote) === undefined && scp !== undefined && scp !== null) {
    host = scp[1] as string;
    repoPath = scp[2] as string;
  } else {
    try {
      const url = new URL(remote);
      if (!['https:', 'http:', 'ssh:', 'git:'].includes(url.protocol)) return undefined;
      host = url.hostname;
      repoPath = url.pathname;
    } catch {
      return undefined;
    }
  }
  host = host.toLowerCase();
  repoPath = repoPath.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  if (repoPath === '' || repoPath.includes('..')) return undefined;
  if (host === 'github.com') return `https://github.com/${repoPath}/blob/{commit}/{path}#L{line}`;
  if (host === 'gitlab.com' || host.startsWith('gitlab.')) return `https://${host}/${repoPath}/-/blob/{commit}/{path}#L{line}`;
  return undefined;
}
