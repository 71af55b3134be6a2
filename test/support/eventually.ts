// The one way a test waits for something to happen: it polls a condition until it holds, and fails
// naming what it waited for once the deadline passes. The deadline is generous on purpose (a busy
// two-core machine is slow); it bounds a hang, it never measures anything.
import { vi } from 'vitest';

export interface EventuallyOptions {
  /** What is awaited, for the failure message. Default "the condition". */
  what?: string;
  /** Milliseconds before giving up. Default 10000. */
  timeoutMs?: number;
  /** Milliseconds between checks. Default 20. */
  intervalMs?: number;
}

/** Resolves once `check()` is true; rejects with "timed out waiting for <what>" after `timeoutMs`. */
export async function eventually(check: () => boolean | Promise<boolean>, options: EventuallyOptions = {}): Promise<void> {
  const { what = 'the condition', timeoutMs = 10_000, intervalMs = 20 } = options;
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    },
    { timeout: timeoutMs, interval: intervalMs },
  );
}
