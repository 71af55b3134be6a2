import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createLogger, sessionLogId } from '../src/logger.js';
import { bindRequestLog, currentRequest, isSaneRequestId, requestId, requestScopedLogger } from '../src/http/middleware/request-id.js';

type Line = Record<string, unknown>;

/** A pino destination that keeps every line, parsed as JSON (a non-JSON line fails the test). */
function capture() {
  const raw: string[] = [];
  const destination = { write: (chunk: string) => void raw.push(chunk) };
  const lines = () => raw.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);
  return { destination, raw, lines };
}

const TOKEN = 'sk-live-9f8e7d6c5b4a3210';

describe('createLogger', () => {
  it('writes one JSON object per line with a level name and an ISO timestamp', () => {
    const out = capture();
    createLogger({ destination: out.destination }).info({ documents: 3 }, 'index built');
    const [line] = out.lines();
    expect(line).toMatchObject({ level: 'info', msg: 'index built', documents: 3 });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time);
  });

  it('respects the level', () => {
    const out = capture();
    const logger = createLogger({ destination: out.destination, level: 'warn' });
    logger.info({}, 'hidden');
    logger.warn({}, 'shown');
    expect(out.lines().map((l) => l.msg)).toEqual(['shown']);
  });

  it('redacts authorization headers and token fields even when logged by mistake', () => {
    const out = capture();
    const logger = createLogger({ destination: out.destination });
    logger.info({ headers: { authorization: `Bearer ${TOKEN}` } }, 'oops');
    logger.info({ req: { headers: { authorization: `Bearer ${TOKEN}` } } }, 'oops');
    logger.info({ token: TOKEN, auth: { access_token: TOKEN } }, 'oops');
    expect(out.raw.join('')).not.toContain(TOKEN);
    expect(out.lines()[0]).toMatchObject({ headers: { authorization: '[redacted]' } });
  });
});

describe('isSaneRequestId', () => {
  it.each([
    ['a uuid', '0b6f3c6e-2d8a-4f7e-9a57-0f2b1c3d4e5f', true],
    ['a trace-style id', 'req_01HZX:abc.def/42+=', true],
    ['an empty string', '', false],
    ['a newline (log forging)', 'abc\n{"level":"fatal"}', false],
    ['a quote', 'abc"def', false],
    ['spaces', 'abc def', false],
    ['129 characters', 'a'.repeat(129), false],
  ])('accepts %s: %s → %s', (_what, value, sane) => {
    expect(isSaneRequestId(value)).toBe(sane);
  });
});

