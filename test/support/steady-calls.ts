// A steady stream of calls kept up while a test restarts or reloads a server under it: each caller
// makes one call after another until stopped, and every failure is kept to be shown by the test.

/** A failure count at which the stream stops by itself: enough to read what went wrong. */
const MAX_FAILURES = 50;

export interface SteadyCallsOptions {
  /** Callers making calls at once (each waits for its call before the next). Default 1. */
  callers?: number;
}

export interface SteadyCalls {
  /** Calls finished so far, failed ones included. */
  readonly calls: number;
  /** `call <n> at <ISO time>: <error>` for each call that threw, in the order they failed. */
  readonly failures: readonly string[];
  /** Stops the stream and waits for the calls in flight. */
  stop(): Promise<void>;
}

/**
 * Starts calling `call` (which throws on a failed call) and keeps on until `stop()`, or until
 * 50 calls have failed.
 */
export function startSteadyCalls(call: () => Promise<unknown>, options: SteadyCallsOptions = {}): SteadyCalls {
  const { callers = 1 } = options;
  let calls = 0;
  let running = true;
  const failures: string[] = [];
  const caller = async (): Promise<void> => {
    while (running) {
      try {
        await call();
      } catch (error) {
        failures.push(`call ${calls} at ${new Date().toISOString()}: ${String(error)}`);
        if (failures.length >= MAX_FAILURES) running = false;
      }
      calls += 1;
      // A client that has given up rejects every call at once, without I/O: without a turn of the
      // event loop here the loop would spin on microtasks, starve every timer (the test's own
      // timeout included) and hang the run.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const all = Promise.all(Array.from({ length: callers }, caller));
  return {
    get calls() {
      return calls;
    },
    failures,
    async stop() {
      running = false;
      await all;
    },
  };
}
