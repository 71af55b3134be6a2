// What the robustness suites add to the raw MCP helpers: a POST whose body and headers are sent
// exactly as given (what a careless or hostile client does), the messages of an answer whether it
// came as JSON or SSE, and the check that no answer betrays the server's internals.
import { expect } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MCP_HEADERS } from './support/mcp-post.js';
import { initializeBody, PROTOCOL_VERSION } from './support/raw-mcp.js';

export const INITIALIZE = JSON.stringify(initializeBody());

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** POST to /mcp with the well-formed headers, overridden by `headers`; the body is sent as given. */
export async function post(mcpUrl: URL | string, body: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<RawResponse> {
  const response = await fetch(mcpUrl, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body, signal });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** Headers for a request on an open session. */
export const onSession = (id: string): Record<string, string> => ({ 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL_VERSION });

/** The JSON-RPC messages of a response (fetch's or supertest's), whether it came as JSON or as an SSE stream. */
export function messagesOf(response: { text: string; headers: Headers | Record<string, string | undefined> }): Array<Record<string, unknown>> {
  const { headers } = response;
  const contentType = headers instanceof Headers ? headers.get('content-type') : headers['content-type'];
  if ((contentType ?? '').includes('text/event-stream')) {
    return response.text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
  }
  const parsed = JSON.parse(response.text) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]) as Array<Record<string, unknown>>;
}

/** Text that would betray the server's internals: a stack frame, a file system path, a dependency. */
const INTERNALS = [/\bat [\w.<>$]+ \(/, /\n\s+at /, /\/work\//, /node_modules/, /\/home\//, /\/tmp\//, /file:\/\/\//, /\.[cm]?[jt]s:\d+/];

/** Asserts that a response body shows no stack trace or internal path. */
export function expectNoInternals(text: string): void {
  for (const pattern of INTERNALS) expect(text, `response leaks internals (${pattern}): ${text.slice(0, 300)}`).not.toMatch(pattern);
}

/** Written outside the corpus and in files the loader skips: must never reach a client. */
export const CANARY = 'CANARY-7f3a9c-outside-the-index';

type Args = Record<string, unknown>;

/**
 * Tool calls through `invoke` (the service itself, or a client over HTTP), each checked to carry no
 * CANARY and no internals: `call` returns the result, `ok` its structured content (no tool error),
 * `refused` the message of the tool error it must be.
 */
export function checkedToolCalls(invoke: (name: string, args: Args) => Promise<CallToolResult>) {
  const call = async (name: string, args: Args): Promise<CallToolResult> => {
    const result = await invoke(name, args);
    expect(JSON.stringify(result)).not.toContain(CANARY);
    // Messages echo the offending value (which may itself be a path); anything else must not be internal.
    let text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    for (const value of Object.values(args)) if (typeof value === 'string') text = text.split(value.slice(0, 200)).join('');
    expectNoInternals(text);
    return result;
  };
  const ok = async (name: string, args: Args): Promise<Record<string, unknown>> => {
    const result = await call(name, args);
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  };
  const refused = async (name: string, args: Args): Promise<string> => {
    const result = await call(name, args);
    expect(result.isError, `expected ${name}(${JSON.stringify(args).slice(0, 100)}) to be refused`).toBe(true);
    return (result.content[0] as { text: string }).text;
  };
  return { call, ok, refused };
}
