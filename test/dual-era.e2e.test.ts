// End-to-end: one /mcp, two protocol eras, on a real socket. The SDK v2 client (2026-07-28) and the
// 1.x client (2025 sessions) talk to the same server and must get the same answers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client as V2Client } from '@modelcontextprotocol/client';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { request as httpRequest } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import type { ToolCallEvent } from '../src/mcp/mcp-service.js';
import { createTools } from '../src/mcp/tools/create-tools.js';
import { DEFAULT_TOOL_LIMITS } from '../src/mcp/tools/tool-limits.js';
import { eventually } from './support/eventually.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { SAMPLE_FILES, SAMPLE_SOURCES, writeCorpusFiles } from './support/sample-corpus.js';
import { loadCorpus } from '../src/corpus/load-corpus.js';
import { SearchIndex } from '../src/search/search-index.js';
import { connectV2Client, envelope, MODERN_VERSION, modernRequest } from './support/modern-mcp.js';
import { openSession, postMessage, rawRequest } from './support/raw-mcp.js';

type Structured = Record<string, unknown>;

/** The JSON-RPC result of a legacy request on a session (answered as SSE or JSON). */
function legacyResult(body: string): Structured {
  const data = body.includes('data:') ? body.split('\n').filter((l) => l.startsWith('data:')).at(-1)!.slice(5) : body;
  return (JSON.parse(data) as { result: Structured }).result;
}

/** Fields a result carries only in the 2026-07-28 era: cache hints, result type, server identity. */
const MODERN_ONLY_FIELDS = ['ttlMs', 'cacheScope', 'resultType', '_meta'];
const withoutModernFields = (result: Structured) => Object.fromEntries(Object.entries(result).filter(([key]) => !MODERN_ONLY_FIELDS.includes(key)));

/** Every tool with arguments that succeed on the sample corpus. */
const CALLS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['search_documents', { query: 'lighthouse keeper weather', top_k: 3 }],
  ['search_documents', { query: 'sourdough starter', path_prefix: 'guides/' }],
  ['get_chunk', { chunk_id: 'lighthouse.md#1' }],
  ['get_document', { source: 'guides/baking.md' }],
  ['get_document', { source: 'lighthouse.md', offset: 100, max_chars: 500 }],
  ['list_documents', {}],
  ['rerank_results', { query: 'weather and storm warnings', chunk_ids: ['lighthouse.md#0', 'lighthouse.md#1', 'guides/baking.md#0'] }],
];

async function structured(client: V1Client | V2Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Structured; content: unknown[] };
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent!;
}

