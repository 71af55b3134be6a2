// Helpers for the 2026-07-28 era: SDK v2 clients, and bare modern requests for tests that need to see
// statuses and error codes the client hides.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { VersionNegotiationMode } from '@modelcontextprotocol/client';

export const MODERN_VERSION = '2026-07-28';

/** An SDK v2 client connected with the given negotiation mode ('auto' probes with server/discover). */
export async function connectV2Client(url: URL, mode: VersionNegotiationMode = 'auto', headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'e2e-v2', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** The `_meta` envelope every modern request carries. */
export function envelope(version = MODERN_VERSION): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': { name: 'raw-modern', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

export interface ModernRequest {
  method: string;
  params?: Record<string, unknown>;
  /** Protocol version in `_meta` and (unless overridden) the MCP-Protocol-Version header. */
  version?: string;
  /** Headers added or overriding the defaults (MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
  headers?: Record<string, string>;
  id?: number | string;
}

export interface ModernAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC message (from a JSON body or the last `data:` line of an SSE body). */
  message: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } | undefined;
  text: string;
}

/** Sends one bare modern request with correct headers unless told otherwise. */
export async function modernRequest(url: URL | string, { method, params = {}, version = MODERN_VERSION, headers = {}, id = 1 }: ModernRequest): Promise<ModernAnswer> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': version,
      'mcp-method': method,
      ...(name !== undefined ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(version) } }),
  });
  const text = await response.text();
  let message: ModernAnswer['message'];
  try {
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5))
          .at(-1)
      : text;
    message = json ? JSON.parse(json) : undefined;
  } catch {
    message = undefined;
  }
  return { status: response.status, headers: response.headers, message, text };
}