describe('requestId', () => {
  const build = () => {
    const out = capture();
    const logger = createLogger({ destination: out.destination, level: 'debug' });
    const app = new Hono<{ Variables: { requestId: string; principal?: string } }>();
    app.use('*', requestId({ logger }));
    app.use('/private/*', async (c, next) => {
      // stands in for the auth middleware: it knows the principal, never echoes the token
      c.set('principal', 'token:ab12');
      bindRequestLog({ principal: 'token:ab12' });
      await next();
    });
    app.get('/private/work/:n', async (c) => {
      currentRequest()?.logger.debug({ step: 1 }, 'working');
      await new Promise((resolve) => setTimeout(resolve, 5));
      // deep in code that never saw the context, after an async boundary
      currentRequest()?.logger.info({ step: 2 }, 'tool call');
      return c.json({ id: c.get('requestId') });
    });
    app.onError((_err, c) => c.text('internal error', 500));
    app.get('/boom', () => {
      throw new Error('boom');
    });
    return { app, out };
  };

  it('generates an id, returns it as x-request-id and puts it on every line of the request', async () => {
    const { app, out } = build();
    const res = await app.request('/private/work/1', { headers: { authorization: `Bearer ${TOKEN}` } });
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({ id });
    const lines = out.lines();
    expect(lines.map((l) => l.msg)).toEqual(['working', 'tool call', 'request completed']);
    for (const line of lines) expect(line.request_id).toBe(id);
  });

  it('carries the principal on lines after auth and never the token', async () => {
    const { app, out } = build();
    await app.request('/private/work/2', { headers: { authorization: `Bearer ${TOKEN}` } });
    for (const line of out.lines()) expect(line.principal).toBe('token:ab12');
    expect(out.raw.join('')).not.toContain(TOKEN);
  });

  it('writes a completion line with method, route pattern, status and duration', async () => {
    const { app, out } = build();
    await app.request('/private/work/3');
    const done = out.lines().find((l) => l.msg === 'request completed');
    expect(done).toMatchObject({ level: 'info', method: 'GET', path: '/private/work/3', route: '/private/work/:n', status: 200 });
    expect(done!.duration_ms).toEqual(expect.any(Number));
  });

  it('honours a sane incoming x-request-id and marks it as the client\'s', async () => {
    const { app, out } = build();
    const res = await app.request('/private/work/4', { headers: { 'x-request-id': 'upstream-7f3a' } });
    expect(res.headers.get('x-request-id')).toBe('upstream-7f3a');
    for (const line of out.lines()) expect(line.request_id).toBe('upstream-7f3a');
    expect(out.lines().find((l) => l.msg === 'request completed')).toMatchObject({ request_id_from_client: true });
    await app.request('/private/work/4');
    expect(out.lines().filter((l) => l.msg === 'request completed').at(-1)).not.toHaveProperty('request_id_from_client');
  });

  it('cuts a long path to 200 characters in the completion line', async () => {
    const { app, out } = build();
    await app.request(`/nowhere/${'a'.repeat(5000)}`);
    const done = out.lines().find((l) => l.msg === 'request completed')!;
    expect((done.path as string).length).toBe(201);
    expect(done.path).toMatch(/^\/nowhere\/a+…$/);
  });

  it('logs a client\'s session id only when well-formed and not refused by authentication or the Host check', async () => {
    const out = capture();
    const logger = createLogger({ destination: out.destination, level: 'debug' });
    const app = new Hono();
    app.use('*', requestId({ logger }));
    app.all('/refused', (c) => c.json({}, 401));
    app.all('/forbidden', (c) => c.json({}, 403));
    app.all('/ok', (c) => c.json({}));
    const sessionOf = async (path: string, id: string) => {
      await app.request(path, { headers: { 'mcp-session-id': id } });
      return out.lines().filter((l) => l.msg === 'request completed').at(-1)!.session_id;
    };
    expect(await sessionOf('/ok', 'abc-123')).toBe(sessionLogId('abc-123'));
    expect(await sessionOf('/refused', 'abc-123')).toBeUndefined();
    expect(await sessionOf('/forbidden', 'abc-123')).toBeUndefined();
    expect(await sessionOf('/ok', 'x'.repeat(16_000))).toBeUndefined();
    expect(await sessionOf('/ok', 'has space')).toBeUndefined();
  });

  it.each([
    ['too long', 'x'.repeat(200)],
    ['with a quote and braces', 'a"}{"level":"fatal'],
  ])('replaces an incoming id that is %s', async (_why, incoming) => {
    const { app, out } = build();
    const res = await app.request('/private/work/5', { headers: { 'x-request-id': incoming } });
    const id = res.headers.get('x-request-id');
    expect(id).not.toBe(incoming);
    expect(isSaneRequestId(id ?? undefined)).toBe(true);
    expect(out.raw.join('')).not.toContain(incoming);
  });

  it('logs a digest of the session id of an MCP request, never the id (a credential of its session)', async () => {
    const { app, out } = build();
    await app.request('/private/work/6', { headers: { 'mcp-session-id': 'sess-123' } });
    expect(out.lines().at(-1)).toMatchObject({ session_id: sessionLogId('sess-123') });
    expect(out.raw.join('')).not.toContain('sess-123');
  });

  it('logs successful probe and scrape requests at debug and failed ones at warn, so polling does not drown the log', async () => {
    const out = capture();
    const app = new Hono();
    app.use('*', requestId({ logger: createLogger({ destination: out.destination, level: 'debug' }) }));
    app.get('/healthz', (c) => c.text('ok'));
    app.get('/readyz', (c) => c.text('draining', 503));
    app.get('/docs', (c) => c.text('ok'));
    await app.request('/healthz');
    await app.request('/readyz');
    await app.request('/docs');
    expect(out.lines().map((l) => [l.path, l.level])).toEqual([
      ['/healthz', 'debug'],
      ['/readyz', 'warn'],
      ['/docs', 'info'],
    ]);
  });

  it('logs a failed request at error level with its id', async () => {
    const { app, out } = build();
    const res = await app.request('/boom');
    expect(res.status).toBe(500);
    const id = res.headers.get('x-request-id');
    expect(out.lines().at(-1)).toMatchObject({ level: 'error', status: 500, request_id: id });
  });

  it('keeps concurrent requests apart', async () => {
    const { app, out } = build();
    const [a, b] = await Promise.all([
      app.request('/private/work/7', { headers: { 'x-request-id': 'req-a' } }),
      app.request('/private/work/8', { headers: { 'x-request-id': 'req-b' } }),
    ]);
    expect([a.headers.get('x-request-id'), b.headers.get('x-request-id')]).toEqual(['req-a', 'req-b']);
    const byId = (id: string) => out.lines().filter((l) => l.request_id === id).map((l) => l.msg);
    expect(byId('req-a')).toEqual(['working', 'tool call', 'request completed']);
    expect(byId('req-b')).toEqual(['working', 'tool call', 'request completed']);
  });

  it('has no request context outside a request', () => {
    expect(currentRequest()).toBeUndefined();
  });
});

describe('requestScopedLogger', () => {
  it('writes through the current request logger inside a request and the fallback outside', async () => {
    const out = capture();
    const base = createLogger({ destination: out.destination });
    const shared = requestScopedLogger(base); // built once, like the MCP server factory's logger
    const app = new Hono();
    app.use('*', requestId({ logger: base }));
    app.get('/', (c) => {
      shared.info({ tool: 'search_documents' }, 'tool call');
      return c.text('ok');
    });
    const res = await app.request('/', { headers: { 'x-request-id': 'req-scoped' } });
    shared.info({}, 'outside');
    const lines = out.lines();
    expect(lines.find((l) => l.msg === 'tool call')).toMatchObject({ request_id: 'req-scoped', tool: 'search_documents' });
    expect(res.headers.get('x-request-id')).toBe('req-scoped');
    expect(lines.find((l) => l.msg === 'outside')).not.toHaveProperty('request_id');
  });
});