describe('dual-era /mcp', () => {
  let server: TestServer;
  let modern: V2Client;
  let legacy: V1Client;

  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES });
    modern = await connectV2Client(server.mcpUrl, 'auto');
    ({ client: legacy } = await connectClient(server.mcpUrl));
  });
  afterAll(async () => {
    await modern?.close();
    await legacy?.close();
    await server?.close();
  });

  describe('the SDK v2 client in auto mode', () => {
    it('lands on the modern era (2026-07-28) and holds no session', () => {
      expect(modern.getProtocolEra()).toBe('modern');
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
      expect(server.app.sessions.size).toBe(1); // the legacy client's only
    });

    it('is exercised on every tool the server offers', async () => {
      const { tools } = await legacy.listTools();
      expect(new Set(CALLS.map(([name]) => name))).toEqual(new Set(tools.map((tool) => tool.name)));
    });

    it.each(CALLS)('calls %s and gets structured content', async (name, args) => {
      const out = await structured(modern, name, args);
      expect(Object.keys(out).length).toBeGreaterThan(0);
    });
  });

  describe('the 1.x client', () => {
    it('still speaks the legacy era, on a session', () => {
      expect(legacy.getServerVersion()?.name).toBe('corpus-mcp');
      expect(server.app.sessions.size).toBe(1);
    });
  });

  describe('both eras', () => {
    it.each(CALLS)('answer %s with the same structuredContent', async (name, args) => {
      expect(await structured(modern, name, args)).toEqual(await structured(legacy, name, args));
    });

    it('list the same resources and read the same text', async () => {
      const [m, l] = await Promise.all([modern.listResources(), legacy.listResources()]);
      expect(m.resources).toEqual(l.resources);
      expect(m.resources.map((r) => r.name)).toEqual(SAMPLE_SOURCES);
      const uri = m.resources[0]!.uri;
      expect((await modern.readResource({ uri })).contents).toEqual((await legacy.readResource({ uri })).contents);
    });
  });

  describe('modern resources', () => {
    it('answers an unknown resource with -32602 (2026-07-28), where the legacy era answers -32002', async () => {
      const answer = await modernRequest(server.mcpUrl, { method: 'resources/read', params: { uri: 'corpus:///nope.md' } });
      expect(answer.message?.error?.code).toBe(-32602);
      expect(answer.message?.error?.message).toMatch(/Resource not found: "corpus:\/\/\/nope\.md"/);
      await expect(legacy.readResource({ uri: 'corpus:///nope.md' })).rejects.toMatchObject({ code: -32002 });
    });

    it('names a URI of another scheme only in error.data, not in the message, in either era', async () => {
      const answer = await modernRequest(server.mcpUrl, { method: 'resources/read', params: { uri: 'file:///etc/passwd' } });
      expect(answer.message?.error).toMatchObject({ code: -32602, data: { uri: 'file:///etc/passwd' } });
      expect(answer.message?.error?.message).not.toContain('file:');
      const legacyError = await legacy.readResource({ uri: 'file:///etc/passwd' }).catch((e: unknown) => e as { code: number; message: string; data?: unknown });
      expect(legacyError).toMatchObject({ code: -32002, data: { uri: 'file:///etc/passwd' }, message: expect.stringMatching(/not a corpus:\/\/\/ URI/) });
      expect(legacyError.message).not.toContain('file:');
    });
  });

  describe('a client pinned to 2026-07-28', () => {
    it('connects without falling back and calls a tool', async () => {
      const pinned = await connectV2Client(server.mcpUrl, { pin: MODERN_VERSION });
      try {
        expect(pinned.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
        expect((await structured(pinned, 'search_documents', { query: 'tomatoes' })).results).toHaveLength(1);
      } finally {
        await pinned.close();
      }
    });
  });

  describe('tools/list', () => {
    it('is the same in both eras but for the fields only 2026-07-28 results carry', async () => {
      const sessionId = await openSession(server.mcpUrl);
      const legacyList = legacyResult((await postMessage(server.mcpUrl, sessionId, { jsonrpc: '2.0', id: 2, method: 'tools/list' })).body);
      const modernList = (await modernRequest(server.mcpUrl, { method: 'tools/list' })).message!.result!;
      expect(Object.keys(modernList)).toEqual(expect.arrayContaining(['ttlMs', 'cacheScope']));
      expect(withoutModernFields(modernList)).toEqual(legacyList);
      expect((legacyList.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(createTools(DEFAULT_TOOL_LIMITS).map((t) => t.name));
    });

    it('publishes JSON Schema in the default dialect (2020-12), so undeclared, for every input and output', async () => {
      const { tools } = await legacy.listTools();
      for (const tool of tools) {
        expect(tool.inputSchema).not.toHaveProperty('$schema');
        expect(tool.outputSchema).not.toHaveProperty('$schema');
        expect(tool.outputSchema?.type).toBe('object');
      }
    });
  });

  describe('server/discover', () => {
    it('lists only the modern versions, offers tools and resources but not logging, and carries cache hints', async () => {
      const { status, message } = await modernRequest(server.mcpUrl, { method: 'server/discover' });
      expect(status).toBe(200);
      const result = message!.result!;
      expect(result.supportedVersions).toEqual([MODERN_VERSION]);
      expect(result.capabilities).toEqual({ tools: {}, resources: { listChanged: true } });
      expect(result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    });

    it('leaves 2025-11-25 to initialize, which still offers logging', async () => {
      const response = await fetch(server.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
      });
      const result = legacyResult(await response.text());
      expect(result.protocolVersion).toBe('2025-11-25');
      expect(result.capabilities).toMatchObject({ logging: {} });
    });

    it('does not offer deprecated logging to modern clients: logging/setLevel is not served', async () => {
      const { message } = await modernRequest(server.mcpUrl, { method: 'logging/setLevel', params: { level: 'debug' } });
      expect(message?.error?.code).toBeLessThan(0);
      expect(message?.result).toBeUndefined();
    });
  });

  describe('cache hints', () => {
    it.each([
      ['tools/list', {}],
      ['resources/list', {}],
      ['resources/read', { uri: 'corpus:///guides/baking.md' }],
    ])('%s carries ttlMs and cacheScope', async (method, params) => {
      const { message } = await modernRequest(server.mcpUrl, { method, params });
      expect(message!.result).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    });
  });

  describe('the revision\'s refusals', () => {
    it('answers an Mcp-Method header that contradicts the body with 400 and -32020', async () => {
      const answer = await modernRequest(server.mcpUrl, { method: 'tools/list', headers: { 'mcp-method': 'resources/list' } });
      expect(answer.status).toBe(400);
      expect(answer.message?.error?.code).toBe(-32020);
    });

    it('answers an Mcp-Name header that contradicts the tool named in the body with 400 and -32020', async () => {
      const answer = await modernRequest(server.mcpUrl, {
        method: 'tools/call',
        params: { name: 'get_chunk', arguments: { chunk_id: 'lighthouse.md#0' } },
        headers: { 'mcp-name': 'search_documents' },
      });
      expect(answer.status).toBe(400);
      expect(answer.message?.error?.code).toBe(-32020);
    });

    it('answers an unsupported protocol version with 400, -32022 and the supported list', async () => {
      const answer = await modernRequest(server.mcpUrl, { method: 'tools/list', version: '2099-01-01' });
      expect(answer.status).toBe(400);
      expect(answer.message?.error?.code).toBe(-32022);
      expect(answer.message?.error?.data).toMatchObject({ supported: [MODERN_VERSION], requested: '2099-01-01' });
    });
  });
});

describe('dual-era /mcp: the front door applies to modern requests too', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES, maxBodyBytes: 4096 });
  });
  afterAll(async () => {
    await server?.close();
  });

  const modernBody = (padding = '') =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...envelope(), padding } } });
  const modernHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' };

  it('answers a foreign Host with 403 before the modern handler runs', async () => {
    const refused = await rawRequest(server.mcpUrl.href, { method: 'POST', headers: { ...modernHeaders, host: 'evil.example.com' }, body: modernBody() });
    expect(refused.status).toBe(403);
    const served = await rawRequest(server.mcpUrl.href, { method: 'POST', headers: { ...modernHeaders, host: `127.0.0.1:${server.port}` }, body: modernBody() });
    expect(served.status).toBe(200);
  });

  it('answers a modern body over MAX_BODY_BYTES with 413', async () => {
    const answer = await fetch(server.mcpUrl, { method: 'POST', headers: modernHeaders, body: modernBody('x'.repeat(5000)) });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toMatchObject({ error: { message: expect.stringMatching(/must not exceed 4096 bytes/) } });
  });
});

