// The one way a test waits for something to happen: it polls a condition until it holds, and fails
// naming what it waited for once the deadline passes. The deadline is generous on purpose (a busy
// two-core machine is slow); it bounds a hang, it never measures anything. Unlike vi.waitFor, a check
// in progress is never cut short by the deadline: the last check always runs to its end, so a
// slow machine gets at least one complete try, and an exception from the check fails at once.

export interface EventuallyOptions {
  /** What is awaited, for the failure message. Default "the condition". */
  what?: string;
  /** Milliseconds after which no further check starts. Default 10000. */
  timeoutMs?: number;
  /** Milliseconds between checks. Default 20. */
  intervalMs?: number;
}

/** Resolves once `check()` is true; rejects with "timed out … waiting for <what>" past `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, options: EventuallyOptions = {}): Promise<void> {
  const { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
