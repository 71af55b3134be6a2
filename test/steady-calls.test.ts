// The call stream the reload and replica tests stand on: if it spun on a client that fails at once,
// a broken run would hang instead of failing; if it stopped early, "zero failures" would mean little.
import { describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { startSteadyCalls } from './support/steady-calls.js';

describe('startSteadyCalls', () => {
  it('keeps calling until stopped, and waits for the calls in flight', async () => {
    let finished = 0;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    let waiting = 0;
    const stream = startSteadyCalls(
      async () => {
        await new Promise((resolve) => setImmediate(resolve));
        if (holding) {
          waiting += 1;
          await held;
        }
        finished += 1;
      },
      { callers: 2 },
    );
    await eventually(() => stream.calls > 4, { what: 'five calls' });
    // Both callers end up inside a call that has not finished: stop() must wait for them.
    holding = true;
    await eventually(() => waiting === 2, { what: 'both callers inside a held call' });
    let stopped = false;
    const stopping = stream.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
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
    await eventually(() => stream.failures.length === 50, { what: '50 failures' });
    // Stopped by itself: another turn of the event loop adds no call.
    await new Promise((resolve) => setImmediate(resolve));
    expect(timerRan).toBe(true);
    expect(stream.calls).toBe(50);
    expect(stream.failures).toHaveLength(50);
    expect(stream.failures[49]).toMatch(/^call 49 at \d{4}-\d\d-\d\dT[\d:.]+Z: Error: client closed$/);
    await stream.stop();
  });
});