describe('dual-era /mcp: modern resources page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES, toolLimits: { maxPageSize: 3 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('pages resources/list with nextCursor and refuses a cursor it did not issue with -32602', async () => {
    const first = (await modernRequest(server.mcpUrl, { method: 'resources/list' })).message!.result!;
    expect((first.resources as Array<{ name: string }>).map((r) => r.name)).toEqual(SAMPLE_SOURCES.slice(0, 3));
    const second = (await modernRequest(server.mcpUrl, { method: 'resources/list', params: { cursor: first.nextCursor } })).message!.result!;
    expect((second.resources as Array<{ name: string }>).map((r) => r.name)).toEqual(SAMPLE_SOURCES.slice(3));
    expect(second.nextCursor).toBeUndefined();
    const bad = await modernRequest(server.mcpUrl, { method: 'resources/list', params: { cursor: 'forged' } });
    expect(bad.message?.error?.code).toBe(-32602);
    expect(bad.message?.error?.message).toMatch(/cursor "forged" was not issued by this server/);
  });
});

describe('dual-era /mcp: the in-flight bound is per principal in the modern era', () => {
  let server: TestServer;
  // Stands in for authentication: the principal is whoever the test says, so the bound can be filled
  // for one principal and seen not to touch another. Authentication itself is tested elsewhere.
  const asPrincipal: MiddlewareHandler = async (c, next) => {
    const id = c.req.header('x-test-principal') ?? 'nobody';
    c.set('principal', { id, kind: 'static', scopes: [] });
    c.set('authInfo', { token: '', clientId: id, scopes: [] });
    await next();
  };
  const calls: ToolCallEvent[] = [];
  beforeAll(async () => {
    // Unbuilt index: tool calls wait for it, so they stay in flight until the test builds it.
    server = await startTestServer({
      files: SAMPLE_FILES,
      buildIndex: false,
      maxConcurrentPerPrincipal: 2,
      listenStreams: { maxPerPrincipal: 1 },
      authenticate: asPrincipal,
      onToolCall: (event) => calls.push(event),
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a principal past the bound with 429 and Retry-After, while another principal is served', async () => {
    const call = (principal: string, id: number) =>
      modernRequest(server.mcpUrl, { method: 'tools/call', params: { name: 'list_documents', arguments: {} }, headers: { 'x-test-principal': principal }, id });
    const waiting = [call('alice', 1), call('alice', 2)];
    await eventually(() => server.waitingForIndex === 2, { what: "alice's two calls held by the unbuilt index" });
    const refused = await call('alice', 3);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.message?.error?.message).toMatch(/this principal already has 2 requests in progress/);
    const bob = call('bob', 4);
    server.buildIndex();
    for (const answer of [...(await Promise.all(waiting)), await bob]) {
      expect(answer.status).toBe(200);
      expect(answer.message?.result?.isError).toBeFalsy();
    }
    expect((await call('alice', 5)).status).toBe(200); // the slots were released
  });

  it('bounds listen streams per principal, apart from its requests', async () => {
    const [alice, bob] = [await connectV2Client(server.mcpUrl, 'auto', { 'x-test-principal': 'alice' }), await connectV2Client(server.mcpUrl, 'auto', { 'x-test-principal': 'bob' })];
    try {
      const listening = await alice.listen({ resourcesListChanged: true });
      const refused = await modernRequest(server.mcpUrl, { method: 'subscriptions/listen', params: { notifications: { resourcesListChanged: true } }, headers: { 'x-test-principal': 'alice' } });
      expect(refused.status).toBe(429);
      expect(refused.message?.error?.message).toMatch(/this principal already has 1 subscriptions\/listen streams open \(the limit is 1\)/);
      expect((await modernRequest(server.mcpUrl, { method: 'tools/list', headers: { 'x-test-principal': 'alice' } })).status).toBe(200);
      expect((await bob.listen({ resourcesListChanged: true })).honoredFilter).toEqual({ resourcesListChanged: true });
      await listening.close();
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('hands the principal to the tool handler as authInfo', () => {
    expect(calls.map((event) => [event.era, event.authInfo?.clientId]).sort()).toEqual([
      ['modern', 'alice'],
      ['modern', 'alice'],
      ['modern', 'alice'],
      ['modern', 'bob'],
    ]);
  });
});

describe('dual-era /mcp: a reload, the modern way', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('tells a modern client listening on subscriptions/listen that the resource list changed, and the new list has the new document', async () => {
    const client = await connectV2Client(server.mcpUrl, 'auto');
    try {
      let resolveChanged!: () => void;
      const changed = new Promise<void>((resolve) => (resolveChanged = resolve));
      client.setNotificationHandler('notifications/resources/list_changed', () => resolveChanged());
      const subscription = await client.listen({ resourcesListChanged: true });
      expect(subscription.honoredFilter).toMatchObject({ resourcesListChanged: true });

      await writeCorpusFiles(server.corpusDir, { 'guides/new.md': '# Brand new\n\nA document added before the reload.\n' });
      const corpus = await loadCorpus(server.corpusDir);
      server.holder.set({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
      // A bound on a hang, not a measure: generous for a busy machine.
      await Promise.race([changed, new Promise((_, reject) => setTimeout(() => reject(new Error('no notifications/resources/list_changed within 20 s of the reload')), 20_000))]);

      const listed = await modernRequest(server.mcpUrl, { method: 'resources/list' });
      expect((listed.message!.result!.resources as Array<{ name: string }>).map((r) => r.name)).toContain('guides/new.md');
      await subscription.close();
    } finally {
      await client.close();
    }
  });
});

describe('dual-era /mcp: subscriptions/listen streams are bounded on their own, outside the request budget', () => {
  const LISTEN_CAP = 40;
  let server: TestServer;
  let listener: V2Client;
  const subscriptions: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    // Authentication off: every client here is one anonymous address (127.0.0.1). The request budget
    // is smaller than the number of streams, so streams counted as requests would exhaust it.
    server = await startTestServer({ files: SAMPLE_FILES, maxConcurrentPerAddress: 32, listenStreams: { maxPerAddress: LISTEN_CAP } });
    listener = await connectV2Client(server.mcpUrl, 'auto');
  });
  afterAll(async () => {
    await Promise.all(subscriptions.map((s) => s.close()));
    await listener?.close();
    await server?.close();
  });

  it(`holds ${LISTEN_CAP} idle listen streams, and a new SDK v2 client in auto mode still lands on the modern era`, async () => {
    const opened = await Promise.all(Array.from({ length: LISTEN_CAP }, () => listener.listen({ resourcesListChanged: true })));
    subscriptions.push(...opened);
    for (const subscription of opened) expect(subscription.honoredFilter).toEqual({ resourcesListChanged: true });

    const newcomer = await connectV2Client(server.mcpUrl, 'auto');
    try {
      expect(newcomer.getProtocolEra()).toBe('modern');
      expect(newcomer.getNegotiatedProtocolVersion()).toBe(MODERN_VERSION);
      expect((await structured(newcomer, 'search_documents', { query: 'tomatoes' })).results).toHaveLength(1);
    } finally {
      await newcomer.close();
    }
  });

  it('answers one listen stream more than the cap with 429 and a message naming the cap', async () => {
    const refused = await modernRequest(server.mcpUrl, { method: 'subscriptions/listen', params: { notifications: { resourcesListChanged: true } }, id: 'one-too-many' });
    expect(refused.status).toBe(429);
    expect(refused.message?.error?.message).toMatch(
      new RegExp(`^Too Many Requests: this client address \\(authentication is off\\) already has ${LISTEN_CAP} subscriptions/listen streams open \\(the limit is ${LISTEN_CAP}\\); close one`),
    );
    await expect(listener.listen({ resourcesListChanged: true })).rejects.toThrow();
    // Requests are served all the while.
    expect((await modernRequest(server.mcpUrl, { method: 'tools/list' })).status).toBe(200);
  });

  it('frees a stream\'s place when its client closes it', async () => {
    await subscriptions.pop()!.close();
    const reopened = await vi.waitFor(() => listener.listen({ resourcesListChanged: true }), { timeout: 10_000, interval: 100 });
    subscriptions.push(reopened);
    expect(reopened.honoredFilter).toEqual({ resourcesListChanged: true });
  });
});

describe('dual-era /mcp: an idle listen stream', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ files: SAMPLE_FILES, listenStreams: { idleMs: 300, maxPerAddress: 1 } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is ended gracefully after its idle lifetime, which frees its place, and the client may listen again', async () => {
    const client = await connectV2Client(server.mcpUrl, 'auto');
    try {
      const first = await client.listen({ resourcesListChanged: true });
      expect(await first.closed).toBe('graceful');
      const again = await vi.waitFor(() => client.listen({ resourcesListChanged: true }), { timeout: 10_000, interval: 100 });
      expect(again.honoredFilter).toEqual({ resourcesListChanged: true });
      await again.close();
    } finally {
      await client.close();
    }
  });
});

