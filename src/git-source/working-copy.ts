// The working copy in CORPUS_DIR: a shallow clone of one ref, made and owned by the server. Fetching
// never touches the files; a checkout replaces them with one commit's, then takes out what must not
// be served: symbolic links (never followed, wherever they point), submodules (not fetched) and Git
// LFS pointers (their content is not in the repository). Each is named in the report for the log.
import { lstat, mkdir, open, readdir, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes } from '../corpus/format-bytes.js';
import { GitError } from './git-command.js';
import type { GitRunner } from './git-command.js';

/** The local ref a fetch writes; the working copy never has a branch of its own. */
const FETCHED = 'refs/corpus-mcp/fetched';
/** Marks a repository the server made, in its local .git/config (which never holds the token). */
const OWNED_KEY = 'corpus-mcp.owned';
const LFS_SIGNATURE = 'version https://git-lfs.github.com/spec/v1';
/** An LFS pointer is about 130 bytes; a larger blob is content. */
const LFS_POINTER_MAX_BYTES = 1024;

/** One entry of `git ls-tree -r -l`. */
interface TreeEntry {
  mode: string;
  type: string;
  size: number;
  path: string;
}

/** What a checkout took out of the files served. */
export interface CheckoutReport {
  commit: string;
  /** Bytes of the commit's files. */
  bytes: number;
  symlinks: string[];
  submodules: string[];
  lfsPointers: string[];
}

export interface WorkingCopyOptions {
  /** CORPUS_DIR, absolute. */
  dir: string;
  url: string;
  /** Branch or tag; undefined: the remote's HEAD. */
  ref: string | undefined;
  /** A commit whose files are larger than this is refused. */
  maxBytes: number;
  git: GitRunner;
}

export class WorkingCopy {
  readonly #o: WorkingCopyOptions;

  constructor(options: WorkingCopyOptions) {
    this.#o = options;
  }

  #git(args: string[], timeoutMs?: number): Promise<string> {
    return this.#o.git(args, { cwd: this.#o.dir, ...(timeoutMs ? { timeoutMs } : {}) });
  }

  /**
   * Makes the folder a working copy of the remote if it is absent or empty, and refuses one that holds
   * anything else. Resolves with the commit checked out, if there is one.
   */
  async prepare(): Promise<string | undefined> {
    const { dir, url } = this.#o;
    await mkdir(dir, { recursive: true });
    const entries = await readdir(dir);
    if (entries.length === 0) {
      await this.#git(['init', '-q']);
      await this.#git(['config', OWNED_KEY, 'true']);
      await this.#git(['remote', 'add', 'origin', url]);
      return undefined;
    }
    const owned = entries.includes('.git') ? await this.#git(['config', '--local', '--get', OWNED_KEY]).catch(() => '') : '';
    if (owned.trim() !== 'true') {
      throw new GitError('not_owned', `CORPUS_DIR ${dir} holds files and is not a working copy this server made: point CORPUS_DIR at an empty or new folder, which the server then owns`);
    }
    await this.#git(['remote', 'set-url', 'origin', url]);
    return this.head();
  }

  /** The commit checked out, or undefined before the first checkout. */
  async head(): Promise<string | undefined> {
    const out = await this.#git(['rev-parse', '--verify', '-q', 'HEAD^{commit}']).catch(() => '');
    return out.trim() || undefined;
  }

  /** Fetches the ref's newest commit (depth 1) without touching the files; resolves with it. */
  async fetch(): Promise<string> {
    const source = this.#o.ref ?? 'HEAD';
    await this.#git(['fetch', '-q', '--depth=1', '--no-tags', '--no-recurse-submodules', 'origin', `+${source}:${FETCHED}`]);
    return (await this.#git(['rev-parse', '--verify', `${FETCHED}^{commit}`])).trim();
  }

  /** Refuses `commit` when its files are over the limit; resolves with their size in bytes. */
  async checkSize(commit: string): Promise<number> {
    const bytes = (await this.#tree(commit)).reduce((sum, entry) => sum + (entry.type === 'blob' ? entry.size : 0), 0);
    if (bytes > this.#o.maxBytes) {
      throw new GitError('too_large', `the commit ${commit.slice(0, 12)} holds ${formatBytes(bytes)} of files, over CORPUS_GIT_MAX_MB (${formatBytes(this.#o.maxBytes)}); not checked out`);
    }
    return bytes;
  }

  /** Replaces the files with `commit`'s (any history: a force-push converges) and takes out what is not served. */
  async checkout(commit: string): Promise<CheckoutReport> {
    const bytes = await this.checkSize(commit);
    await this.#git(['checkout', '-q', '--force', '--detach', commit]);
    await this.#git(['clean', '-q', '-ffdx']);
    return { commit, bytes, ...(await this.prune(commit)) };
  }

  /** Takes symbolic links, submodules and LFS pointers out of the files (again, after a restart). */
  async prune(commit: string): Promise<Omit<CheckoutReport, 'commit' | 'bytes'>> {
    const symlinks: string[] = [];
    const submodules: string[] = [];
    const lfsPointers: string[] = [];
    for (const entry of await this.#tree(commit)) {
      const path = join(this.#o.dir, entry.path);
      if (entry.mode === '120000') {
        symlinks.push(entry.path);
        await unlink(path).catch(() => undefined);
      } else if (entry.type === 'commit') {
        submodules.push(entry.path);
        await rm(path, { recursive: true, force: true });
      } else if (entry.type === 'blob' && entry.size <= LFS_POINTER_MAX_BYTES && (await isLfsPointer(path))) {
        lfsPointers.push(entry.path);
        await unlink(path).catch(() => undefined);
      }
    }
    return { symlinks, submodules, lfsPointers };
  }

  async #tree(commit: string): Promise<TreeEntry[]> {
    const out = await this.#git(['ls-tree', '-r', '-l', '-z', commit]);
    const entries: TreeEntry[] = [];
    for (const record of out.split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [mode = '', type = '', , size = '-'] = record.slice(0, tab).split(/ +/);
      entries.push({ mode, type, size: size === '-' ? 0 : Number(size), path: record.slice(tab + 1) });
    }
    return entries;
  }
}

async function isLfsPointer(path: string): Promise<boolean> {
  try {
    if (!(await lstat(path)).isFile()) return false;
    const file = await open(path, 'r');
    try {
      const head = Buffer.alloc(LFS_SIGNATURE.length);
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      return head.toString('utf8', 0, bytesRead) === LFS_SIGNATURE;
    } finally {
      await file.close();
    }
  } catch {
    return false;
  }
}
