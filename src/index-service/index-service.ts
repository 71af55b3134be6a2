// Owns "the current index": produces the first one at boot and the next one on every reload (each in
// a child process that uses the snapshot file when it matches, unless the server's `run` says
// otherwise: main.ts checks the boot's snapshot in a worker thread, produce-index.ts), decodes it on
// the main thread in short steps, and swaps it into the holder in one assignment. Tool calls read the
// holder once per call, so a call that started on generation n finishes on it. A reload that fails
// leaves the serving index alone and is reported in `status`.
import { skippedCounts } from '../corpus/document.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import { decodeIndexSnapshotSteps } from '../search/index-snapshot.js';
import type { SnapshotSource } from '../search/index-snapshot.js';
import type { SearchIndex } from '../search/search-index.js';
import type { BuildProgress } from './build-progress.js';
import type { IndexJob, IndexJobResult, SnapshotMeta } from './index-job-spec.js';
import { runInChild } from './run-in-child.js';
import type { SnapshotRefusalCode } from './snapshot-file.js';

/** Where a new index goes: the holder in mcp/, seen only through what the service needs of it. */
export interface IndexSink {
  set(corpus: { index: SearchIndex; skipped: SnapshotMeta['skipped'] }): { generation: number };
  fail(error: Error): void;
}

/** The trigger of the reload that replaces an index whose snapshot file was damaged while it served. */
export const SNAPSHOT_DAMAGED = 'snapshot_damaged';

export const RELOAD_OUTCOMES = ['ok', 'failed'] as const;
export type ReloadOutcome = (typeof RELOAD_OUTCOMES)[number];

/** The newest reload (or the boot), for /readyz and the metrics. */
export interface ReloadRecord {
  /** What asked for it: 'boot', 'SIGHUP', 'watch', … */
  trigger: string;
  outcome: ReloadOutcome;
  /** When it finished, ms since the epoch. */
  finishedAt: number;
  seconds: number;
  /** 'snapshot' or 'build' when it succeeded. */
  origin?: IndexJobResult['origin'];
  /** Why it failed, or why the snapshot file was not used (may name paths: for the log, not for clients). */
  reason?: string;
  /** Why the snapshot file was not used, when one is configured and it was not. */
  snapshotRefused?: SnapshotRefusalCode;
  /** Machine-readable cause of a failure, e.g. the corpus loader's `no_documents`; 'build_failed' otherwise. */
  code?: string;
  /** The generation serving after it. */
  generation: number;
}

export interface IndexStatus {
  generation: number;
  /** True while a build or reload is under way. */
  reloading: boolean;
  /** How far the build or reload under way has got; set only while `reloading`. */
  progress?: BuildProgress;
  last: ReloadRecord | undefined;
  /** Counts of finished reloads by outcome, boot included. */
  counts: Record<ReloadOutcome, number>;
}

export interface IndexServiceOptions {
  /** Where each produced index goes: the IndexHolder (src/mcp/index-holder.ts), through its two-method interface. */
  holder: IndexSink;
  job: IndexJob;
  logger: Logger;
  /**
   * Runs a job, telling `onProgress` how far it has got; default a fresh child process per job, which
   * uses the snapshot file when it matches.
   */
  run?: (job: IndexJob, onProgress: (progress: BuildProgress) => void) => Promise<IndexJobResult>;
}

export class IndexService {
  readonly #holder: IndexSink;
  readonly #job: IndexJob;
  readonly #logger: Logger;
  readonly #run: NonNullable<IndexServiceOptions['run']>;
  #generation = 0;
  #progress: BuildProgress | undefined;
  #running: Promise<ReloadRecord> | undefined;
  #queued: Promise<ReloadRecord> | undefined;
  #last: ReloadRecord | undefined;
  readonly #counts: Record<ReloadOutcome, number> = { ok: 0, failed: 0 };
  readonly #listeners = new Set<(record: ReloadRecord) => void>();

  constructor(options: IndexServiceOptions) {
    this.#holder = options.holder;
    this.#job = options.job;
    this.#logger = options.logger;
    this.#run = options.run ?? ((job, onProgress) => runInChild(job, { onProgress }));
  }