/**
 * A modern request sent from the given loopback address (all of 127.0.0.0/8 reaches the server),
 * answered once its status and first bytes are in; `close()` drops the connection.
 */
function modernRequestFrom(localAddress: string, url: URL, method: string, params: Record<string, unknown>, id: number | string) {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope() } });
  return new Promise<{ status: number; firstChunk: string; close(): void }>((resolve, reject) => {
    const request = httpRequest(url, {
      method: 'POST',
      localAddress,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': method,
        ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      },
    });
    request.on('response', (response) => {
      response.once('data', (chunk: Buffer) => resolve({ status: response.statusCode!, firstChunk: chunk.toString(), close: () => request.destroy() }));
      response.once('error', () => {});
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('dual-era /mcp: with authentication off, budgets are per client address', () => {
  let server: TestServer;
  /** Requests routed so far: a request is counted against its budget in the same turn as it is routed. */
  let routed = 0;
  beforeAll(async () => {
    // Unbuilt index: tool calls wait for it, so they stay in flight until the test builds it.
    server = await startTestServer({
      files: SAMPLE_FILES,
      buildIndex: false,
      maxConcurrentPerAddress: 1,
      listenStreams: { maxPerAddress: 1 },
      onRequestEra: () => void routed++,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses an address past its request bound with 429, while another address is served', async () => {
    const call = (from: string, id: number) => modernRequestFrom(from, server.mcpUrl, 'tools/call', { name: 'list_documents', arguments: {} }, id);
    const waiting = call('127.0.0.1', 1);
    await vi.waitFor(() => expect(routed).toBe(1));
    const refused = await call('127.0.0.1', 2);
    expect(refused.status).toBe(429);
    expect(refused.firstChunk).toMatch(/this client address \(authentication is off\) already has 1 requests in progress \(the limit is 1\)/);
    const other = call('127.0.0.2', 3);
    await vi.waitFor(() => expect(routed).toBe(3)); // in flight beside the first, not refused
    server.buildIndex();
    expect((await waiting).status).toBe(200);
    expect((await other).status).toBe(200);
  });

  it('refuses an address past its listen-stream bound with 429, while another address listens', async () => {
    const listen = (from: string, id: string) => modernRequestFrom(from, server.mcpUrl, 'subscriptions/listen', { notifications: { resourcesListChanged: true } }, id);
    const first = await listen('127.0.0.1', 'listen:a');
    expect(first.status).toBe(200);
    expect(first.firstChunk).toContain('notifications/subscriptions/acknowledged');
    const refused = await listen('127.0.0.1', 'listen:b');
    expect(refused.status).toBe(429);
    expect(refused.firstChunk).toMatch(/this client address \(authentication is off\) already has 1 subscriptions\/listen streams open \(the limit is 1\)/);
    const other = await listen('127.0.0.2', 'listen:c');
    expect(other.status).toBe(200);
    for (const answer of [first, refused, other]) answer.close();
  });
});
