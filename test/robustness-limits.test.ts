// Limits against a real listening server: each one is answered with the right status or a clear
// error, and a client that exceeds one never degrades service for the others.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig } from '../src/config/load-config.js';
import { createAuthentication } from '../src/http/authentication.js';
import { httpServerOptions } from '../src/http/server-options.js';
import { createLogger } from '../src/logger.js';
import { SessionRegistry } from '../src/mcp/sessions/session-registry.js';
import type { Session } from '../src/mcp/sessions/session-registry.js';
import { listening } from './support/listening.js';
import { connectClient, startTestServer } from './support/test-server.js';
import { eventually } from './support/eventually.js';
import type { TestServer, TestServerOptions } from './support/test-server.js';
import { initializeBody, openSession, openSseStream } from './support/raw-mcp.js';
import { messagesOf, onSession, post } from './robustness-support.js';
import { modernRequest } from './support/modern-mcp.js';

const FILES = { 'guide.md': '# Guide\n\nSessions expire after an idle timeout.\n' };

const servers: TestServer[] = [];
async function start(options: TestServerOptions = {}): Promise<TestServer> {
  const server = await startTestServer({ files: FILES, ...options });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const toolCall = (id: number) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_documents', arguments: { query: 'sessions' } } });
const ping = (id: number | string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('limits', () => {
  describe('configuration', () => {
    it('has documented defaults for every limit', () => {
      expect(loadConfig({})).toMatchObject({
        maxBodyBytes: 1_048_576,
        requestTimeoutMs: 30_000,
        maxConcurrentPerSession: 16,
        maxConcurrentPerPrincipal: 32,
        maxConcurrentPerAddress: 128,
        maxListenStreamsPerPrincipal: 32,
        maxListenStreamsPerAddress: 256,
        listenIdleTtlSeconds: 600,
        maxSessions: 1000,
        maxSessionsPerPrincipal: 32,
        sessionIdleTtlSeconds: 1800,
        maxConnections: 1500,
        writeTimeoutMs: 30_000,
      });
    });

    it('reads the per-principal, connection and write limits, sizing MAX_CONNECTIONS after MAX_SESSIONS unless it is set', () => {
      expect(loadConfig({ MAX_CONCURRENT_PER_PRINCIPAL: '5', MAX_CONNECTIONS: '64', WRITE_TIMEOUT_MS: '2000' })).toMatchObject({
        maxConcurrentPerPrincipal: 5,
        maxConnections: 64,
        writeTimeoutMs: 2000,
      });
      expect(loadConfig({ MAX_SESSIONS: '100' }).maxConnections).toBe(600);
      expect(
        loadConfig({ MAX_CONCURRENT_PER_ADDRESS: '7', MAX_LISTEN_STREAMS_PER_PRINCIPAL: '3', MAX_LISTEN_STREAMS_PER_ADDRESS: '9', LISTEN_IDLE_TTL: '60' }),
      ).toMatchObject({ maxConcurrentPerAddress: 7, maxListenStreamsPerPrincipal: 3, maxListenStreamsPerAddress: 9, listenIdleTtlSeconds: 60 });
      expect(() => loadConfig({ MAX_LISTEN_STREAMS_PER_ADDRESS: '0', LISTEN_IDLE_TTL: '0' })).toThrow(
        /MAX_LISTEN_STREAMS_PER_ADDRESS="0": must be at least 1[\s\S]*LISTEN_IDLE_TTL="0": must be at least 1/,
      );
      expect(() => loadConfig({ MAX_CONCURRENT_PER_PRINCIPAL: '0', MAX_CONNECTIONS: '0', WRITE_TIMEOUT_MS: '999' })).toThrow(
        /MAX_CONCURRENT_PER_PRINCIPAL="0": must be at least 1[\s\S]*MAX_CONNECTIONS="0": must be at least 1[\s\S]*WRITE_TIMEOUT_MS="999": must be at least 1000/,
      );
    });

    it('reads each limit from the environment and refuses values out of range, naming them all', () => {
      expect(loadConfig({ MAX_BODY_BYTES: '2048', REQUEST_TIMEOUT_MS: '5000', MAX_CONCURRENT_PER_SESSION: '4' })).toMatchObject({
        maxBodyBytes: 2048,
        requestTimeoutMs: 5000,
        maxConcurrentPerSession: 4,
      });
      const error = (() => {
        try {
          loadConfig({ MAX_BODY_BYTES: '10', REQUEST_TIMEOUT_MS: 'soon', MAX_CONCURRENT_PER_SESSION: '0' });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        'MAX_BODY_BYTES="10": must be at least 1024',
        'REQUEST_TIMEOUT_MS="soon": must be a number',
        'MAX_CONCURRENT_PER_SESSION="0": must be at least 1',
      ]);
    });

    it('reads the tool limits, defaulting to 1000 query characters, top_k 50, 100000 document characters and pages of 100', () => {
      expect(loadConfig({}).toolLimits).toEqual({ maxQueryChars: 1000, maxTopK: 50, maxDocumentChars: 100_000, maxPageSize: 100 });
      expect(loadConfig({ MAX_QUERY_CHARS: '200', MAX_TOP_K: '10', MAX_DOCUMENT_CHARS: '5000', MAX_PAGE_SIZE: '20' }).toolLimits).toEqual({
        maxQueryChars: 200,
        maxTopK: 10,
        maxDocumentChars: 5000,
        maxPageSize: 20,
      });
      expect(() => loadConfig({ MAX_TOP_K: '0', MAX_DOCUMENT_CHARS: '2000000' })).toThrow(/MAX_TOP_K="0": must be at least 1[\s\S]*MAX_DOCUMENT_CHARS="2000000": must be at most 1000000/);
    });
  });

  describe('tool limits', () => {
    it('enforces configured limits with messages naming them, in the schemas, the errors and the defaults', async () => {
      const files = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`doc-${i}.md`, `# Doc ${i}\n\n${'sessions expire quietly. '.repeat(20)}\n`]));
      const server = await start({ files, toolLimits: { maxQueryChars: 20, maxTopK: 3, maxDocumentChars: 100, maxPageSize: 2 } });
      const { client } = await connectClient(server.mcpUrl);
      const { tools } = await client.listTools();
      const search = tools.find((t) => t.name === 'search_documents')!;
      expect(search.inputSchema.properties?.top_k).toMatchObject({ maximum: 3, default: 3 });
      const text = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args });
        return { isError: result.isError === true, text: (result.content as Array<{ text: string }>)[0]!.text, structured: result.structuredContent as Record<string, unknown> };
      };
      expect(await text('search_documents', { query: 'a'.repeat(21) })).toMatchObject({ isError: true, text: expect.stringMatching(/at most 20 characters/) });
      expect(await text('search_documents', { query: 'sessions', top_k: 4 })).toMatchObject({ isError: true, text: expect.stringMatching(/top_k=4: must be at most 3/) });
      expect(((await text('search_documents', { query: 'sessions' })).structured.results as unknown[]).length).toBe(3);
      expect(await text('get_document', { source: 'doc-0.md', max_chars: 101 })).toMatchObject({ isError: true, text: expect.stringMatching(/max_chars=101: must be at most 100/) });
      const page = (await text('get_document', { source: 'doc-0.md' })).structured;
      expect((page.text as string).length).toBe(100);
      expect(page.truncated).toBe(true);
      expect(await text('list_documents', { limit: 3 })).toMatchObject({ isError: true, text: expect.stringMatching(/limit=3: must be at most 2/) });
      const listed = (await text('list_documents', {})).structured;
      expect((listed.documents as unknown[]).length).toBe(2);
      expect(listed.next_cursor).not.toBeNull();
      const resources = await client.listResources();
      expect(resources.resources).toHaveLength(2);
      expect(resources.nextCursor).toBeDefined();
      await client.close();
    });

    it('caps resources/read at MAX_DOCUMENT_CHARS like get_document, saying how to read the rest', async () => {
      const long = `# Long\n\n${'word '.repeat(2000)}`;
      const server = await start({ files: { 'long.md': long, 'short.md': '# Short\n\nBrief.\n' }, toolLimits: { maxDocumentChars: 1000 } });
      const { client } = await connectClient(server.mcpUrl);
      const [content] = (await client.readResource({ uri: 'corpus:///long.md' })).contents as Array<{ text: string; _meta?: Record<string, unknown> }>;
      expect(content!.text.startsWith(long.slice(0, 1000))).toBe(true);
      expect(content!.text.length).toBeLessThan(1200);
      expect(content!.text).toMatch(/\[truncated: this resource shows the first 1000 of 10008 characters; call get_document with source "long\.md" and offset 1000 for the rest\]$/);
      expect(content!._meta).toEqual({ truncated: true, shownChars: 1000, totalChars: 10008 });
      const [whole] = (await client.readResource({ uri: 'corpus:///short.md' })).contents as Array<{ text: string; _meta?: unknown }>;
      expect(whole).toEqual({ uri: 'corpus:///short.md', mimeType: 'text/markdown', text: '# Short\n\nBrief.\n' });
      await client.close();
    });
  });

  describe('request body size', () => {
    it('refuses a body over the 1 MiB default with 413 and accepts one under it', async () => {
      const server = await start();
      const session = await openSession(server.mcpUrl);
      const over = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'x'.repeat(1024 * 1024) } } });
      expect((await post(server.mcpUrl, over, onSession(session))).status).toBe(413);
      const under = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { _meta: { pad: 'x'.repeat(1024 * 1024 - 200) } } });
      const response = await post(server.mcpUrl, under, onSession(session));
      expect(response.status).toBe(200);
      expect(messagesOf(response)[0]).toMatchObject({ id: 2, result: {} });
    });
  });

  describe('concurrent requests per session', () => {
    it('answers requests beyond maxConcurrentPerSession with 429 and Retry-After, leaving other sessions and later requests alone', async () => {
      // While the index is not built, tool calls wait: a deterministic way to keep requests in flight.
      const server = await start({ buildIndex: false, maxConcurrentPerSession: 2 });
      const busy = await openSession(server.mcpUrl);
      const other = await openSession(server.mcpUrl);

      const waiting = [post(server.mcpUrl, toolCall(1), onSession(busy)), post(server.mcpUrl, toolCall(2), onSession(busy))];
      await eventually(async () => (await post(server.mcpUrl, ping('probe'), onSession(busy))).status === 429);
      const refused = await post(server.mcpUrl, toolCall(3), onSession(busy));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(refused.text)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringMatching(/limit is 2/) } });

      const elsewhere = await post(server.mcpUrl, ping(4), onSession(other));
      expect(elsewhere.status).toBe(200);

      server.buildIndex();
      for (const response of await Promise.all(waiting)) {
        expect(response.status).toBe(200);
        expect(messagesOf(response)[0]).toMatchObject({ result: { structuredContent: { query: 'sessions' } } });
      }
      const after = await post(server.mcpUrl, toolCall(5), onSession(busy));
      expect(after.status).toBe(200);
    });

    it('counts a JSON-RPC batch as the requests it holds: too many at once is 400, too many in flight is 429', async () => {
      const server = await start({ buildIndex: false, maxConcurrentPerSession: 3 });
      const session = await openSession(server.mcpUrl);
      const batch = (n: number, from: number) => JSON.stringify(Array.from({ length: n }, (_, i) => JSON.parse(toolCall(from + i)) as unknown));

      const oversized = await post(server.mcpUrl, batch(4, 10), onSession(session));
      expect(oversized.status).toBe(400);
      expect(JSON.parse(oversized.text)).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/batch of 4 messages exceeds the 3 requests/) } });

      const waiting = post(server.mcpUrl, batch(2, 20), onSession(session));
      await eventually(async () => (await post(server.mcpUrl, batch(2, 30), onSession(session))).status === 429);
      expect((await post(server.mcpUrl, batch(2, 40), onSession(session))).status).toBe(429);
      server.buildIndex();
      const answered = await waiting;
      expect(answered.status).toBe(200);
      expect(messagesOf(answered).map((m) => m.id).sort()).toEqual([20, 21]);
      const after = await post(server.mcpUrl, batch(3, 50), onSession(session));
      expect(after.status).toBe(200);
      expect(messagesOf(after)).toHaveLength(3);
    });

    it('frees the slot of a request whose client went away', async () => {
      const server = await start({ buildIndex: false, maxConcurrentPerSession: 1 });
      const session = await openSession(server.mcpUrl);
      const abort = new AbortController();
      const abandoned = post(server.mcpUrl, toolCall(1), onSession(session), abort.signal).catch(() => undefined);
      await eventually(async () => (await post(server.mcpUrl, ping('probe'), onSession(session))).status === 429);
      abort.abort();
      await abandoned;
      // The abandoned call is still waiting for the index, yet its slot is free again.
      await eventually(async () => (await post(server.mcpUrl, ping('again'), onSession(session))).status === 200, { timeoutMs: 5000 });
      server.buildIndex();
    });
  });

  describe('concurrent requests per principal', () => {
    const TOKEN_A = 'a'.repeat(40);
    const TOKEN_B = 'b'.repeat(40);
    const as = (token: string, session?: string) => ({ authorization: `Bearer ${token}`, ...(session === undefined ? {} : onSession(session)) });
    async function openAs(server: TestServer, token: string): Promise<string> {
      const init = await post(server.mcpUrl, JSON.stringify(initializeBody()), as(token));
      const id = init.headers.get('mcp-session-id');
      if (init.status !== 200 || id === null) throw new Error(`initialize answered ${init.status}`);
      expect((await post(server.mcpUrl, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), as(token, id))).status).toBe(202);
      return id;
    }
    const modernCall = (server: TestServer, token: string, id: number) =>
      modernRequest(server.mcpUrl, { method: 'tools/call', params: { name: 'list_documents', arguments: {} }, headers: as(token), id });

    it('bounds one principal over all its sessions and modern requests together with 429 and Retry-After; other principals are served', async () => {
      const { authenticate } = createAuthentication({ auth: loadConfig({ AUTH_TOKENS: `${TOKEN_A},${TOKEN_B}` }).auth });
      // Unbuilt index: tool calls wait for it, so they stay in flight until the test builds it.
      const server = await start({ authenticate, buildIndex: false, maxConcurrentPerSession: 2, maxConcurrentPerPrincipal: 3 });
      const [a1, a2, a3] = [await openAs(server, TOKEN_A), await openAs(server, TOKEN_A), await openAs(server, TOKEN_A)];
      const b = await openAs(server, TOKEN_B);
      // Each session stays within its own bound of 2; together they reach the principal's 3.
      const waiting = [post(server.mcpUrl, toolCall(1), as(TOKEN_A, a1)), post(server.mcpUrl, toolCall(2), as(TOKEN_A, a1)), post(server.mcpUrl, toolCall(3), as(TOKEN_A, a2))];
      await eventually(async () => (await post(server.mcpUrl, ping('probe'), as(TOKEN_A, a3))).status === 429);

      const refused = await post(server.mcpUrl, toolCall(4), as(TOKEN_A, a3));
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(JSON.parse(refused.text)).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Too Many Requests: this principal already has 3 requests in progress (the limit is 3); wait for one to finish or retry after 1 s' },
      });
      // A new session or a modern request is no way around it.
      expect((await post(server.mcpUrl, JSON.stringify(initializeBody()), as(TOKEN_A))).status).toBe(429);
      const modern = await modernCall(server, TOKEN_A, 5);
      expect(modern.status).toBe(429);
      expect(modern.message?.error?.message).toMatch(/this principal already has 3 requests in progress/);
      // Another principal is untouched, in both eras.
      expect((await post(server.mcpUrl, ping(6), as(TOKEN_B, b))).status).toBe(200);

      server.buildIndex();
      for (const response of await Promise.all(waiting)) {
        expect(response.status).toBe(200);
        expect(messagesOf(response)[0]).toMatchObject({ result: { structuredContent: { query: 'sessions' } } });
      }
      expect((await modernCall(server, TOKEN_B, 7)).status).toBe(200);
      // The slots were released.
      expect((await post(server.mcpUrl, toolCall(8), as(TOKEN_A, a3))).status).toBe(200);
      expect((await modernCall(server, TOKEN_A, 9)).status).toBe(200);
    });

    it('counts a modern request against the same budget as the principal\'s sessions', async () => {
      const { authenticate } = createAuthentication({ auth: loadConfig({ AUTH_TOKENS: TOKEN_A }).auth });
      const server = await start({ authenticate, buildIndex: false, maxConcurrentPerSession: 5, maxConcurrentPerPrincipal: 2 });
      const session = await openAs(server, TOKEN_A);
      const waiting = [modernCall(server, TOKEN_A, 1), modernCall(server, TOKEN_A, 2)];
      await eventually(async () => (await post(server.mcpUrl, ping('probe'), as(TOKEN_A, session))).status === 429);
      server.buildIndex();
      for (const answer of await Promise.all(waiting)) expect(answer.status).toBe(200);
      expect((await post(server.mcpUrl, ping('after'), as(TOKEN_A, session))).status).toBe(200);
    });

    it('bounds legacy sessions by session and client address, not by the principal bound, when authentication is off', async () => {
      const server = await start({ buildIndex: false, maxConcurrentPerSession: 1, maxConcurrentPerPrincipal: 1 });
      const [s1, s2] = [await openSession(server.mcpUrl), await openSession(server.mcpUrl)];
      const waiting = post(server.mcpUrl, toolCall(1), onSession(s1));
      await eventually(async () => (await post(server.mcpUrl, ping('probe'), onSession(s1))).status === 429);
      expect((await post(server.mcpUrl, ping(2), onSession(s2))).status).toBe(200);
      server.buildIndex();
      expect((await waiting).status).toBe(200);
    });
  });

  describe('request timeout', () => {
    it('answers a tool call that cannot be served in time with a tool error saying to retry, while ping still answers', async () => {
      const server = await start({ buildIndex: false, indexWaitMs: 300 });
      const { client } = await connectClient(server.mcpUrl);
      const result = await client.callTool({ name: 'search_documents', arguments: { query: 'sessions' } });
      expect(result.isError).toBe(true);
      expect((result.content as Array<{ text: string }>)[0]?.text).toMatch(/still being built \(waited 300 ms\)\. Call search_documents again/);
      await expect(client.listResources()).rejects.toThrow(/still being built/);
      await client.ping();
      server.buildIndex();
      const served = await client.callTool({ name: 'search_documents', arguments: { query: 'sessions' } });
      expect(served.isError).toBeFalsy();
      await client.close();
    });
  });

  describe('number of sessions', () => {
    it('never refuses a new session at the cap: it closes the idlest, which its next request re-creates within the cap', async () => {
      const ended: string[] = [];
      const server = await start({ maxSessions: 3, onSessionEvent: (e) => e.type !== 'created' && ended.push(e.session.id) });
      const [a, b, c] = [await openSession(server.mcpUrl), await openSession(server.mcpUrl), await openSession(server.mcpUrl)];
      expect((await post(server.mcpUrl, ping(1), onSession(a))).status).toBe(200); // a is now the most recent
      const d = await openSession(server.mcpUrl);
      expect(server.app.sessions.size).toBe(3);
      expect(ended).toEqual([b]);
      // b comes back from its id, pushing out the idlest of the others (c); the cap holds throughout.
      expect((await post(server.mcpUrl, ping(2), onSession(b))).status).toBe(200);
      expect(server.app.sessions.size).toBe(3);
      expect(ended).toEqual([b, c]);
      for (const id of [a, c, d, b]) expect((await post(server.mcpUrl, ping(3), onSession(id))).status).toBe(200);
      expect(server.app.sessions.size).toBe(3);
    });
  });

  describe('sessions per principal', () => {
    const TOKEN_A = 'a'.repeat(40);
    const TOKEN_B = 'b'.repeat(40);

    /** Opens a session as the holder of `token`; returns its id. */
    async function openAs(server: TestServer, token: string): Promise<string> {
      const auth = { authorization: `Bearer ${token}` };
      const init = await post(server.mcpUrl, JSON.stringify(initializeBody()), auth);
      const id = init.headers.get('mcp-session-id');
      if (init.status !== 200 || id === null) throw new Error(`initialize answered ${init.status}`);
      expect((await post(server.mcpUrl, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), { ...auth, ...onSession(id) })).status).toBe(202);
      return id;
    }
    const pingAs = async (server: TestServer, token: string, id: string) =>
      (await post(server.mcpUrl, ping('p'), { authorization: `Bearer ${token}`, ...onSession(id) })).status;

    it('closes the flooding principal\'s own idlest sessions, never another principal\'s', async () => {
      const { authenticate } = createAuthentication({ auth: loadConfig({ AUTH_TOKENS: `${TOKEN_A},${TOKEN_B}` }).auth });
      const server = await start({ authenticate, maxSessions: 10, maxSessionsPerPrincipal: 3 });
      const b = [await openAs(server, TOKEN_B), await openAs(server, TOKEN_B)];
      const a: string[] = [];
      for (let i = 0; i < 8; i += 1) a.push(await openAs(server, TOKEN_A));
      expect(server.app.sessions.size).toBe(5);
      // A holds only three sessions at once; B's two were never touched, so none of B's calls had to re-create anything.
      const held = () => [...a, ...b].filter((id) => server.app.sessions.peek(id) !== undefined);
      expect(held()).toEqual([...a.slice(5), ...b]);
      for (const id of b) expect(await pingAs(server, TOKEN_B, id)).toBe(200);
      // An older session of A comes back on its next request, at the cost of A's own idlest, never B's.
      expect(await pingAs(server, TOKEN_A, a[0]!)).toBe(200);
      expect(held()).toEqual([a[0], ...a.slice(6), ...b]);
      expect(server.app.sessions.size).toBe(5);
    });

    it('answers an anonymous oversized body with 401 without reading it, and one from a token holder with 413', async () => {
      const { authenticate } = createAuthentication({ auth: loadConfig({ AUTH_TOKENS: TOKEN_A }).auth });
      const server = await start({ authenticate, maxBodyBytes: 4096 });
      const big = JSON.stringify({ ...initializeBody(), pad: 'x'.repeat(8192) });
      const anonymous = await post(server.mcpUrl, big);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const holder = await post(server.mcpUrl, big, { authorization: `Bearer ${TOKEN_A}` });
      expect(holder.status).toBe(413);
    });

    it('defaults to 32 per principal, never above MAX_SESSIONS', () => {
      expect(loadConfig({}).maxSessionsPerPrincipal).toBe(32);
      expect(loadConfig({ MAX_SESSIONS: '20' }).maxSessionsPerPrincipal).toBe(20);
      expect(loadConfig({ MAX_SESSIONS_PER_PRINCIPAL: '7' }).maxSessionsPerPrincipal).toBe(7);
    });
  });

  describe('shutdown with many sessions', () => {
    it('ends every one of 20,000 sessions exactly once, though each ending re-enters the registry', async () => {
      const ended = new Map<string, number>();
      const registry = new SessionRegistry({
        maxSessions: 100_000,
        idleTtlMs: 3_600_000,
        events: listening('session', (event) => void (event.type === 'shutdown' && ended.set(event.session.id, (ended.get(event.session.id) ?? 0) + 1))),
      });
      for (let i = 0; i < 20_000; i += 1) {
        const id = `session-${i}`;
        // As a real session does: closing its server closes its transport, whose callback removes it.
        const server = { close: async () => registry.delete(id) };
        registry.add({ id, server, transport: {}, owner: undefined, createdAt: 0 } as unknown as Session);
      }
      await registry.closeAll();
      expect(registry.size).toBe(0);
      expect(ended.size).toBe(20_000);
      expect([...ended.values()].every((count) => count === 1)).toBe(true);
    });
  });

  describe('slow and vanished clients (socket timeouts)', () => {
    /** Sends a request line and then one header character every 200 ms; resolves with what came back once the server closes. */
    async function trickleHeaders(port: number, timeoutMs: number): Promise<string> {
      const socket = connect(port, '127.0.0.1');
      let closed = false;
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      socket.on('close', () => (closed = true));
      socket.on('error', () => {});
      socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `);
      const drip = setInterval(() => socket.write('a'), 200);
      try {
        await eventually(async () => closed, { timeoutMs });
      } finally {
        clearInterval(drip);
        socket.destroy();
      }
      return answer;
    }

    it('closes a connection that sends its headers too slowly (slowloris)', async () => {
      const server = await start({ serverOptions: httpServerOptions({ requestTimeoutMs: 1000 }) });
      const answer = await trickleHeaders(server.port, 15_000);
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    });

    it('gives headers 10 s by default, less than the whole request, and cuts slow headers at that bound', async () => {
      expect(httpServerOptions()).toMatchObject({ headersTimeout: 10_000, requestTimeout: 30_000 });
      expect(httpServerOptions({ requestTimeoutMs: 5000 })).toMatchObject({ headersTimeout: 5000 });
      // Headers bounded at 1 s while a whole request may take 20 s: the trickle is cut long before 20 s.
      const server = await start({ serverOptions: httpServerOptions({ requestTimeoutMs: 20_000, headersTimeoutMs: 1000 }) });
      const answer = await trickleHeaders(server.port, 10_000);
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    });

    it('closes a connection whose body never finishes arriving', async () => {
      const server = await start({ serverOptions: httpServerOptions({ requestTimeoutMs: 1000 }) });
      const socket = connect(server.port, '127.0.0.1');
      let closed = false;
      socket.on('close', () => (closed = true));
      socket.on('error', () => {});
      socket.resume(); // read the 408 so the server's close is seen
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n` +
          'Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc":',
      );
      try {
        await eventually(async () => closed, { timeoutMs: 15_000 });
      } finally {
        socket.destroy();
      }
    });

    it('treats a client that disconnects halfway through a chunked body as its own doing: no error logged, the server serves on', async () => {
      const errors: string[] = [];
      const debugs: string[] = [];
      const logger = createLogger({
        level: 'debug',
        destination: {
          write: (chunk: string) => {
            for (const line of chunk.split('\n').filter(Boolean)) {
              const { level, msg = '' } = JSON.parse(line) as { level: string; msg?: string };
              if (level === 'debug') debugs.push(msg);
              if (level === 'error') errors.push(msg);
            }
          },
        },
      });
      const dropped = () => debugs.filter((m) => m === 'client closed the connection before its request body arrived').length;
      const server = await start({ logger });
      const session = await openSession(server.mcpUrl);
      for (const headers of [{}, onSession(session)]) {
        const req = request({
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'transfer-encoding': 'chunked', ...headers },
        });
        req.on('error', () => {});
        const before = dropped();
        await new Promise<void>((resolve, reject) => req.write('{"jsonrpc":"2.0",', (error) => (error ? reject(error) : resolve())));
        req.destroy();
        // The server has seen the disconnect and finished with the request: any error is logged by now.
        await eventually(() => dropped() === before + 1, { what: 'the server to see the disconnect' });
      }
      await eventually(async () => (await post(server.mcpUrl, ping('after'), onSession(session))).status === 200);
      expect(errors).toEqual([]);
    });

    it('keeps an SSE stream open past the request timeout: the timeout bounds receiving a request, not answering it', async () => {
      const server = await start({ serverOptions: httpServerOptions({ requestTimeoutMs: 1000 }) });
      const session = await openSession(server.mcpUrl);
      const stream = await openSseStream(server.mcpUrl, session);
      expect(stream.status).toBe(200);
      let ended = false;
      void stream.ended.then(() => (ended = true));
      // Asserts that something does not happen, and Node checks request timeouts on its own timer
      // (connectionsCheckingInterval, 1 s here), which no fake clock reaches: 2.5 s spans two checks
      // past the timeout.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(ended).toBe(false);
      await stream.cancel();
    });
  });
});
