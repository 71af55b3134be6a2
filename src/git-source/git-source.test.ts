// The git source against real git: a local-path remote, and `git http-backend` behind an HTTP server
// that demands the token.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { git, startGitHttpServer, testGitFixtures } from '../../test/support/git-repository.js';
import type { GitHttpServer, TestRepository } from '../../test/support/git-repository.js';
import type { Logger } from '../logger.js';
import { GitError, gitRunner } from './git-command.js';
import { GitSource } from './git-source.js';
import { WorkingCopy } from './working-copy.js';

const TOKEN = 'tok-4f1d2c9a8b7e6d5c4b3a29180716253e';
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const { repository, folder } = testGitFixtures(cleanups, 'corpus-mcp-wc-', 'corpus');

function recordingLogger(): Logger & { lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> } {
  const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (fields: object, msg?: string) => void lines.push({ level, fields: fields as Record<string, unknown>, msg: msg ?? '' });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } as never;
}

const copyOf = (dir: string, url: string, options: { token?: string; maxBytes?: number; ref?: string } = {}) =>
  new WorkingCopy({ dir, url, ref: options.ref, maxBytes: options.maxBytes ?? 1 << 30, git: gitRunner({ token: options.token, safeDirectory: dir, baseEnv: process.env }) });

/** Every file under `dir`, symbolic links included, '/'-separated. */
function allFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = `${prefix}${entry.name}`;
    return entry.isDirectory() ? allFiles(join(dir, entry.name), `${path}/`) : [path];
  });
}

describe('WorkingCopy', () => {
  it('makes a shallow working copy of one ref in an empty folder and checks out what was fetched', async () => {
    const repo = repository();
    repo.commit({ 'a.md': '# A\n\nfirst' });
    const second = repo.commit({ 'a.md': '# A\n\nsecond' });
    const dir = folder();
    const copy = copyOf(dir, repo.remote);
    expect(await copy.prepare()).toBeUndefined();
    const fetched = await copy.fetch();
    expect(fetched).toBe(second);
    expect(existsSync(join(dir, 'a.md'))).toBe(false); // a fetch never touches the files
    await copy.checkout(fetched);
    expect(readFileSync(join(dir, 'a.md'), 'utf8')).toContain('second');
    expect(git(dir, 'rev-list', '--count', 'HEAD')).toBe('1'); // shallow
    expect(await copy.head()).toBe(second);
  });

  it('follows a named branch, and says a vanished ref is not on the remote', async () => {
    const repo = repository();
    repo.commit({ 'a.md': 'main' });
    const onBranch = repo.commit({ 'a.md': 'release' }, 'release', { branch: 'release' });
    const dir = folder();
    const copy = copyOf(dir, repo.remote, { ref: 'release' });
    await copy.prepare();
    expect(await copy.fetch()).toBe(onBranch);
    repo.deleteBranch('release');
    await expect(copy.fetch()).rejects.toMatchObject({ code: 'ref_not_found' });
  });

  it('converges on a force-pushed history', async () => {
    const repo = repository();
    repo.commit({ 'old.md': 'old' });
    const dir = folder();
    const copy = copyOf(dir, repo.remote);
    await copy.prepare();
    await copy.checkout(await copy.fetch());
    const rewritten = repo.rewrite({ 'new.md': 'new' });
    const fetched = await copy.fetch();
    expect(fetched).toBe(rewritten);
    await copy.checkout(fetched);
    expect(allFiles(dir).filter((f) => !f.startsWith('.git/'))).toEqual(['new.md']);
  });

  it('takes out symbolic links, submodules and LFS pointers, and names each', async () => {
    const repo = repository();
    repo.commit({
      'guide.md': '# Guide',
      'inside.md': { link: 'guide.md' },
      'outside.md': { link: '/etc/passwd' },
      'big.bin.md': Buffer.alloc(11 * 1024 * 1024, 0x61),
      'model.md': 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n',
      '.hidden.md': 'hidden',
    });
    git(repo.work, 'update-index', '--add', '--cacheinfo', `160000,${git(repo.work, 'rev-parse', 'HEAD')},vendor/sub`);
    git(repo.work, 'commit', '-q', '-m', 'submodule');
    git(repo.work, 'push', '-q', 'origin', 'HEAD:refs/heads/main');
    const dir = folder();
    const copy = copyOf(dir, repo.remote);
    await copy.prepare();
    const report = await copy.checkout(await copy.fetch());
    expect(report).toMatchObject({ symlinks: ['inside.md', 'outside.md'], submodules: ['vendor/sub'], lfsPointers: ['model.md'] });
    const files = allFiles(dir).filter((f) => !f.startsWith('.git/'));
    expect(files).toEqual(['.hidden.md', 'big.bin.md', 'guide.md']);
    for (const file of files) expect(lstatSync(join(dir, file)).isSymbolicLink()).toBe(false);
  });

  it('refuses a commit over the size limit with its size, leaving the files as they were', async () => {
    const repo = repository();
    const small = repo.commit({ 'a.md': 'small' });
    const dir = folder();
    const copy = copyOf(dir, repo.remote, { maxBytes: 1024 * 1024 });
    await copy.prepare();
    await copy.checkout(await copy.fetch());
    repo.commit({ 'b.md': Buffer.alloc(1536 * 1024, 0x62) });
    const fetched = await copy.fetch();
    await expect(copy.checkout(fetched)).rejects.toThrow(/holds 1\.5 MB of files, over CORPUS_GIT_MAX_MB \(1 MB\)/);
    expect(await copy.head()).toBe(small);
    expect(existsSync(join(dir, 'b.md'))).toBe(false);
  });

  it('refuses a folder that holds files and is not a working copy it made', async () => {
    const dir = folder();
    execFileSync('mkdir', ['-p', dir]);
    writeFileSync(join(dir, 'notes.md'), 'mine');
    const error = await copyOf(dir, '/nowhere').prepare().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect(error).toMatchObject({ code: 'not_owned' });
    expect(readFileSync(join(dir, 'notes.md'), 'utf8')).toBe('mine');
  });
});

