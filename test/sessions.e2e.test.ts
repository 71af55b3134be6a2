// Session lifecycle and transport-level behaviour against a real listening server: ending, isolation,
// eviction, idle expiry, readiness and DNS-rebinding protection.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectClient, startTestServer } from './support/test-server.js';
import { eventually } from './support/eventually.js';
import type { TestServer } from './support/test-server.js';
import { initializeBody, openSession, openSseStream, ping, rawRequest } from './support/raw-mcp.js';
import { SAMPLE_FILES } from './support/sample-corpus.js';
import type { SessionEvent } from '../src/mcp/sessions/session-registry.js';

const servers: TestServer[] = [];
async function start(options: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const server = await startTestServer({ files: SAMPLE_FILES, ...options });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('MCP sessions', () => {
  describe('DELETE', () => {
    it('ends the session, after which its id gets 404 and the client must re-initialise', async () => {
      const events: SessionEvent['type'][] = [];
      const server = await start({ onSessionEvent: (e) => events.push(e.type) });
      const { client, transport } = await connectClient(server.mcpUrl);
      const sessionId = transport.sessionId!;
      expect((await ping(server.mcpUrl, sessionId)).status).toBe(200);

      await transport.terminateSession();
      const after = await ping(server.mcpUrl, sessionId);
      expect(after.status).toBe(404);
      expect(JSON.parse(after.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
      expect(server.app.sessions.size).toBe(0);
      expect(events).toEqual(['created', 'deleted']);
      await client.close();
    });
  });

  describe('requests without a usable session', () => {
    it('answers a non-initialize POST without Mcp-Session-Id with 400', async () => {
      const server = await start();
      const response = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/initialize/) } });
      expect(server.app.sessions.size).toBe(0);
    });

    it('answers an unknown session id with 404', async () => {
      const server = await start();
      expect((await ping(server.mcpUrl, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    });

    it('answers a GET without Mcp-Session-Id with 400', async () => {
      const server = await start();
      const response = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(400);
    });

    it('keeps no session when initialize is refused by the transport (missing Accept)', async () => {
      const server = await start();
      const response = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(initializeBody()) });
      expect(response.status).toBe(406);
      expect(server.app.sessions.size).toBe(0);
    });
  });

  describe('concurrent sessions', () => {
    it('are isolated: each has its own id, and ending one leaves the other working', async () => {
      const server = await start();
      const a = await connectClient(server.mcpUrl, 'client-a');
      const b = await connectClient(server.mcpUrl, 'client-b');
      expect(a.transport.sessionId).not.toBe(b.transport.sessionId);

      const [ra, rb] = await Promise.all([
        a.client.callTool({ name: 'search_documents', arguments: { query: 'sourdough' } }),
        b.client.callTool({ name: 'search_documents', arguments: { query: 'tomatoes' } }),
      ]);
      expect((ra.structuredContent as { query: string }).query).toBe('sourdough');
      expect((rb.structuredContent as { query: string }).query).toBe('tomatoes');

      await a.transport.terminateSession();
      expect((await ping(server.mcpUrl, a.transport.sessionId ?? '')).status).not.toBe(200);
      await expect(b.client.listTools()).resolves.toMatchObject({ tools: expect.any(Array) });
      await a.client.close();
      await b.client.close();
    });
  });

  describe('eviction (MAX_SESSIONS)', () => {
    it('closes the least recently used session, ending its SSE stream; its next request re-creates it within the cap', async () => {
      const events: string[] = [];
      const server = await start({ maxSessions: 2, onSessionEvent: (e) => events.push(`${e.type}:${e.session.id}`) });
      const first = await openSession(server.mcpUrl);
      const stream = await openSseStream(server.mcpUrl, first);
      expect(stream.status).toBe(200);
      const second = await openSession(server.mcpUrl);
      expect((await ping(server.mcpUrl, first)).status).toBe(200); // first is now the most recently used
      await openSession(server.mcpUrl); // a third session evicts the idlest, `second`

      expect(events).toContain(`evicted:${second}`);
      expect(server.app.sessions.size).toBe(2);

      const fourth = await openSession(server.mcpUrl); // evicts `first`, the one with the open stream
      await ping(server.mcpUrl, fourth);
      await stream.ended; // resolves only when the server closes the stream
      expect(events).toContain(`evicted:${first}`);
      expect(server.app.sessions.size).toBe(2);
      // Eviction is harmless: the evicted session answers again, re-created from its id, and the cap holds.
      expect((await ping(server.mcpUrl, first)).status).toBe(200);
      expect(events.at(-1)).toBe(`created:${first}`);
      expect(server.app.sessions.size).toBe(2);
    });
  });

  describe('idle expiry (SESSION_IDLE_TTL)', () => {
    it('closes a session left idle past the TTL, ending its SSE stream; its next request re-creates it', async () => {
      const events: string[] = [];
      const server = await start({ sessionIdleTtlMs: 300, onSessionEvent: (e) => events.push(e.type) });
      const sessionId = await openSession(server.mcpUrl);
      const stream = await openSseStream(server.mcpUrl, sessionId);
      await stream.ended;
      expect(events).toEqual(['created', 'expired']);
      expect(server.app.sessions.size).toBe(0);
      expect((await ping(server.mcpUrl, sessionId)).status).toBe(200);
      expect(events).toEqual(['created', 'expired', 'created']);
    });

    it('keeps a session alive while it is used', async () => {
      const events: string[] = [];
      const server = await start({ sessionIdleTtlMs: 1000, onSessionEvent: (e) => events.push(e.type) });
      // The idle clock and its purge timers are faked: time moves only when the test moves it.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      try {
        await vi.advanceTimersByTimeAsync(1000); // off the fake clock's 0, which lru-cache reads as "no start"
        const sessionId = await openSession(server.mcpUrl);
        // Used every 600 ms for three times the TTL, it never expires.
        for (let used = 0; used < 5; used++) {
          await vi.advanceTimersByTimeAsync(600);
          expect((await ping(server.mcpUrl, sessionId)).status).toBe(200);
        }
        expect(events).toEqual(['created']);
        // Left idle past the TTL on the same clock, it does expire.
        await vi.advanceTimersByTimeAsync(1100);
        expect(events).toEqual(['created', 'expired']);
      } finally {
        vi.useRealTimers();
      }
    });
  });

  describe('readiness', () => {
    it('answers /healthz at once, /readyz 503 until the index is built, and holds tool calls until then', async () => {
      const server = await start({ buildIndex: false });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const notReady = await fetch(`${server.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toMatchObject({ status: 'starting' });

      const { client } = await connectClient(server.mcpUrl);
      let settled = false;
      const pending = client.callTool({ name: 'list_documents', arguments: {} }).finally(() => (settled = true));
      await eventually(() => server.waitingForIndex === 1, { what: 'the tool call held by the unbuilt index' });
      expect(settled).toBe(false);

      server.buildIndex();
      const result = await pending;
      expect((result.structuredContent as { total: number }).total).toBe(4);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { status: string; documents: number; chunks: number };
      expect(body).toMatchObject({ status: 'ready', documents: 4 });
      expect(body.chunks).toBeGreaterThan(4);
      await client.close();
    });
  });

  describe('DNS-rebinding protection', () => {
    const post = (url: string, headers: Record<string, string>) =>
      rawRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initializeBody()),
      });

    it.each(['evil.example', 'evil.example:8080', '127.0.0.1.evil.example', 'localhost.evil.example'])('refuses Host %j with 403 and creates no session', async (host) => {
      const server = await start();
      const response = await post(`${server.mcpUrl}`, { host });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Host') } });
      expect(server.app.sessions.size).toBe(0);
    });

    it('refuses a request without a Host header (Node answers 400 before the app runs)', async () => {
      const server = await start();
      expect((await post(`${server.mcpUrl}`, {})).status).toBe(400);
      expect(server.app.sessions.size).toBe(0);
    });

    it.each(['http://evil.example', 'null', 'https://localhost.evil.example:3000'])('refuses Origin %j with 403', async (origin) => {
      const server = await start();
      const response = await post(`${server.mcpUrl}`, { host: `127.0.0.1:${server.port}`, origin });
      expect(response.status).toBe(403);
      expect(response.body).toContain('Origin');
    });

    it.each([
      (port: number) => ({ host: `localhost:${port}` }),
      (port: number) => ({ host: `127.0.0.1:${port}`, origin: `http://localhost:${port}` }),
      (port: number) => ({ host: `[::1]:${port}` }),
      () => ({ host: 'docs.example.com', origin: 'https://docs.example.com' }),
    ])('accepts loopback names and the PUBLIC_URL host (%#)', async (headersFor) => {
      const server = await start({ publicUrl: 'https://docs.example.com' });
      const response = await post(`${server.mcpUrl}`, headersFor(server.port));
      expect(response.status).toBe(200);
      expect(response.body).toContain('"protocolVersion"');
    });

    it('leaves /healthz open to any Host (load-balancer probes use internal addresses)', async () => {
      const server = await start();
      expect((await rawRequest(`${server.url}/healthz`, { headers: { host: '10.0.0.7:8080' } })).status).toBe(200);
    });
  });

  describe('unknown routes', () => {
    it('answer 404 JSON pointing at /mcp', async () => {
      const server = await start();
      const response = await fetch(`${server.url}/nope`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'not_found', message: expect.stringContaining('/mcp') });
    });
  });
});
