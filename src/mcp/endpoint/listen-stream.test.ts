import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endWhenIdle, listenRequestId } from './listen-stream.js';

const IDLE_MS = 1000;
const encoder = new TextEncoder();
const event = (data: object) => encoder.encode(`event: message\ndata: ${JSON.stringify(data)}\n\n`);
const KEEPALIVE = encoder.encode(': keepalive\n\n');

/** An SSE response whose body the test writes to, and whose cancellation it can see. */
function sseSource() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled = vi.fn();
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: cancelled,
  });
  const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  return { response, write: (chunk: Uint8Array) => controller.enqueue(chunk), end: () => controller.close(), cancelled };
}

/** Reads the wrapped body as it comes: what has arrived so far, and whether it has ended. */
function drain(response: Response) {
  const state = { text: '', done: false };
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      state.text += decoder.decode(value, { stream: true });
    }
    state.done = true;
  })();
  return state;
}

/** Lets the streams pass what they hold (promise jobs only; no timer fires). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('endWhenIdle', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('ends a stream that carried no event for idleMs with the listen result, and cancels the source', async () => {
    const source = sseSource();
    const out = drain(endWhenIdle(source.response, { idleMs: IDLE_MS, listenId: 'listen:7' }));
    source.write(event({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged' }));
    await settle();
    await vi.advanceTimersByTimeAsync(IDLE_MS - 1);
    expect(out.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settle();
    expect(out.done).toBe(true);
    const last = out.text.trim().split('\n').at(-1)!;
    expect(JSON.parse(last.slice('data: '.length))).toEqual({
      jsonrpc: '2.0',
      id: 'listen:7',
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 'listen:7' } },
    });
    expect(source.cancelled).toHaveBeenCalledOnce();
  });

  it('counts events, not keep-alive comments, as activity', async () => {
    const source = sseSource();
    const onIdle = vi.fn();
    const out = drain(endWhenIdle(source.response, { idleMs: IDLE_MS, listenId: 1, onIdle }));
    await vi.advanceTimersByTimeAsync(IDLE_MS - 10);
    source.write(event({ jsonrpc: '2.0', method: 'notifications/resources/list_changed' }));
    await settle();
    await vi.advanceTimersByTimeAsync(IDLE_MS - 10); // past the first lifetime, within the one the event started
    expect(out.done).toBe(false);
    source.write(KEEPALIVE);
    await settle();
    await vi.advanceTimersByTimeAsync(10);
    await settle();
    expect(out.done).toBe(true);
    expect(out.text).toContain(': keepalive');
    expect(onIdle).toHaveBeenCalledOnce();
  });

  it('passes on the end of a stream that finishes by itself (the SDK\'s own graceful close), adding nothing, and stops its timer', async () => {
    const source = sseSource();
    const onIdle = vi.fn();
    const out = drain(endWhenIdle(source.response, { idleMs: IDLE_MS, listenId: 1, onIdle }));
    source.write(event({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } }));
    source.end();
    await settle();
    expect(out.done).toBe(true);
    expect(out.text.match(/^data:/gm)).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(IDLE_MS * 2);
    expect(onIdle).not.toHaveBeenCalled();
    expect(source.cancelled).not.toHaveBeenCalled();
  });

  it('returns a response that is not an SSE stream as it is', () => {
    const json = Response.json({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid params' } });
    expect(endWhenIdle(json, { idleMs: IDLE_MS, listenId: 1 })).toBe(json);
  });

  it('refuses an idle lifetime below 1 ms at once', () => {
    expect(() => endWhenIdle(sseSource().response, { idleMs: 0, listenId: 1 })).toThrow(/idleMs must be ≥ 1, got 0/);
  });
});

describe('listenRequestId', () => {
  it.each([
    [{ jsonrpc: '2.0', id: 'listen:0', method: 'subscriptions/listen', params: {} }, 'listen:0'],
    [{ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen' }, 3],
    [{ jsonrpc: '2.0', id: 3, method: 'tools/list' }, undefined],
    [{ jsonrpc: '2.0', method: 'subscriptions/listen' }, undefined],
    [[{ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen' }], undefined],
    [null, undefined],
  ])('of %j is %j', (body, id) => {
    expect(listenRequestId(body)).toBe(id);
  });
});
