// One request to the MCP endpoint as the endpoint sees it: the web-standard Request, who sent it (set
// by the HTTP layer's authentication), and the body read once and parsed once for both eras.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpEra } from '../mcp-service.js';
import { jsonRpcErrorBody, SESSION_NOT_FOUND } from '../json-rpc-error.js';

/** What the HTTP layer knows of a request that the endpoint needs besides the request itself. */
export interface McpRequestInfo {
  /** The verified credentials, handed to the SDK (tools see them); undefined with authentication off. */
  authInfo?: AuthInfo | undefined;
  /** The authenticated principal's id: owns legacy sessions, keys the in-flight budgets. */
  principal?: string | undefined;
  /** The budget key of the client's address (used with authentication off). */
  clientAddress: string;
  /** Told the era the request was routed to, once classified (the access log names it). */
  routed?: ((era: McpEra) => void) | undefined;
}

/** The endpoint as a fetch-style handler: one web-standard request in, one response out. */
export type McpFetchHandler = (request: Request, context: McpRequestInfo) => Promise<Response>;

/** A POST body as read once: its text, and its JSON value when it parses. */
export interface ReadBody {
  text: string;
  parsed: unknown;
  parsedOk: boolean;
}

export async function readBody(request: Request): Promise<ReadBody> {
  const text = await request.text();
  try {
    return { text, parsed: JSON.parse(text), parsedOk: true };
  } catch {
    return { text, parsed: undefined, parsedOk: false };
  }
}

/** A JSON answer, as the HTTP layer would write it (application/json). */
export const jsonResponse = (body: unknown, status: number, headers: Record<string, string> = {}): Response =>
  Response.json(body, { status, headers });

/** How many JSON-RPC messages a body holds for the budgets: a batch counts as its members. */
export const weightOf = (body: ReadBody): number => (body.parsedOk && Array.isArray(body.parsed) ? Math.max(body.parsed.length, 1) : 1);

export const sessionNotFound = (): Response =>
  jsonResponse(
    jsonRpcErrorBody(SESSION_NOT_FOUND, 'Session not found: it ended, expired or never existed; send a new initialize request without Mcp-Session-Id'),
    404,
  );