  status(): IndexStatus {
    // #progress is set for the whole of a run, from its first synchronous step (before #running is).
    const progress = this.#progress;
    const reloading = this.#running !== undefined || progress !== undefined;
    return { generation: this.#generation, reloading, ...(progress ? { progress } : {}), last: this.#last, counts: { ...this.#counts } };
  }

  /** Called after every finished reload, boot included. Listeners must not throw. */
  onReload(listener: (record: ReloadRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Produces the first index. When it fails the holder is failed too (tool calls get an error) and
   * the returned promise rejects: the caller decides whether the process can go on.
   */
  async start(): Promise<ReloadRecord> {
    const record = await this.reload('boot');
    if (record.outcome === 'failed') {
      const error = new Error(record.reason ?? 'the index could not be built');
      this.#holder.fail(error);
      throw error;
    }
    return record;
  }

  /**
   * Builds the next index and swaps it in. While one reload runs, further requests are folded into
   * a single follow-up run that starts when it ends (changes made meanwhile are then picked up).
   * Never rejects: the outcome is in the record.
   */
  reload(trigger: string): Promise<ReloadRecord> {
    if (this.#running === undefined) {
      this.#running = this.#reloadOnce(trigger).finally(() => {
        this.#running = undefined;
      });
      return this.#running;
    }
    this.#queued ??= this.#running.then(() => {
      this.#queued = undefined;
      return this.reload(trigger);
    });
    return this.#queued;
  }

  /**
   * The snapshot file that generation `generation` reads its texts from was changed or damaged after
   * it was checked: every read from it now fails (the tool call says so), so the index is produced
   * again, by the build process, which refuses the file and rebuilds from the corpus; that index is
   * held in memory. Nothing to do when a newer generation already serves.
   */
  #damaged(generation: number, error: Error): void {
    if (generation !== this.#generation) return;
    this.#logger.error({ generation, reason: error.message, code: 'snapshot_damaged' }, 'index snapshot file damaged while serving; reloading the index');
    void this.reload(SNAPSHOT_DAMAGED);
  }

  async #reloadOnce(trigger: string): Promise<ReloadRecord> {
    const started = performance.now();
    let record: ReloadRecord;
    this.#progress = { phase: 'starting', done: 0, total: 0 };
    try {
      const result = await this.#run(this.#job, (progress) => {
        this.#progress = progress;
      });
      this.#progress = { phase: 'decode', done: 0, total: 0 };
      const decodeStarted = performance.now();
      const decodeTimings: Record<string, number> = {};
      const { index, header } = await decodeYielding(result.source ?? result.bytes, decodeTimings);
      const meta = (header.meta ?? { skipped: [], warnings: [] }) as SnapshotMeta;
      const { generation } = this.#holder.set({ index, skipped: meta.skipped });
      this.#generation = generation;
      result.source?.onDamage((error) => this.#damaged(generation, error));
      // `bytesAtMs` and `readyAtMs`: when the bytes arrived and the index was served, in ms since the
      // process started (performance.timeOrigin), so a boot profile can place them.
      const timings = {
        ...result.timings,
        ...decodeTimings,
        decodeMs: Math.round(performance.now() - decodeStarted),
        bytesAtMs: Math.round(decodeStarted),
        readyAtMs: Math.round(performance.now()),
      };
      if (result.refused !== undefined && result.refused.code !== 'missing') {
        this.#logger.warn({ snapshot_refused: result.refused.code, reason: result.refused.reason }, 'index snapshot not used; rebuilt from the corpus');
      }
      if (result.writeError !== undefined) this.#logger.warn({ reason: result.writeError }, 'index snapshot not written; serving the build anyway');
      if (trigger === 'boot') for (const warning of meta.warnings) this.#logger.warn({ path: warning.path }, warning.message);
      // Clients never see these names (list_documents leaves them out); the operator does.
      const notDocuments = meta.skipped.filter((s) => s.operatorOnly);
      if (trigger === 'boot' && notDocuments.length > 0) {
        this.#logger.info(
          { skipped: notDocuments.slice(0, 200).map((s) => `${s.path}: ${s.reason}`), count: notDocuments.length },
          'entries in the corpus folder that are not documents',
        );
      }
      record = {
        trigger,
        outcome: 'ok',
        finishedAt: Date.now(),
        seconds: (performance.now() - started) / 1000,
        origin: result.origin,
        ...(result.refused ? { reason: result.refused.reason, snapshotRefused: result.refused.code } : {}),
        generation,
      };
      const counts = skippedCounts(meta.skipped);
      this.#logger.info(
        { trigger, generation, origin: result.origin, seconds: round(record.seconds), ...index.stats, skipped: counts.skipped, not_documents: counts.notDocuments, timings_ms: timings },
        trigger === 'boot' ? 'index built; ready' : 'index reloaded',
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      record = {
        trigger,
        outcome: 'failed',
        finishedAt: Date.now(),
        seconds: (performance.now() - started) / 1000,
        reason,
        code: typeof code === 'string' ? code : 'build_failed',
        generation: this.#generation,
      };
      this.#logger.error(
        { trigger, generation: this.#generation, reason, code: record.code },
        this.#generation > 0 ? 'index reload failed; the previous index keeps serving' : 'index build failed',
      );
    }
    this.#progress = undefined;
    this.#last = record;
    this.#counts[record.outcome] += 1;
    for (const listener of this.#listeners) listener(record);
    return record;
  }
}

/** Decodes on this thread, yielding to the event loop between steps so requests keep flowing. */
async function decodeYielding(bytes: Uint8Array | SnapshotSource, timings: Record<string, number>) {
  const steps = decodeIndexSnapshotSteps(bytes, timings);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}

const round = (seconds: number): number => Math.round(seconds * 1000) / 1000;
