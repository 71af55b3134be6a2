// Real git repositories for the git source's tests: a bare remote, a clone to commit and push from,
// and the HTTP server of git-http-server.mjs in front of the remote. Every git call is the real binary.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export interface TestRepository {
  /** Folder of every file of the test: remotes under `root/remotes`, the clone in `root/work`. */
  root: string;
  /** The bare remote, `root/remotes/docs.git`: a local path remote. */
  remote: string;
  /** The clone commits are made in. */
  work: string;
  /** Writes files (a value of `{ link: target }` makes a symbolic link), commits them and pushes; the new commit. */
  commit(files: Record<string, string | Buffer | { link: string }>, message?: string, options?: { remove?: string[]; branch?: string }): string;
  /** Replaces the branch's history with one new commit of `files` (a force-push); the new commit. */
  rewrite(files: Record<string, string>, branch?: string): string;
  /** Deletes a branch on the remote. */
  deleteBranch(branch: string): void;
  remove(): void;
}

/** What a test made, to remove after it: a repository and the folder a working copy goes in. */
export function testGitFixtures(cleanups: Array<() => unknown>, folderPrefix: string, folderName: string) {
  return {
    repository(): TestRepository {
      const repo = createRepository();
      cleanups.push(() => repo.remove());
      return repo;
    },
    /** A path inside a fresh temporary folder, not yet made: where the source is to clone. */
    folder(): string {
      const dir = mkdtempSync(join(tmpdir(), folderPrefix));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return join(dir, folderName);
    },
  };
}

export function createRepository(prefix = 'corpus-mcp-git-'): TestRepository {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const remote = join(root, 'remotes', 'docs.git');
  const work = join(root, 'work');
  mkdirSync(remote, { recursive: true });
  git(remote, 'init', '-q', '--bare', '-b', 'main');
  git(root, 'init', '-q', '-b', 'main', work);
  git(work, 'remote', 'add', 'origin', remote);
  const write = (files: Record<string, string | Buffer | { link: string }>) => {
    for (const [path, content] of Object.entries(files)) {
      const file = join(work, path);
      mkdirSync(dirname(file), { recursive: true });
      rmSync(file, { force: true });
      if (typeof content === 'object' && !Buffer.isBuffer(content)) symlinkSync(content.link, file);
      else writeFileSync(file, content);
    }
  };
  return {
    root,
    remote,
    work,
    commit(files, message = 'change', { remove = [], branch = 'main' } = {}) {
      const current = git(work, 'branch', '--show-current');
      if (current !== branch) git(work, 'checkout', '-q', '-B', branch);
      write(files);
      for (const path of remove) git(work, 'rm', '-q', path);
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '--allow-empty', '-m', message);
      git(work, 'push', '-q', '--force', 'origin', `HEAD:refs/heads/${branch}`);
      return git(work, 'rev-parse', 'HEAD');
    },
    rewrite(files, branch = 'main') {
      git(work, 'checkout', '-q', '--orphan', `rewrite-${Date.now()}`);
      git(work, 'rm', '-q', '-r', '-f', '--ignore-unmatch', '.');
      write(files);
      git(work, 'add', '-A');
      git(work, 'commit', '-q', '-m', 'rewritten');
      git(work, 'push', '-q', '--force', 'origin', `HEAD:refs/heads/${branch}`);
      git(work, 'checkout', '-q', '-B', branch);
      return git(work, 'rev-parse', 'HEAD');
    },
    deleteBranch(branch) {
      git(remote, 'update-ref', '-d', `refs/heads/${branch}`);
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface GitHttpServer {
  port: number;
  /** `http://127.0.0.1:<port>/docs.git` */
  url: string;
  /** Every `request …` line so far. */
  requests: string[];
  setToken(token: string): void;
  /** The next authenticated fetch waits until `release`; resolves once it waits. */
  hold(): Promise<void>;
  release(): void;
  stop(): Promise<void>;
  /** Starts again on the same port. */
  start(): Promise<void>;
}

/** Serves the repository's remotes folder over HTTP, demanding `token` as the Basic password. */
export async function startGitHttpServer(repo: TestRepository, token: string): Promise<GitHttpServer> {
  const script = new URL('./git-http-server.mjs', import.meta.url).pathname;
  let child: ChildProcess;
  let currentToken = token;
  const heldWaiters: Array<() => void> = [];
  const requests: string[] = [];
  const launch = (port: number) =>
    new Promise<number>((resolve, reject) => {
      child = spawn(process.execPath, [script, join(repo.root, 'remotes'), String(port)], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, GIT_TEST_TOKEN: currentToken } });
      child.once('exit', (code) => reject(new Error(`git http server exited with ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.startsWith('listening ')) resolve(Number(line.slice('listening '.length)));
        else if (line === 'held') for (const go of heldWaiters.splice(0)) go();
        else if (line.startsWith('request ')) requests.push(line);
      });
    });
  const port = await launch(0);
  const send = (line: string) => child.stdin!.write(`${line}\n`);
  return {
    port,
    url: `http://127.0.0.1:${port}/docs.git`,
    requests,
    setToken(next) {
      currentToken = next;
      send(`token ${next}`);
    },
    hold() {
      send('hold');
      return new Promise((resolve) => heldWaiters.push(resolve));
    },
    release() {
      send('release');
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async start() {
      await launch(port);
    },
  };
}
