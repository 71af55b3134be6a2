// Protocol hygiene against a real listening server: every malformed, mislabelled or misdirected
// request gets the status the MCP Streamable HTTP transport and RFC 9110 call for, a JSON body a
// client can parse, and nothing of the server's internals. Single requests go through supertest,
// which sends the headers as written (Host included); the body limit's chunked upload and the SSE
// stream use fetch.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_HEADERS, mcpPost } from './support/mcp-post.js';
import { startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { openSession } from './support/raw-mcp.js';
import { expectNoInternals, INITIALIZE, messagesOf, onSession, post } from './robustness-support.js';

const MAX_BODY_BYTES = 64 * 1024;

describe('robustness: protocol hygiene', () => {
  let server: TestServer;
  let session: string;

  beforeAll(async () => {
    server = await startTestServer({
      files: { 'guide.md': '# Guide\n\nSessions expire after an idle timeout.\n' },
      maxBodyBytes: MAX_BODY_BYTES,
    });
    session = await openSession(server.mcpUrl);
  });
  afterAll(async () => {
    await server?.close();
  });

  const ping = (id: number | string = 2) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
  const JSON_TYPE = /^application\/json/;

  describe('POST /mcp', () => {
    it.each([
      ['an unterminated object', '{"jsonrpc":"2.0",'],
      ['plain text', 'hello'],
      ['an empty body', ''],
      ['a lone bracket', '['],
      ['trailing garbage', '{"jsonrpc":"2.0","id":1,"method":"ping"} x'],
    ])('answers %s without a session with 400 and a JSON-RPC parse error (-32700)', async (_name, body) => {
      const response = await mcpPost(server.mcpUrl, body);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.headers['mcp-session-id']).toBeUndefined();
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
      expectNoInternals(response.text);
    });

    it('answers malformed JSON on a session with 400 and a JSON-RPC parse error (-32700)', async () => {
      const response = await mcpPost(server.mcpUrl, '{"method":', onSession(session));
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml'])(
      'answers Content-Type %s with 415',
      async (contentType) => {
        const fresh = await mcpPost(server.mcpUrl, INITIALIZE, { 'content-type': contentType });
        expect(fresh.status).toBe(415);
        expect(fresh.headers['content-type']).toMatch(JSON_TYPE);
        expect(fresh.headers['mcp-session-id']).toBeUndefined();
        expect(fresh.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
        const onOpen = await mcpPost(server.mcpUrl, ping(), { ...onSession(session), 'content-type': contentType });
        expect(onOpen.status).toBe(415);
        expect(onOpen.headers['content-type']).toMatch(JSON_TYPE);
        expect(onOpen.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      },
    );

    it.each([
      ['no Accept header', undefined],
      ['Accept: application/json only', 'application/json'],
      ['Accept: text/event-stream only', 'text/event-stream'],
      ['Accept: text/html', 'text/html'],
    ])('answers %s with 406', async (_name, accept) => {
      // Without an Accept, supertest sends none (fetch would send `*/*`).
      const pending = mcpPost(server.mcpUrl, ping(), onSession(session));
      const response = await (accept === undefined ? pending.unset('accept') : pending.set('accept', accept));
      expect(response.status).toBe(406);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    });

    it.each(['1999-01-01', 'latest', '2025-06-18; drop table', ''.padEnd(300, '9')])(
      'answers MCP-Protocol-Version %j on a session with 400 naming the supported versions',
      async (version) => {
        const response = await mcpPost(server.mcpUrl, ping(), { 'mcp-session-id': session, 'mcp-protocol-version': version });
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toMatch(JSON_TYPE);
        expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/2025-06-18/) } });
      },
    );

    it('answers a non-initialize request without Mcp-Session-Id with 400', async () => {
      const response = await mcpPost(server.mcpUrl, ping());
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/initialize/) } });
    });

    it.each(['00000000-0000-0000-0000-000000000000', 'not-a-uuid', '../../etc/passwd', 'x'.repeat(4000)])(
      'answers an unknown session id %# with 404 so the client re-initialises',
      async (id) => {
        const response = await mcpPost(server.mcpUrl, ping(), { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' });
        expect(response.status).toBe(404);
        expect(response.headers['content-type']).toMatch(JSON_TYPE);
        expect(response.headers['mcp-session-id']).toBeUndefined();
        expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
      },
    );

    it('answers a body over MAX_BODY_BYTES with 413, with or without Content-Length, and keeps serving', async () => {
      const big = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping', params: { pad: 'x'.repeat(MAX_BODY_BYTES) } });
      const declared = await post(server.mcpUrl, big, onSession(session));
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.text)).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringMatching(/65536 bytes/) } });

      // A chunked body declares no length: the limit must be enforced while reading.
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const piece = new TextEncoder().encode(big.slice(0, 8192));
          for (let sent = 0; sent < big.length; sent += piece.length) controller.enqueue(piece);
          controller.close();
        },
      });
      const chunked = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: { ...MCP_HEADERS, ...onSession(session) },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      await chunked.text();

      const fresh = await post(server.mcpUrl, big);
      expect(fresh.status).toBe(413);

      const after = await post(server.mcpUrl, ping(9), onSession(session));
      expect(after.status).toBe(200);
      expect(messagesOf(after)).toEqual([{ jsonrpc: '2.0', id: 9, result: {} }]);
    });

    it('accepts a body just under MAX_BODY_BYTES', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping', params: { _meta: { pad: 'x'.repeat(MAX_BODY_BYTES - 200) } } });
      const response = await mcpPost(server.mcpUrl, body, onSession(session));
      expect(response.status).toBe(200);
      expect(messagesOf(response)).toEqual([{ jsonrpc: '2.0', id: 4, result: {} }]);
    });

    it.each([
      ['null', 'null'],
      ['a number', '42'],
      ['a string', '"ping"'],
      ['an object that is not JSON-RPC', '{"hello":"world"}'],
      ['a request without a method', '{"jsonrpc":"2.0","id":1}'],
      ['a wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"ping"}'],
    ])('answers %s on a session with a 4xx JSON-RPC error', async (_name, body) => {
      const response = await mcpPost(server.mcpUrl, body, onSession(session));
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } });
      expectNoInternals(response.text);
    });

    it('answers an unknown method with a JSON-RPC method-not-found error', async () => {
      const response = await mcpPost(server.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'fs/read', params: { path: '/etc/passwd' } }), onSession(session));
      expect(response.status).toBe(200);
      expect(messagesOf(response)).toEqual([{ jsonrpc: '2.0', id: 5, error: expect.objectContaining({ code: -32601 }) }]);
    });
  });

  describe('GET and DELETE /mcp', () => {
    it('answers GET without Mcp-Session-Id with 400 and GET on an unknown session with 404', async () => {
      const missing = await request(server.url).get('/mcp').set('accept', 'text/event-stream');
      expect(missing.status).toBe(400);
      expect(missing.headers['content-type']).toMatch(JSON_TYPE);
      expect(missing.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      const unknown = await request(server.url).get('/mcp').set({ accept: 'text/event-stream', 'mcp-session-id': 'nope' });
      expect(unknown.status).toBe(404);
      expect(unknown.headers['content-type']).toMatch(JSON_TYPE);
      expect(unknown.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    });

    it('answers GET that does not accept text/event-stream with 406', async () => {
      const response = await request(server.url).get('/mcp').set({ accept: 'application/json', ...onSession(session) });
      expect(response.status).toBe(406);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    });

    it('refuses a second GET stream on the same session with 409 and keeps the first', async () => {
      const first = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream', ...onSession(session) } });
      expect(first.status).toBe(200);
      const second = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream', ...onSession(session) } });
      expect(second.status).toBe(409);
      expect(await second.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
      await first.body?.cancel();
    });

    it('answers DELETE on an unknown session with 404', async () => {
      const response = await request(server.url).delete('/mcp').set('mcp-session-id', 'nope');
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
    });

    it.each(['put', 'patch'] as const)('answers %s /mcp with 405 and an Allow header', async (method) => {
      const response = await request(server.url)[method]('/mcp').set(MCP_HEADERS).send('{}');
      expect(response.status).toBe(405);
      expect(response.headers.allow).toMatch(/POST/);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    });
  });

  describe('oversized headers and prototype keys', () => {
    it('answers a 40 KB header with 431 before any handler runs', async () => {
      const sessions = server.app.sessions.size;
      const response = await mcpPost(server.mcpUrl, INITIALIZE, { 'x-padding': 'x'.repeat(40_000) });
      expect(response.status).toBe(431);
      expect(response.headers['mcp-session-id']).toBeUndefined();
      expect(server.app.sessions.size).toBe(sessions);
    });

    it.each([
      ['__proto__', '{"query":"sessions","__proto__":{"polluted":true,"top_k":"x"}}'],
      ['constructor.prototype', '{"query":"sessions","constructor":{"prototype":{"polluted":true}}}'],
    ])('does not let %s keys in tool arguments reach any prototype', async (_name, args) => {
      const body = `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"search_documents","arguments":${args}}}`;
      const response = await mcpPost(server.mcpUrl, body, onSession(session));
      expect(response.status).toBe(200);
      expect(messagesOf(response)[0]).toHaveProperty('result');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as unknown as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('unknown routes', () => {
    it.each(['/nope', '/mcp/extra', '/.env', '/../../etc/passwd', '/%2e%2e/%2e%2e/etc/passwd', '/mcp%00', '/package.json', '/src/main.ts'])(
      'answers GET %s with 404 JSON that shows no internals',
      async (path) => {
        // supertest sends the path as written: no dot segments resolved, no escapes decoded.
        const response = await request(server.url).get(path);
        expect(response.status).toBe(404);
        expect(response.headers['content-type']).toMatch(JSON_TYPE);
        expect(response.body).toHaveProperty('error');
        expectNoInternals(response.text);
      },
    );
  });

  describe('Host and Origin (DNS rebinding)', () => {
    it.each(['evil.example', 'evil.example:80', '127.0.0.1.evil.example', 'localhost.evil.example', '', 'a b'])(
      'answers Host %j with 403 before any MCP handling',
      async (host) => {
        const sessions = server.app.sessions.size;
        const response = await mcpPost(server.mcpUrl, INITIALIZE, { host });
        expect([400, 403]).toContain(response.status);
        expect(response.headers['mcp-session-id']).toBeUndefined();
        expectNoInternals(response.text);
        expect(server.app.sessions.size).toBe(sessions);
      },
    );

    it('answers a foreign Host with exactly 403 and a JSON-RPC body', async () => {
      const response = await mcpPost(server.mcpUrl, INITIALIZE, { host: `evil.example:${server.port}` });
      expect(response.status).toBe(403);
      expect(response.headers['content-type']).toMatch(JSON_TYPE);
      expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Host header') } });
    });

    it.each(['http://evil.example', 'https://127.0.0.1.evil.example', 'null', 'file://', 'chrome-extension://abc'])(
      'answers Origin %j with 403',
      async (origin) => {
        const response = await mcpPost(server.mcpUrl, INITIALIZE, { origin });
        expect(response.status).toBe(403);
        expect(response.headers['mcp-session-id']).toBeUndefined();
        expect(response.headers['content-type']).toMatch(JSON_TYPE);
        expect(response.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Origin') } });
      },
    );

    it('accepts the loopback Origin a local browser client sends', async () => {
      const response = await mcpPost(server.mcpUrl, ping(7), { ...onSession(session), origin: `http://localhost:${server.port}` });
      expect(response.status).toBe(200);
      expect(messagesOf(response)).toEqual([{ jsonrpc: '2.0', id: 7, result: {} }]);
    });
  });

  describe('after all of the above', () => {
    it('still serves the session that was open throughout', async () => {
      const response = await mcpPost(server.mcpUrl, ping(99), onSession(session));
      expect(response.status).toBe(200);
      expect(messagesOf(response)).toEqual([{ jsonrpc: '2.0', id: 99, result: {} }]);
    });
  });
});
