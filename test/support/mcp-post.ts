// One MCP POST through supertest, for tests that assert on the status, headers and body of a single
// answer from the app's Node server. supertest sends the headers as written: a `Host` as given, which
// fetch replaces, and no `Accept` unless one is set, where fetch adds `*/*`.
import request from 'supertest';
import type { Test } from 'supertest';

/** Headers of a well-formed MCP POST. */
export const MCP_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/**
 * A POST of `body`, sent byte for byte, to `mcpUrl` (its path and query as written) with the headers
 * of a well-formed MCP request, overridden by `headers`. Await it for the response; chain `.set()` or
 * `.unset()` first to change a header.
 */
export function mcpPost(mcpUrl: URL | string, body: string, headers: Record<string, string> = {}): Test {
  const url = new URL(mcpUrl);
  return request(url.origin).post(`${url.pathname}${url.search}`).set({ ...MCP_HEADERS, ...headers }).send(body);
}
