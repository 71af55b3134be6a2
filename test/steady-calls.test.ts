// The call stream the reload and replica tests stand on: if it spun on a client that fails at once,
// a broken run would hang instead of failing; if it stopped early, "zero failures" would mean little.
import { describe, expect, it } from 'vitest';
import { startSteadyCalls } from './support/steady-calls.js';

describe('startSteadyCalls', () => {
  it('keeps calling until stopped, and waits for the calls in flight', async () => {
    let finished = 0;
    const stream = startSteadyCalls(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        finished += 1;
      },
      { callers: 2 },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await stream.stop();
    expect(stream.calls).toBeGreaterThan(4);
    expect(stream.calls).toBe(finished);
    expect(stream.failures).toEqual([]);
  });

  it('stops by itself after 50 failures of a call that fails without I/O, and lets timers run meanwhile', async () => {
    let timerRan = false;
    setTimeout(() => {
      timerRan = true;
    }, 0);
    const stream = startSteadyCalls(() => Promise.reject(new Error('client closed')));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(timerRan).toBe(true);
    expect(stream.calls).toBe(50);
    expect(stream.failures).toHaveLength(50);
    expect(stream.failures[49]).toMatch(/^call 49 at \d{4}-\d\d-\d\dT[\d:.]+Z: Error: client closed$/);
    await stream.stop();
  });
});