describe('the token', () => {
  let server: GitHttpServer;
  async function httpRepository(): Promise<TestRepository> {
    const repo = repository();
    repo.commit({ 'a.md': '# A' });
    server = await startGitHttpServer(repo, TOKEN);
    cleanups.push(() => server.stop());
    return repo;
  }

  it('is demanded by the server: without it the fetch is refused as auth_failed', async () => {
    await httpRepository();
    const dir = folder();
    const copy = copyOf(dir, server.url);
    await copy.prepare();
    await expect(copy.fetch()).rejects.toMatchObject({ code: 'auth_failed' });
  });

  it('fetches with it, and it is neither in the working copy nor in any process\'s arguments during the fetch', async () => {
    await httpRepository();
    const dir = folder();
    const copy = copyOf(dir, server.url, { token: TOKEN });
    await copy.prepare();
    const held = server.hold();
    const fetching = copy.fetch();
    await held;
    const commandLines = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        } catch {
          return '';
        }
      });
    server.release();
    await copy.checkout(await fetching);
    expect(commandLines.some((line) => line.includes('git') && line.includes('fetch'))).toBe(true); // the scan saw the fetch
    expect(commandLines.filter((line) => line.includes(TOKEN))).toEqual([]);
    for (const file of allFiles(dir)) expect(readFileSync(join(dir, file), 'latin1')).not.toContain(TOKEN);
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).not.toContain(TOKEN);
  });

  it('never appears in an error message, even when the server answers with it', async () => {
    await httpRepository();
    server.setToken('another-token-the-client-does-not-have-0000');
    const dir = folder();
    const copy = copyOf(dir, server.url.replace('docs.git', `${TOKEN}.git`), { token: TOKEN });
    await copy.prepare();
    const error = (await copy.fetch().catch((e: unknown) => e)) as GitError;
    expect(error.code).toBe('auth_failed');
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).toContain('[hidden]');
  });
});

describe('GitSource', () => {
  it('keeps the last good commit through failures, retrying after waits that double up to 8 polls, and recovers', async () => {
    const repo = repository();
    const first = repo.commit({ 'a.md': 'one' });
    const dir = folder();
    const logger = recordingLogger();
    const reloads: string[] = [];
    const source: GitSource = new GitSource({
      dir, url: repo.remote, ref: undefined, token: undefined, pollSeconds: 3600, maxBytes: 1 << 30, logger, baseEnv: process.env,
      reload: async (trigger) => {
        reloads.push(trigger);
        source.served(await source.checkoutFetched());
        return { outcome: 'ok' };
      },
    });
    cleanups.push(() => source.stop());
    await source.prepare();
    await source.syncNow('test');
    expect(source.status()).toMatchObject({ commit: first, fetchedCommit: first, error: undefined, failures: 0 });
    rmSync(repo.remote, { recursive: true }); // the remote goes away
    for (let i = 0; i < 5; i++) await source.syncNow('test');
    expect(source.status()).toMatchObject({ commit: first, failures: 5, error: { code: 'not_found' } });
    const waits = logger.lines.filter((l) => l.level === 'warn').map((l) => l.fields.retry_in_seconds);
    expect(waits).toEqual([3600, 7200, 14_400, 28_800, 28_800]);
    expect(logger.lines.filter((l) => l.level === 'warn').every((l) => l.msg.includes('last good commit keeps serving'))).toBe(true);
    const again = repository(); // the remote comes back, with a new commit
    const second = again.commit({ 'a.md': 'two' });
    execFileSync('cp', ['-r', again.remote, repo.remote]);
    await source.syncNow('test');
    expect(source.status()).toMatchObject({ commit: second, error: undefined, failures: 0 });
    expect(reloads).toEqual(['git', 'git']);
  });
});
