// Threads that run part of a vector scan beside the calling thread. The scan reads every stored row
// once per query, and one core streams only so many bytes a second (the limit of an int8 scan over
// 1536-dimension vectors: docs/BENCHMARKS.md), so a second core shortens it.
//
// Each thread instantiates the same WebAssembly module over the same shared memory, so rows are never
// copied. The caller hands a thread one part's five kernel arguments through a shared control block,
// runs its own part, and waits (Atomics.wait) for the threads: the scan stays synchronous, as its
// callers expect. A thread writes its scores into a scratch area of its own, which the caller copies
// into place only once the thread has said it finished that very job: a thread that answers late, and
// is retired for it, may go on writing, but only where nobody reads. So a thread that has not started
// yet, has died, or is late never costs a wrong or missing score; its part runs on the calling thread.
import { Worker } from 'node:worker_threads';

/** Int32 slots per thread in the control block: one 64-byte cache line, so threads never share one. */
const SLOT = 16;
const [SEQ, DONE, ARGS, READY, STOP] = [0, 1, 2, 7, 8];
const ARG_COUNT = 5;
/** How long the caller waits, once its own parts are done, before running the missing parts itself. */
const ANSWER_LIMIT_MS = 2000;

// The thread's whole program, plain JavaScript so that it runs the same from sources and compiled,
// with no loader: wait for a job, run it, say so.
const THREAD_SOURCE = `
const { workerData } = require('node:worker_threads');
const { module, memory, control, slot, exportName } = workerData;
const c = new Int32Array(control, slot * ${SLOT * 4}, ${SLOT});
const run = new WebAssembly.Instance(module, { env: { memory } }).exports[exportName];
// Read before saying ready: a job posted right after that must count as new.
let seen = Atomics.load(c, ${SEQ});
Atomics.store(c, ${READY}, 1);
for (;;) {
  Atomics.wait(c, ${SEQ}, seen);
  if (Atomics.load(c, ${STOP}) === 1) break;
  seen = Atomics.load(c, ${SEQ});
  run(c[${ARGS}], c[${ARGS + 1}], c[${ARGS + 2}], c[${ARGS + 3}], c[${ARGS + 4}]);
  Atomics.store(c, ${DONE}, seen);
  Atomics.notify(c, ${DONE});
}
`;

/** One scan, cut into parts of rows `[from, to)`, as the kernel that owns the memory knows how to run it. */
export interface SplitScan {
  /** Scores rows `[from, to)` on the calling thread, in place. */
  local(from: number, to: number): void;
  /** The five kernel arguments that make helper `slot` score rows `[from, to)` into its own scratch area. */
  helperArgs(slot: number, from: number, to: number): readonly number[];
  /** Copies helper `slot`'s scores of rows `[from, to)` from its scratch area into place. */
  collect(slot: number, from: number, to: number): void;
}

export interface ScanThreadsOptions {
  /** Default 2000 ms. */
  answerLimitMs?: number;
  /** Told, once per thread, why it will no longer be used (the operator's log). Not after `close`. */
  onRetire?: (reason: string) => void;
}

export class ScanThreads {
  readonly #control: Int32Array;
  readonly #workers: Worker[];
  /** Threads retired after an error, an exit, a late answer or `close`. */
  readonly #retired: boolean[];
  readonly #answerLimitMs: number;
  readonly #onRetire: ((reason: string) => void) | undefined;
  #seq = 0;
  #alive = 0;
  #helperParts = 0;
  #closed = false;

