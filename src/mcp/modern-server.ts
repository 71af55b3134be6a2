// The 2026-07-28 era (no initialize, no sessions: every request carries its version, client info and
// capabilities in `_meta`) on SDK v2 (@modelcontextprotocol/server). `createMcpHandler` calls the
// factory once per request; the instance it gets is a low-level v2 `Server` with handlers shared by
// every request, translating to and from the same service the legacy era uses.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, Server, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import type {
  CallToolRequest,
  CallToolResult,
  ListResourcesRequest,
  ListResourcesResult,
  ListToolsResult,
  McpRequestContext,
  ReadResourceRequest,
  ReadResourceResult,
  ServerContext,
} from '@modelcontextprotocol/server';
import { translateRequestErrors } from './mcp-request-error.js';
import { SERVED_PROTOCOL_VERSIONS } from './protocol-versions.js';
import type { McpRequestErrorCode } from './mcp-request-error.js';
import type { McpService } from './mcp-service.js';

/**
 * How long a client may keep tools/list, resources/list, resources/read and server/discover answers,
 * in milliseconds. They change only when the index is reloaded, and a client listening on
 * subscriptions/listen is told at once; five minutes bounds how stale a client that does not listen
 * can be.
 */
export const MODERN_LIST_TTL_MS = 300_000;

/**
 * Offered to modern clients: tools, and resources whose list changes on a reload (announced on
 * `subscriptions/listen`; the tool list never changes while the process runs). Logging is deprecated in
 * 2026-07-28 and not offered; the server never asks clients for sampling or roots.
 */
const CAPABILITIES = { tools: {}, resources: { listChanged: true } } as const;

/** JSON-RPC codes of the 2026-07-28 revision (resource not found is -32602 there). */
const MODERN_CODES: Record<McpRequestErrorCode, ProtocolErrorCode> = {
  unknown_tool: ProtocolErrorCode.InvalidParams,
  resource_not_found: ProtocolErrorCode.InvalidParams,
  invalid_cursor: ProtocolErrorCode.InvalidParams,
  index_not_ready: ProtocolErrorCode.InternalError,
  index_unavailable: ProtocolErrorCode.InternalError,
};

const modernErrors = <T>(work: () => Promise<T>): Promise<T> =>
  translateRequestErrors(work, (error) =>
    error.code === 'resource_not_found'
      ? new ResourceNotFoundError(String(error.data?.uri), error.message)
      : new ProtocolError(MODERN_CODES[error.code], error.message, error.data),
  );

export interface ModernServerOptions {
  /**
   * Who may share a cached list or document: 'private' (one principal; the default, right whenever
   * authentication is on) or 'public' (any client; fine for an open loopback server).
   */
  cacheScope?: 'public' | 'private';
}

/**
 * The answer that ends a `subscriptions/listen` stream gracefully (a SubscriptionsListenResult, the
 * same the SDK sends to every open stream on shutdown): the client knows the subscription is over,
 * not broken, and may listen again.
 */
export function listenEndedMessage(listenId: string | number) {
  return { jsonrpc: '2.0' as const, id: listenId, result: { resultType: 'complete' as const, _meta: { [SUBSCRIPTION_ID_META_KEY]: listenId } } };
}

/** Returns the `createMcpHandler` factory: a fresh, unconnected v2 `Server` per modern request. */
export function createModernServerFactory(service: McpService, { cacheScope = 'private' }: ModernServerOptions = {}): (context: McpRequestContext) => Server {
  const hint = Object.freeze({ ttlMs: MODERN_LIST_TTL_MS, cacheScope });
  // server/discover answers the modern ones among them (the handler rejects legacy requests). One
  // array for every request: the SDK replaces its list rather than changing the one it is given.
  const supportedProtocolVersions = [...SERVED_PROTOCOL_VERSIONS];
  const cacheHints = Object.freeze({ 'tools/list': hint, 'resources/list': hint, 'resources/read': hint, 'server/discover': hint });
  // The same frozen object the legacy era answers; v2 types JSON Schema values as JSON, 1.x as objects.
  const listTools = (): ListToolsResult => service.listToolsResult as unknown as ListToolsResult;
  const callTool = (request: CallToolRequest, ctx: ServerContext): Promise<CallToolResult> =>
    modernErrors(() => service.callTool(request.params.name, request.params.arguments, { era: 'modern', authInfo: ctx.http?.authInfo }));
  const listResources = (request: ListResourcesRequest): Promise<ListResourcesResult> => modernErrors(() => service.listResources(request.params?.cursor));
  const readResource = (request: ReadResourceRequest): Promise<ReadResourceResult> => modernErrors(() => service.readResource(request.params.uri));

  return function createModernServer(): Server {
    // The low-level Server (deprecated in v2 for hand use) keeps handlers shared across requests; an
    // McpServer would register the tools and convert their schemas again for every request.
    const server = new Server(service.serverInfo, {
      capabilities: CAPABILITIES,
      instructions: service.instructions,
      cacheHints,
      supportedProtocolVersions,
    });
    server.setRequestHandler('tools/list', listTools);
    server.setRequestHandler('tools/call', callTool);
    server.setRequestHandler('resources/list', listResources);
    server.setRequestHandler('resources/read', readResource);
    return server;
  };
}
