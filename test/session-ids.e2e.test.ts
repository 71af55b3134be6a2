// Self-contained session ids against real listening servers: a process that never saw a session
// re-creates it from its id when it shares the secret, and refuses (404, nothing created) every id
// that is forged, altered, expired, revoked or another principal's. And the stateless mode.
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { loadConfig } from '../src/config/load-config.js';
import { createAuthentication } from '../src/http/authentication.js';
import type { SessionEvent } from '../src/mcp/sessions/session-registry.js';
import type { SharedRevocations } from '../src/mcp/sessions/session-revocations.js';
import { createSessionTokens } from '../src/mcp/sessions/session-token.js';
import { initializeBody, openSession, openSseStream, ping, postMessage, PROTOCOL_VERSION } from './support/raw-mcp.js';
import { SAMPLE_FILES } from './support/sample-corpus.js';
import { connectClient, startTestServer } from './support/test-server.js';
import { startProtectedServer } from './support/protected-server.js';
import type { TestServer, TestServerOptions } from './support/test-server.js';

const SECRET = 'shared-session-secret-for-tests-0123456789';
const TOKEN_A = 'a'.repeat(40);
const TOKEN_B = 'b'.repeat(40);

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server that records every session it creates. */
async function start(options: TestServerOptions = {}): Promise<TestServer & { created: string[] }> {
  const created: string[] = [];
  const server = await startTestServer({
    files: SAMPLE_FILES,
    ...options,
    onSessionEvent: (e: SessionEvent) => {
      if (e.type === 'created') created.push(e.session.id);
    },
  });
  servers.push(server);
  return Object.assign(server, { created });
}

const withAuth = () => createAuthentication({ auth: loadConfig({ AUTH_TOKENS: `${TOKEN_A},${TOKEN_B}` }).auth }).authenticate!;

async function post(url: URL, token: string | undefined, sessionId: string | undefined, body: unknown, method = 'POST') {
  const response = await fetch(url, {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION } : {}),
    },
    ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