  /**
   * Starts `count` threads that each call export `exportName` of `module` over `memory` (a shared
   * WebAssembly memory). They start in the background; `ready` counts those that can take work.
   * Throws (having stopped any it started) when a thread cannot be created.
   */
  constructor(module: object, memory: object, exportName: string, count: number, options: ScanThreadsOptions = {}) {
    this.#answerLimitMs = options.answerLimitMs ?? ANSWER_LIMIT_MS;
    this.#onRetire = options.onRetire;
    const control = new SharedArrayBuffer(count * SLOT * 4);
    this.#control = new Int32Array(control);
    this.#retired = new Array<boolean>(count).fill(false);
    this.#workers = [];
    try {
      for (let slot = 0; slot < count; slot += 1) {
        const worker = new Worker(THREAD_SOURCE, {
          eval: true,
          workerData: { module, memory, control, slot, exportName },
          // Neither the parent's loader nor its heap flags: the thread runs a dozen lines of JavaScript.
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
        });
        this.#alive += 1;
        worker.on('error', (error: Error) => this.#retire(slot, `scan thread ${slot} failed: ${error.message}`));
        worker.on('exit', () => {
          this.#alive -= 1;
          this.#retire(slot, `scan thread ${slot} exited`);
        });
        worker.unref();
        this.#workers.push(worker);
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** How many threads can take a part now. */
  get ready(): number {
    let ready = 0;
    for (let slot = 0; slot < this.#workers.length; slot += 1) if (this.#usable(slot)) ready += 1;
    return ready;
  }

  /** Threads not yet exited (a retired thread exits shortly after). */
  get alive(): number {
    return this.#alive;
  }

  /** Parts of scans that threads have run so far. */
  get helperParts(): number {
    return this.#helperParts;
  }

  /**
   * Runs `parts[0]` on this thread and every other part on a ready thread (or here, when none is
   * ready), and returns when every part's scores are in place.
   */
  run(parts: ReadonlyArray<readonly [number, number]>, scan: SplitScan): void {
    const c = this.#control;
    this.#seq = (this.#seq + 1) & 0x3fffffff || 1;
    const seq = this.#seq;
    const taken: Array<{ slot: number; from: number; to: number }> = [];
    const here: Array<readonly [number, number]> = parts.slice(0, 1);
    let slot = 0;
    for (const [from, to] of parts.slice(1)) {
      while (slot < this.#workers.length && !this.#usable(slot)) slot += 1;
      if (slot === this.#workers.length) {
        here.push([from, to]);
        continue;
      }
      const args = scan.helperArgs(slot, from, to);
      const base = slot * SLOT;
      for (let i = 0; i < ARG_COUNT; i += 1) c[base + ARGS + i] = args[i] as number;
      Atomics.store(c, base + SEQ, seq);
      Atomics.notify(c, base + SEQ);
      taken.push({ slot, from, to });
      slot += 1;
    }
    for (const [from, to] of here) scan.local(from, to);
    // One limit for the whole run, counted from here: never helpers × the limit.
    const deadline = performance.now() + this.#answerLimitMs;
    for (const part of taken) {
      if (this.#finished(part.slot, seq, deadline)) {
        scan.collect(part.slot, part.from, part.to);
        this.#helperParts += 1;
      } else {
        this.#retire(part.slot, `scan thread ${part.slot} did not answer within ${this.#answerLimitMs} ms; its part ran on the calling thread`);
        scan.local(part.from, part.to);
      }
    }
  }

  /** Stops the threads. Later `run`s do all their parts on the calling thread. */
  close(): void {
    this.#closed = true;
    for (let slot = 0; slot < this.#workers.length; slot += 1) this.#retire(slot, 'closed');
  }

  #usable(slot: number): boolean {
    return !this.#retired[slot] && Atomics.load(this.#control, slot * SLOT + READY) === 1;
  }

  /**
   * Whether the thread in `slot` finished job `seq` by `deadline`. (A thread that died meanwhile is
   * only known once this thread's event loop runs again, so it costs the wait.)
   */
  #finished(slot: number, seq: number, deadline: number): boolean {
    const c = this.#control;
    const at = slot * SLOT + DONE;
    for (;;) {
      const done = Atomics.load(c, at);
      if (done === seq) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(c, at, done, left);
    }
  }

  #retire(slot: number, reason: string): void {
    if (this.#retired[slot]) return;
    this.#retired[slot] = true;
    const c = this.#control;
    Atomics.store(c, slot * SLOT + STOP, 1);
    Atomics.add(c, slot * SLOT + SEQ, 1);
    Atomics.notify(c, slot * SLOT + SEQ);
    void this.#workers[slot]?.terminate();
    if (!this.#closed) this.#onRetire?.(reason);
  }
}
