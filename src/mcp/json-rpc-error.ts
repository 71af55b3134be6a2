// Errors the HTTP layer answers itself, before a request reaches an MCP transport, in the same
// JSON-RPC shape the transport uses so clients parse every failure the same way.

/** -32000 is the JSON-RPC "server error" range the MCP transports use for HTTP-level refusals. */
export const SERVER_ERROR = -32000;
/** The MCP TypeScript SDK's code for "session not found". */
export const SESSION_NOT_FOUND = -32001;
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export function jsonRpcErrorBody(code: number, message: string) {
  return { jsonrpc: '2.0' as const, error: { code, message }, id: null };
}