async function openAs(url: URL, token: string): Promise<string> {
  const init = await post(url, token, undefined, initializeBody());
  expect(init.status).toBe(200);
  const id = init.headers.get('mcp-session-id')!;
  expect((await post(url, token, id, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  return id;
}

const PING = { jsonrpc: '2.0', id: 9, method: 'ping' };

/** The id with one character of its authentication tag changed. Not its last: base64url's last character
 * carries unused bits, so some changes there decode to the same bytes. */
function tampered(sessionId: string): string {
  const at = sessionId.length - 5;
  return `${sessionId.slice(0, at)}${sessionId[at] === 'A' ? 'B' : 'A'}${sessionId.slice(at + 1)}`;
}

describe('self-contained session ids', () => {
  it('a second process with the same secret serves a session it never saw, with the client it was opened by', async () => {
    const a = await start({ sessionSecret: SECRET });
    const b = await start({ sessionSecret: SECRET });
    const { client, transport } = await connectClient(a.mcpUrl, 'roaming-client');
    const sessionId = transport.sessionId!;
    expect(b.app.sessions.size).toBe(0);

    const call = await postMessage(b.mcpUrl, sessionId, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_documents', arguments: {} } });
    expect(call.status).toBe(200);
    expect(call.body).toContain('lighthouse.md');
    expect(b.created).toEqual([sessionId]);
    const restored = b.app.sessions.peek(sessionId)!;
    // The re-created server knows the client exactly as the original does.
    expect(restored.server.getClientVersion()).toEqual({ name: 'roaming-client', version: '1.0.0' });
    expect(restored.server.getClientCapabilities()).toEqual(a.app.sessions.peek(sessionId)!.server.getClientCapabilities());
    // Later requests use the re-created session; nothing is created twice.
    expect((await ping(b.mcpUrl, sessionId)).status).toBe(200);
    expect(b.created).toEqual([sessionId]);
    await client.close();
  });

  it('re-creates a session once when its first requests on a process arrive together', async () => {
    const a = await start({ sessionSecret: SECRET });
    const b = await start({ sessionSecret: SECRET });
    const sessionId = await openSession(a.mcpUrl);
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => ping(b.mcpUrl, sessionId, i)));
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(b.created).toEqual([sessionId]);
    expect(b.app.sessions.size).toBe(1);
  });

  it('opens a GET stream for a session it never saw', async () => {
    const a = await start({ sessionSecret: SECRET });
    const b = await start({ sessionSecret: SECRET });
    const sessionId = await openSession(a.mcpUrl);
    const stream = await openSseStream(b.mcpUrl, sessionId);
    expect(stream.status).toBe(200);
    await stream.cancel();
  });

  describe('refuses with 404 and creates nothing', () => {
    it('an id made with another secret (forged)', async () => {
      const forged = (await createSessionTokens({ secret: 'an-attacker-secret-of-at-least-32-chars!', maxAgeSeconds: 3600 }).issue({ principal: undefined, protocolVersion: PROTOCOL_VERSION, clientInfo: { name: 'x', version: '1' }, capabilities: {} })).id;
      const b = await start({ sessionSecret: SECRET });
      const answer = await ping(b.mcpUrl, forged);
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: -32001 } });
      expect(b.created).toEqual([]);
    });

    it('an id of another process without a shared secret (each makes its own)', async () => {
      const a = await start();
      const b = await start();
      const sessionId = await openSession(a.mcpUrl);
      expect((await ping(b.mcpUrl, sessionId)).status).toBe(404);
      expect(b.created).toEqual([]);
    });

    it.each([0, 2, 3, 4])('an id with part %i altered (tampered)', async (part) => {
      const a = await start({ sessionSecret: SECRET });
      const b = await start({ sessionSecret: SECRET });
      const parts = (await openSession(a.mcpUrl)).split('.');
      const bytes = Buffer.from(parts[part]!, 'base64url');
      bytes[bytes.length >> 1] = bytes[bytes.length >> 1]! ^ 0x20;
      parts[part] = bytes.toString('base64url');
      expect((await ping(b.mcpUrl, parts.join('.'))).status).toBe(404);
      expect(b.created).toEqual([]);
    });

    it('an expired id, live or not: SESSION_MAX_AGE bounds a session\'s life everywhere', async () => {
      // Session ids read the time from Date: moved by hand rather than waited for.
      vi.useFakeTimers({ toFake: ['Date'] });
      onTestFinished(() => void vi.useRealTimers());
      const a = await start({ sessionSecret: SECRET, sessionMaxAgeSeconds: 1 });
      const b = await start({ sessionSecret: SECRET, sessionMaxAgeSeconds: 1 });
      const sessionId = await openSession(a.mcpUrl);
      expect((await ping(a.mcpUrl, sessionId)).status).toBe(200);
      vi.advanceTimersByTime(2100);
      expect((await ping(b.mcpUrl, sessionId)).status).toBe(404);
      expect(b.created).toEqual([]);
      // The process holding it live ends it too.
      expect((await ping(a.mcpUrl, sessionId)).status).toBe(404);
      expect(a.app.sessions.size).toBe(0);
    });

    it('another principal\'s id, on a process that holds it and on one that does not', async () => {
      const a = await start({ sessionSecret: SECRET, authenticate: withAuth() });
      const b = await start({ sessionSecret: SECRET, authenticate: withAuth() });
      const sessionId = await openAs(a.mcpUrl, TOKEN_A);
      for (const server of [a, b]) {
        const refused = await post(server.mcpUrl, TOKEN_B, sessionId, PING);
        const unknown = await post(server.mcpUrl, TOKEN_B, 'no-such-session', PING);
        expect(refused.status).toBe(404);
        expect(refused.body).toBe(unknown.body);
      }
      expect(b.created).toEqual([]);
      // Its owner is served by either.
      expect((await post(b.mcpUrl, TOKEN_A, sessionId, PING)).status).toBe(200);
      expect(b.created).toEqual([sessionId]);
    });
  });

  describe('DELETE', () => {
    it('ends the session for good in this process: its id no longer re-creates it here', async () => {
      const a = await start({ sessionSecret: SECRET });
      const { client, transport } = await connectClient(a.mcpUrl);
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      expect((await ping(a.mcpUrl, sessionId)).status).toBe(404);
      expect(a.created).toEqual([sessionId]);
      await client.close();
    });

    it('of a session this process does not hold revokes it without re-creating it', async () => {
      const a = await start({ sessionSecret: SECRET });
      const b = await start({ sessionSecret: SECRET });
      const sessionId = await openSession(a.mcpUrl);
      expect((await post(b.mcpUrl, undefined, sessionId, undefined, 'DELETE')).status).toBe(200);
      expect(b.created).toEqual([]);
      expect((await ping(b.mcpUrl, sessionId)).status).toBe(404);
      expect(b.created).toEqual([]);
    });

    it('revokes the id before the session closes, so a request racing it on another process cannot re-create the session', async () => {
      // One record of revocations shared by both processes, as PostgreSQL is for replicas. A revocation
      // asked for after the session has already closed is held back until the racing request has been
      // answered: that is the window in which a request finds the id neither live nor revoked.
      const revoked = new Set<string>();
      let closedOnA = false;
      let sessionClosed!: () => void;
      const closed = new Promise<void>((resolve) => (sessionClosed = resolve));
      let racingAnswered!: () => void;
      const answered = new Promise<void>((resolve) => (racingAnswered = resolve));
      const sharedRevocations: SharedRevocations = {
        async revoke(key) {
          if (closedOnA) await answered;
          revoked.add(key);
        },
        isRevoked: async (key) => revoked.has(key),
      };
      const a = await startTestServer({
        files: SAMPLE_FILES,
        sessionSecret: SECRET,
        sharedRevocations,
        onSessionEvent: (e: SessionEvent) => {
          if (e.type !== 'deleted') return;
          closedOnA = true;
          sessionClosed();
        },
      });
      servers.push(a);
      const b = await start({ sessionSecret: SECRET, sharedRevocations });
      const sessionId = await openSession(a.mcpUrl);

      const deleting = post(a.mcpUrl, undefined, sessionId, undefined, 'DELETE');
      await closed;
      const racing = await ping(b.mcpUrl, sessionId);
      racingAnswered();
      expect(racing.status).toBe(404);
      expect(b.created).toEqual([]);
      expect((await deleting).status).toBe(200);
      expect((await ping(a.mcpUrl, sessionId)).status).toBe(404);
    });

    it('ends the session even when the transport refuses the DELETE, since its id is already revoked', async () => {
      const a = await start({ sessionSecret: SECRET });
      const sessionId = await openSession(a.mcpUrl);
      const refused = await fetch(a.mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': '1999-01-01' } });
      expect(refused.status).toBe(400);
      expect(a.app.sessions.size).toBe(0);
      expect((await ping(a.mcpUrl, sessionId)).status).toBe(404);
      expect(a.created).toEqual([sessionId]);
    });

    it('by another principal is refused and leaves the session usable by its owner', async () => {
      const a = await start({ sessionSecret: SECRET, authenticate: withAuth() });
      const b = await start({ sessionSecret: SECRET, authenticate: withAuth() });
      const sessionId = await openAs(a.mcpUrl, TOKEN_A);
      expect((await post(b.mcpUrl, TOKEN_B, sessionId, undefined, 'DELETE')).status).toBe(404);
      expect((await post(a.mcpUrl, TOKEN_B, sessionId, undefined, 'DELETE')).status).toBe(404);
      expect((await post(b.mcpUrl, TOKEN_A, sessionId, PING)).status).toBe(200);
      expect((await post(a.mcpUrl, TOKEN_A, sessionId, PING)).status).toBe(200);
    });
  });
});

