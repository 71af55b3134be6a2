// Keeps CORPUS_DIR on the newest commit of one ref. A fetch runs every `pollSeconds`, or at once when
// `syncNow` is called (the push webhook); fetches never overlap, and one asked for while another runs
// follows it. A fetched commit that differs from the one served is handed to `reload`, the existing
// reload path: the index service checks it out (`checkoutFetched`, between two builds, so no build
// reads half a checkout) and swaps the new index in whole. Any failure keeps the last good commit
// serving, is reported in `status()` and the log, and is retried after a wait that doubles from one
// poll interval up to eight.
import type { Logger } from '../logger.js';
import { GIT_ERROR_SUMMARIES, GitError, gitRunner } from './git-command.js';
import type { GitErrorCode, GitRunner } from './git-command.js';
import { WorkingCopy } from './working-copy.js';
import type { CheckoutReport } from './working-copy.js';

/** The longest wait after failures, in poll intervals. */
export const MAX_BACKOFF_POLLS = 8;

export interface GitSourceError {
  code: GitErrorCode | string;
  /** Safe to show on an open route: names no path and quotes no git output. */
  summary: string;
  /** When it happened, ms since the epoch. */
  at: number;
}

export interface GitSourceStatus {
  /** The commit whose index is served. */
  commit: string | undefined;
  /** When the last fetch succeeded, ms since the epoch. */
  fetchedAt: number | undefined;
  /** The commit that fetch found. */
  fetchedCommit: string | undefined;
  /** The newest failure, cleared by the next success. */
  error: GitSourceError | undefined;
  /** Failures in a row. */
  failures: number;
}

export interface GitSourceOptions {
  dir: string;
  url: string;
  ref: string | undefined;
  token: string | undefined;
  pollSeconds: number;
  maxBytes: number;
  logger: Logger;
  /** Asks for an index of the fetched commit; resolves with whether it is served now. */
  reload: (trigger: string) => Promise<{ outcome: 'ok' | 'failed'; code?: string }>;
  /** The environment git runs in (PATH, HOME, SSH settings); the token is added to it. */
  baseEnv: NodeJS.ProcessEnv;
  /** Default: the real git binary (tests may wrap it). */
  git?: GitRunner;
}

export class GitSource {
  readonly #o: GitSourceOptions;
  readonly #copy: WorkingCopy;
  #status: GitSourceStatus = { commit: undefined, fetchedAt: undefined, fetchedCommit: undefined, error: undefined, failures: 0 };
  /** The commit the working copy holds. */
  #head: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again: string | undefined;
  #stopped = false;
  readonly #listeners = new Set<(status: GitSourceStatus) => void>();

  constructor(options: GitSourceOptions) {
    this.#o = options;
    const git = options.git ?? gitRunner({ token: options.token, safeDirectory: options.dir, baseEnv: options.baseEnv });
    this.#copy = new WorkingCopy({ dir: options.dir, url: options.url, ref: options.ref, maxBytes: options.maxBytes, git });
  }

  status(): GitSourceStatus {
    return { ...this.#status };
  }

  /** Told after every fetch and every served commit. Listeners must not throw. */
  onChange(listener: (status: GitSourceStatus) => void): void {
    this.#listeners.add(listener);
  }

  /**
   * Makes or checks the working copy; resolves with the commit it already holds (a restart on a kept
   * volume: served at once, then fetched). Rejects with a GitError when CORPUS_DIR is someone else's.
   */
  async prepare(): Promise<string | undefined> {
    this.#head = await this.#copy.prepare();
    if (this.#head !== undefined) this.#report(await this.#copy.prune(this.#head), 'kept');
    return this.#head;
  }

  /** Starts fetching: at once, then every poll interval. */
  start(): void {
    this.syncNow('start');
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** A fetch as soon as possible: now, or right after the one under way. */
  syncNow(trigger: string): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#running !== undefined) {
      this.#again = trigger;
      return this.#running;
    }
    clearTimeout(this.#timer);
    this.#running = this.#sync(trigger).finally(() => {
      this.#running = undefined;
      const again = this.#again;
      this.#again = undefined;
      if (again !== undefined) void this.syncNow(again);
      else this.#schedule();
    });
    return this.#running;
  }

