// Threads that run part of a vector scan beside the calling thread. The scan reads every stored row
// once per query, and one core streams only so many bytes a second (about 8 GB/s here, the limit of
// an int8 scan over 1536-dimension vectors: docs/BENCHMARKS.md), so a second core halves its time.
//
// Each thread instantiates the same WebAssembly module over the same shared memory, so rows are never
// copied. The caller hands a thread one call's five arguments through a shared control block, runs its
// own part, and waits (Atomics.wait, a few microseconds when the thread is done first) for the threads:
// the scan stays synchronous, as its callers expect. A thread that has not started yet, has died, or
// does not answer in time is simply not used; its part then runs on the calling thread. Never a
// wrong or missing score.
import { Worker } from 'node:worker_threads';

/** Int32 slots per thread in the control block: one 64-byte cache line, so threads never share one. */
const SLOT = 16;
const [SEQ, DONE, ARGS, READY, STOP] = [0, 1, 2, 7, 8];
const ARG_COUNT = 5;
/** How long the caller waits for a thread's part before running it itself and retiring that thread. */
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

export type KernelCall = (a: number, b: number, c: number, d: number, e: number) => void;

export class ScanThreads {
  readonly #control: Int32Array;
  readonly #workers: Worker[];
  /** Threads retired after an error, an exit or a late answer. */
  readonly #retired: boolean[];
  readonly #answerLimitMs: number;
  #seq = 0;

  /**
   * Starts `count` threads that each call export `exportName` of `module` over `memory` (a shared
   * WebAssembly memory). They start in the background; `ready` counts those that can take work.
   * A thread that has not finished its part `answerLimitMs` after the caller finished its own is retired.
   */
  constructor(module: object, memory: object, exportName: string, count: number, { answerLimitMs = ANSWER_LIMIT_MS } = {}) {
    this.#answerLimitMs = answerLimitMs;
    const control = new SharedArrayBuffer(count * SLOT * 4);
    this.#control = new Int32Array(control);
    this.#retired = new Array<boolean>(count).fill(false);
    this.#workers = Array.from({ length: count }, (_, slot) => {
      const worker = new Worker(THREAD_SOURCE, {
        eval: true,
        workerData: { module, memory, control, slot, exportName },
        // Neither the parent's loader nor its heap flags: the thread runs a dozen lines of JavaScript.
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
      });
      const retire = (): void => this.#retire(slot);
      worker.on('error', retire);
      worker.on('exit', retire);
      worker.unref();
      return worker;
    });
  }

  /** How many threads can take a part now. */
  get ready(): number {
    let ready = 0;
    for (let slot = 0; slot < this.#workers.length; slot += 1) if (this.#usable(slot)) ready += 1;
    return ready;
  }

  /**
   * Runs `calls[0]` with `local` on this thread and every other call on a ready thread, and returns
   * when all are done. There must be no more calls than `ready + 1`; a call no thread takes runs here.
   */
  run(calls: ReadonlyArray<readonly number[]>, local: KernelCall): void {
    const c = this.#control;
    this.#seq = (this.#seq + 1) & 0x3fffffff || 1;
    const seq = this.#seq;
    const taken: number[] = [];
    const leftover: Array<readonly number[]> = [];
    let slot = 0;
    for (const call of calls.slice(1)) {
      while (slot < this.#workers.length && !this.#usable(slot)) slot += 1;
      if (slot === this.#workers.length) {
        leftover.push(call);
        continue;
      }
      const base = slot * SLOT;
      for (let i = 0; i < ARG_COUNT; i += 1) c[base + ARGS + i] = call[i] as number;
      Atomics.store(c, base + SEQ, seq);
      Atomics.notify(c, base + SEQ);
      taken.push(slot);
      slot += 1;
    }
    const first = calls[0];
    if (first !== undefined) call(local, first);
    for (const rest of leftover) call(local, rest);
    taken.forEach((s, i) => {
      if (this.#await(s, seq)) return;
      this.#retire(s);
      call(local, calls[i + 1] as readonly number[]);
    });
  }

  /** Stops the threads. Later `run`s do all their calls on the calling thread. */
  close(): void {
    for (let slot = 0; slot < this.#workers.length; slot += 1) this.#retire(slot);
  }

  #usable(slot: number): boolean {
    return !this.#retired[slot] && Atomics.load(this.#control, slot * SLOT + READY) === 1;
  }

  /** Whether the thread in `slot` finished job `seq` within the answer limit. */
  #await(slot: number, seq: number): boolean {
    const c = this.#control;
    const at = slot * SLOT + DONE;
    const deadline = performance.now() + this.#answerLimitMs;
    for (;;) {
      const done = Atomics.load(c, at);
      if (done === seq) return true;
      const left = deadline - performance.now();
      if (left <= 0 || this.#retired[slot]) return false;
      Atomics.wait(c, at, done, left);
    }
  }

  #retire(slot: number): void {
    if (this.#retired[slot]) return;
    this.#retired[slot] = true;
    const c = this.#control;
    Atomics.store(c, slot * SLOT + STOP, 1);
    Atomics.add(c, slot * SLOT + SEQ, 1);
    Atomics.notify(c, slot * SLOT + SEQ);
    void this.#workers[slot]?.terminate();
  }
}

function call(fn: KernelCall, args: readonly number[]): void {
  fn(args[0] as number, args[1] as number, args[2] as number, args[3] as number, args[4] as number);
}
