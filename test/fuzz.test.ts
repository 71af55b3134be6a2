// Property-based fuzzing over a real socket: arbitrary JSON for every tool argument (through the SDK
// client, which also checks each result against the tool's output schema), and arbitrary bodies and
// JSON-RPC messages posted raw. Whatever arrives, the server answers with a 2xx/4xx and parseable JSON
// or SSE, never a 5xx, never a stack trace, never text from outside the index, within a bounded time,
// and keeps serving: a ping on the same session still works afterwards.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';
import { openSession } from './support/raw-mcp.js';
import { expectNoInternals, messagesOf, onSession, post } from './robustness-support.js';
import type { RawResponse } from './robustness-support.js';

const CANARY = 'CANARY-b41e07-outside-the-index';
/** Any single answer taking longer than this counts as a hang. Generous: the machine is shared. */
const ANSWER_WITHIN_MS = 15_000;

const FILES: Record<string, string> = {
  'guide.md': '# Guide\n\n## Sessions\n\nSessions expire after an idle timeout.\n\n## Tokens\n\nTokens are checked on every request.\n',
  'notes/東京.md': '# 東京\n\n東京都の天気は晴れ。 Café crème 🎂.\n',
  'notes/long.md': `# Long\n\n${'The lighthouse keeper trims the wick and logs the weather. '.repeat(300)}\n`,
  '.secret.md': `${CANARY}\n`,
};

const TOOL_ARGUMENTS: Record<string, readonly string[]> = {
  search_documents: ['query', 'top_k', 'path_prefix'],
  get_chunk: ['chunk_id'],
  get_document: ['source', 'offset', 'max_chars'],
  list_documents: ['path_prefix', 'cursor', 'limit'],
};

/** Values a careless or hostile client sends: any JSON, plus near-valid strings and numbers. */
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom('guide.md', 'guide.md#0', 'notes/東京.md#0', '../.secret.md', '.secret.md', '/etc/passwd', '', ' ', 'guide.md#'),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.constantFrom(0, -1, 1, 50, 51, 100_000, 100_001, Number.MAX_SAFE_INTEGER, 2 ** 53, 1e308, -0),
);

/** Arguments for one tool: any subset of its own names with hostile values, sometimes a stray key. */
const argumentsFor = (names: readonly string[]) =>
  fc.tuple(
    fc.record(Object.fromEntries(names.map((name) => [name, hostileValue])), { requiredKeys: [] }),
    fc.option(fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 2 }), { nil: undefined }),
  ).map(([own, stray]) => ({ ...stray, ...own }) as Record<string, unknown>);

const rpcMethods = fc.oneof(
  fc.constantFrom(
    'ping',
    'tools/list',
    'tools/call',
    'resources/list',
    'resources/read',
    'resources/templates/list',
    'resources/subscribe',
    'prompts/list',
    'prompts/get',
    'completion/complete',
    'logging/setLevel',
    'initialize',
    'notifications/initialized',
    'notifications/cancelled',
    'notifications/progress',
  ),
  fc.string({ maxLength: 40 }),
);

/** A JSON-RPC-shaped message with any method, id and params: the requests the SDK must route. */
const rpcMessage = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue({ maxDepth: 1 })),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
    method: rpcMethods,
    params: fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ name: fc.constantFrom(...Object.keys(TOOL_ARGUMENTS)), arguments: fc.jsonValue({ maxDepth: 2 }) }),
      fc.record({ uri: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('corpus://guide.md', 'file:///etc/passwd', 'corpus://../.secret.md')) }),
      fc.record({ cursor: fc.jsonValue({ maxDepth: 1 }) }),
      fc.record({ level: fc.jsonValue({ maxDepth: 1 }) }),
    ),
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);

/**
 * The resource URIs a request asked for: a not-found answer names the requested URI in `error.data`
 * (the specification asks it to), which is the caller's own text, not something the server revealed.
 */
function requestedUris(request: unknown): string[] {
  const messages = Array.isArray(request) ? request : [request];
  return messages.flatMap((m) => {
    const uri = (m as { params?: { uri?: unknown } } | null)?.params?.uri;
    return typeof uri === 'string' ? [JSON.stringify(uri)] : [];
  });
}