  /**
   * Checks out the fetched commit if the working copy holds another; called by the index service's
   * run, so a checkout never happens under a build. Resolves with the commit the files are at.
   */
  async checkoutFetched(): Promise<string | undefined> {
    const fetched = this.#status.fetchedCommit;
    if (fetched !== undefined && fetched !== this.#head) {
      const report = await this.#copy.checkout(fetched);
      this.#head = fetched;
      this.#report(report, 'checked out');
    }
    return this.#head;
  }

  /** The index of `commit` is served from now on. */
  served(commit: string | undefined): void {
    if (commit === undefined || commit === this.#status.commit) return;
    this.#status = { ...this.#status, commit };
    this.#emit();
  }

  #schedule(): void {
    if (this.#stopped) return;
    const polls = Math.min(2 ** Math.max(0, this.#status.failures - 1), MAX_BACKOFF_POLLS);
    this.#timer = setTimeout(() => void this.syncNow('poll'), this.#o.pollSeconds * 1000 * polls);
    this.#timer.unref();
  }

  async #sync(trigger: string): Promise<void> {
    const { logger } = this.#o;
    let fetched: string;
    try {
      fetched = await this.#copy.fetch();
      await this.#copy.checkSize(fetched);
    } catch (error) {
      this.#failed(error, trigger);
      return;
    }
    const changed = fetched !== this.#status.commit;
    this.#status = { ...this.#status, fetchedAt: Date.now(), fetchedCommit: fetched };
    if (!changed) {
      this.#succeeded();
      return;
    }
    logger.info({ trigger, commit: fetched, served: this.#status.commit }, 'git source: new commit fetched; reloading the index');
    const record = await this.#o.reload('git');
    if (record.outcome === 'ok') this.#succeeded();
    else this.#failed(new GitError('failed', 'the index of the fetched commit could not be built'), trigger, record.code);
  }

  #succeeded(): void {
    if (this.#status.error !== undefined) this.#o.logger.info({ commit: this.#status.commit }, 'git source: fetching again');
    this.#status = { ...this.#status, error: undefined, failures: 0 };
    this.#emit();
  }

  #failed(error: unknown, trigger: string, buildCode?: string): void {
    const code = buildCode ?? (error instanceof GitError ? error.code : 'failed');
    const message = error instanceof Error ? error.message : String(error);
    const summary = code === 'too_large' && error instanceof GitError ? message : code in GIT_ERROR_SUMMARIES ? GIT_ERROR_SUMMARIES[code as GitErrorCode] : `the index could not be built (${code})`;
    const failures = this.#status.failures + 1;
    this.#status = { ...this.#status, error: { code, summary, at: Date.now() }, failures };
    const waitPolls = Math.min(2 ** (failures - 1), MAX_BACKOFF_POLLS);
    this.#o.logger.warn(
      { trigger, code, reason: message, failures, retry_in_seconds: this.#o.pollSeconds * waitPolls, serving: this.#status.commit ?? null },
      this.#status.commit === undefined ? 'git source: fetch failed; nothing served yet' : 'git source: fetch failed; the last good commit keeps serving',
    );
    this.#emit();
  }

  #report(report: Omit<CheckoutReport, 'commit' | 'bytes'> & { commit?: string; bytes?: number }, what: string): void {
    const { symlinks, submodules, lfsPointers } = report;
    const cap = (paths: string[]) => paths.slice(0, 200);
    this.#o.logger.info({ commit: report.commit ?? this.#head, bytes: report.bytes }, `git source: commit ${what}`);
    if (symlinks.length > 0) this.#o.logger.info({ paths: cap(symlinks), count: symlinks.length }, 'git source: symbolic links are not followed; skipped');
    if (submodules.length > 0) this.#o.logger.info({ paths: cap(submodules), count: submodules.length }, 'git source: submodules are not fetched; skipped');
    if (lfsPointers.length > 0) this.#o.logger.info({ paths: cap(lfsPointers), count: lfsPointers.length }, 'git source: Git LFS pointers (content not in the repository); skipped');
  }

  #emit(): void {
    const status = this.status();
    for (const listener of this.#listeners) listener(status);
  }
}
