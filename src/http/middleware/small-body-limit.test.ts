// At the app, without Node's HTTP stack: bodies as Fetch streams (the Node request is covered over a
// real socket by test/authorization-server-http.e2e.test.ts).
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { smallBodyLimit } from './small-body-limit.js';

function appWithLimit() {
  const reached: string[] = [];
  const app = new Hono();
  app.use(smallBodyLimit({ maxBytes: 16, except: ['/mcp'] }));
  app.post('*', async (c) => {
    reached.push(await c.req.text());
    return c.json({ ok: true });
  });
  return { app, reached };
}

/** A body of undeclared length (no Content-Length), in pieces. */
function stream(...pieces: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(new TextEncoder().encode(piece));
      controller.close();
    },
  });
}

const chunked = (body: ReadableStream<Uint8Array>) => ({ method: 'POST', headers: { 'transfer-encoding': 'chunked' }, body, duplex: 'half' }) as RequestInit;

describe('smallBodyLimit', () => {
  it('refuses a declared Content-Length over the limit with 413 without running the handler', async () => {
    const { app, reached } = appWithLimit();
    const response = await app.request('/token', { method: 'POST', headers: { 'content-length': '17' }, body: 'x'.repeat(17) });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'invalid_request', error_description: 'the request body must not exceed 16 bytes on /token' });
    expect(reached).toEqual([]);
  });

  it('refuses a body of undeclared length as soon as it passes the limit', async () => {
    const { app, reached } = appWithLimit();
    const response = await app.request('/register', chunked(stream('0123456789', '0123456789')));
    expect(response.status).toBe(413);
    expect(reached).toEqual([]);
  });

  it('hands a body of undeclared length within the limit to the handler whole', async () => {
    const { app, reached } = appWithLimit();
    const response = await app.request('/register', chunked(stream('csrf=a&', 'ok=b')));
    expect(response.status).toBe(200);
    expect(reached).toEqual(['csrf=a&ok=b']);
  });

  it('leaves the paths it is told to alone', async () => {
    const { app, reached } = appWithLimit();
    const response = await app.request('/mcp', { method: 'POST', body: 'x'.repeat(100) });
    expect(response.status).toBe(200);
    expect(reached).toEqual(['x'.repeat(100)]);
  });

  it('refuses a limit that is not a whole number of bytes at construction', () => {
    expect(() => smallBodyLimit({ maxBytes: 0 })).toThrow(RangeError);
  });
});