/** Checks what every raw answer must satisfy and returns it. `request`: what was sent, whose own URIs may be named back. */
function expectSane(response: RawResponse, request?: unknown): RawResponse {
  expect(response.status, response.text.slice(0, 300)).toBeLessThan(500);
  expect(response.text).not.toContain(CANARY);
  expectNoInternals(requestedUris(request).reduce((text, echo) => text.split(echo).join('"<requested uri>"'), response.text));
  if (response.text !== '') expect(() => messagesOf(response)).not.toThrow();
  return response;
}

describe('fuzzing', () => {
  let server: TestServer;
  let client: Client;
  let session: string;

  beforeAll(async () => {
    server = await startTestServer({ files: FILES });
    await writeFile(join(server.workDir, 'secret.txt'), CANARY);
    ({ client } = await connectClient(server.mcpUrl));
    await client.listTools(); // so the client checks every result against the tool's output schema
    session = await openSession(server.mcpUrl);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const pingStillWorks = async () => {
    const response = await post(server.mcpUrl, JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'ping' }), onSession(session));
    expect(response.status).toBe(200);
    expect(messagesOf(response)).toEqual([{ jsonrpc: '2.0', id: 'after', result: {} }]);
    await client.ping();
  };

  describe('tools/call with arbitrary arguments', () => {
    it.each(Object.entries(TOOL_ARGUMENTS))('%s answers a result that fits its schema or a tool error with a message, never a crash', async (tool, names) => {
      await fc.assert(
        fc.asyncProperty(argumentsFor(names), async (args) => {
          let result: CallToolResult;
          try {
            result = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: ANSWER_WITHIN_MS })) as CallToolResult;
          } catch (error) {
            // Arguments that are not an object at the JSON-RPC level are the SDK's to refuse.
            expect(error).toBeInstanceOf(McpError);
            expect((error as McpError).code).not.toBe(-32603);
            return;
          }
          const text = JSON.stringify(result);
          expect(text).not.toContain(CANARY);
          expect(result.content.length).toBeGreaterThan(0);
          if (result.isError) {
            const message = (result.content[0] as { text: string }).text;
            expect(message.length).toBeGreaterThan(20);
            expect(message).not.toMatch(/internal error/);
          } else {
            expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
          }
        }),
        { numRuns: 150 },
      );
      await pingStillWorks();
    });
  });

  describe('POST /mcp with arbitrary bodies', () => {
    it('answers any JSON value on a session with a sane response', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 4 }), async (value) => {
          expectSane(await post(server.mcpUrl, JSON.stringify(value), onSession(session), AbortSignal.timeout(ANSWER_WITHIN_MS)));
        }),
        { numRuns: 150 },
      );
      await pingStillWorks();
    });

    it('answers any string on a session and without one with a sane response', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 400 }), fc.boolean(), async (body, withSession) => {
          const headers = withSession ? onSession(session) : {};
          expectSane(await post(server.mcpUrl, body, headers, AbortSignal.timeout(ANSWER_WITHIN_MS)));
        }),
        { numRuns: 150 },
      );
      await pingStillWorks();
    });

    it('answers any JSON-RPC message, alone or batched, with a sane response and no text from outside the index', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(rpcMessage, fc.array(rpcMessage, { minLength: 1, maxLength: 3 })), async (message) => {
          expectSane(await post(server.mcpUrl, JSON.stringify(message), onSession(session), AbortSignal.timeout(ANSWER_WITHIN_MS)), message);
        }),
        { numRuns: 250 },
      );
      await pingStillWorks();
    });

    it('answers any JSON-RPC message without a session without opening one unless it is an initialize', async () => {
      await fc.assert(
        fc.asyncProperty(rpcMessage, async (message) => {
          const response = expectSane(await post(server.mcpUrl, JSON.stringify(message), {}, AbortSignal.timeout(ANSWER_WITHIN_MS)), message);
          if (message.method !== 'initialize') expect(response.headers.get('mcp-session-id')).toBeNull();
        }),
        { numRuns: 150 },
      );
      await pingStillWorks();
    });
  });
});