describe('configured from the environment', () => {
  it('two servers with the same SESSION_SECRET share sessions; /metrics counts re-created and refused ids; no id reaches the log', async () => {
    const env = { AUTH_TOKENS: TOKEN_A, SESSION_SECRET: SECRET };
    const [a, b] = [await startProtectedServer(env), await startProtectedServer(env)];
    try {
      const sessionId = await openAs(a.mcpUrl, TOKEN_A);
      expect((await post(b.mcpUrl, TOKEN_A, sessionId, PING)).status).toBe(200);
      expect((await post(b.mcpUrl, TOKEN_A, tampered(sessionId), PING)).status).toBe(404);
      expect((await post(b.mcpUrl, TOKEN_A, 'not-a-token', PING)).status).toBe(404);
      const metrics = await (await fetch(`${b.url}/metrics`)).text();
      expect(metrics).toContain('corpus_mcp_session_ids_total{outcome="restored"} 1');
      expect(metrics).toContain('corpus_mcp_session_ids_total{outcome="invalid"} 1');
      expect(metrics).toContain('corpus_mcp_session_ids_total{outcome="malformed"} 1');
      for (const server of [a, b]) {
        expect(server.rawLog()).toContain('"session_id"');
        expect(server.rawLog()).not.toContain(sessionId);
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it.each([
    ['a HOST other machines reach', { HOST: '0.0.0.0', PUBLIC_URL: 'https://docs.example.com' }, 'HOST=0.0.0.0 is not loopback'],
    ['DATABASE_URL', { DATABASE_URL: 'postgres://corpus@127.0.0.1:5432/corpus' }, 'DATABASE_URL is set'],
  ])('warns at boot when SESSION_SECRET is not set with %s, and not when it is', async (_name, env, why) => {
    const without = await startProtectedServer({ AUTH_TOKENS: TOKEN_A, ...env });
    const withSecret = await startProtectedServer({ AUTH_TOKENS: TOKEN_A, SESSION_SECRET: SECRET, ...env });
    try {
      expect(without.rawLog()).toContain(`SESSION_SECRET is not set and ${why}`);
      expect(withSecret.rawLog()).not.toContain('SESSION_SECRET is not set');
      expect(withSecret.rawLog()).not.toContain(SECRET);
    } finally {
      await Promise.all([without.close(), withSecret.close()]);
    }
  });

  it('does not warn about SESSION_SECRET for one process on loopback without DATABASE_URL', async () => {
    const local = await startProtectedServer({ AUTH_TOKENS: TOKEN_A });
    try {
      expect(local.config.host).toBe('127.0.0.1');
      expect(local.rawLog()).not.toContain('SESSION_SECRET');
    } finally {
      await local.close();
    }
  });
});

describe('MCP_SESSIONS=off (stateless)', () => {
  it('serves an SDK client with no session id, a fresh server per request', async () => {
    const server = await start({ sessionsEnabled: false });
    const { client, transport } = await connectClient(server.mcpUrl);
    expect(transport.sessionId).toBeUndefined();
    const result = await client.callTool({ name: 'search_documents', arguments: { query: 'lighthouse' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('lighthouse.md');
    expect(server.app.sessions.size).toBe(0);
    expect(server.created).toEqual([]);
    await client.close();
  });

  it('answers a request without initialize first, as any replica must', async () => {
    const server = await start({ sessionsEnabled: false });
    const answer = await post(server.mcpUrl, undefined, undefined, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_documents', arguments: {} } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('mcp-session-id')).toBeNull();
    expect(answer.body).toContain('lighthouse.md');
  });

  it.each(['GET', 'DELETE'])('answers %s with 405 and Allow: POST', async (method) => {
    const server = await start({ sessionsEnabled: false });
    const response = await fetch(server.mcpUrl, { method, headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ error: { message: expect.stringContaining('MCP_SESSIONS=off') } });
  });

  it('answers a body that is not JSON with a parse error', async () => {
    const server = await start({ sessionsEnabled: false });
    const response = await fetch(server.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });
});
