import { describe, expect, it } from 'vitest';
import { loadConfig } from './load-config.js';
import { derivedTemplate } from './git.js';

const problemsOf = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
};

describe('the git source settings', () => {
  it('reads a repository, its ref, folder, poll, size limit and secrets', () => {
    const config = loadConfig({ CORPUS_GIT_URL: 'https://github.com/acme/handbook.git', CORPUS_GIT_REF: 'main', CORPUS_GIT_PATH: './docs/', CORPUS_GIT_TOKEN: 't0ken', CORPUS_GIT_WEBHOOK_SECRET: 's3cret', CORPUS_GIT_MAX_MB: '2' });
    expect(config.git).toEqual({ url: 'https://github.com/acme/handbook.git', ref: 'main', path: 'docs', token: 't0ken', pollSeconds: 60, webhookSecret: 's3cret', maxBytes: 2 * 1024 * 1024 });
    expect(config.sourceUrlTemplate).toBe('https://github.com/acme/handbook/blob/{commit}/{path}#L{line}');
    expect(loadConfig({}).git).toBeUndefined();
  });

  it.each([
    [{ CORPUS_GIT_URL: 'https://user:secret-pass@github.com/acme/handbook.git' }, 'must not carry a password or token; put the token in CORPUS_GIT_TOKEN'],
    [{ CORPUS_GIT_URL: 'http://git.example.com/acme/handbook.git', CORPUS_GIT_TOKEN: 'secret-token' }, 'the token would cross the network in the clear'],
    [{ CORPUS_GIT_URL: 'ftp://git.example.com/x.git' }, 'git over ftp is not supported'],
    [{ CORPUS_GIT_URL: '/srv/repo', CORPUS_GIT_PATH: '../etc' }, 'CORPUS_GIT_PATH="../etc": must be a folder inside the repository'],
    [{ CORPUS_GIT_URL: '/srv/repo', CORPUS_GIT_POLL: '0' }, 'CORPUS_GIT_POLL'],
    [{ CORPUS_GIT_REF: 'main' }, 'CORPUS_GIT_REF="main": has no effect without CORPUS_GIT_URL'],
    [{ SOURCE_URL_TEMPLATE: 'https://x.example/{commit}/{file}' }, 'unknown placeholder {file}'],
    [{ SOURCE_URL_TEMPLATE: 'javascript:alert(1)' }, 'must be an http:// or https:// URL'],
  ])('refuses %j', (env, problem) => {
    const message = problemsOf(env);
    expect(message).toContain(problem);
    expect(message).not.toContain('secret-pass');
    expect(message).not.toContain('secret-token');
  });

  it.each([
    ['https://github.com/acme/handbook', 'https://github.com/acme/handbook/blob/{commit}/{path}#L{line}'],
    ['git@github.com:acme/handbook.git', 'https://github.com/acme/handbook/blob/{commit}/{path}#L{line}'],
    ['ssh://git@github.com/acme/handbook.git', 'https://github.com/acme/handbook/blob/{commit}/{path}#L{line}'],
    ['https://gitlab.com/acme/docs/handbook.git', 'https://gitlab.com/acme/docs/handbook/-/blob/{commit}/{path}#L{line}'],
    ['git@gitlab.example.com:acme/handbook.git', 'https://gitlab.example.com/acme/handbook/-/blob/{commit}/{path}#L{line}'],
    ['https://git.example.com/acme/handbook.git', undefined],
    ['/srv/git/handbook.git', undefined],
  ])('derives the browse URL of %s', (remote, template) => {
    expect(derivedTemplate(remote)).toBe(template);
  });

  it('prefers SOURCE_URL_TEMPLATE to the derived one, and has one without a git source', () => {
    expect(loadConfig({ CORPUS_GIT_URL: 'https://github.com/a/b', SOURCE_URL_TEMPLATE: 'https://docs.example.com/{path}' }).sourceUrlTemplate).toBe('https://docs.example.com/{path}');
    expect(loadConfig({ SOURCE_URL_TEMPLATE: 'https://docs.example.com/{path}' }).sourceUrlTemplate).toBe('https://docs.example.com/{path}');
  });
});
