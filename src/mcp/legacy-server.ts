// The 2025 era (initialize, sessions; protocol 2025-11-25 and earlier) on @modelcontextprotocol/sdk 1.x.
// One server per session, all sharing one service. A session is meant to cost almost nothing while
// idle, so the handlers and the JSON Schema validator are built once per process; each session gets a
// low-level SDK `Server` with them attached (McpServer would rebuild JSON Schemas on every tools/list
// and hold per-session tool registrations).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallToolRequest } from '@modelcontextprotocol/sdk/types.js';
import { translateRequestErrors } from './mcp-request-error.js';
import type { McpRequestErrorCode } from './mcp-request-error.js';
import type { McpService } from './mcp-service.js';

/** Logging stays offered in this era only; 2026-07-28 deprecates it. */
// listChanged: a reload of the index sends notifications/resources/list_changed to every session
// (on its GET stream). Modern (2026) requests have no session to receive it, so that era does not offer it.
const CAPABILITIES = { tools: {}, resources: { listChanged: true }, logging: {} } as const;

/** JSON-RPC codes of the 2025-11-25 revision (resource not found is -32002 there). */
const LEGACY_CODES: Record<McpRequestErrorCode, number> = {
  unknown_tool: ErrorCode.InvalidParams,
  invalid_cursor: ErrorCode.InvalidParams,
  resource_not_found: -32002,
  index_not_ready: ErrorCode.InternalError,
  index_unavailable: ErrorCode.InternalError,
};

/**
 * What the 1.x SDK sends as a JSON-RPC error: it reads `code`, `message` and `data` off the thrown
 * error. Not its McpError, whose message already reads "MCP error <code>: …", so the client, which
 * prefixes the code itself, would show it twice.
 */
class LegacyRequestError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown> | undefined,
  ) {
    super(message);
    this.name = 'LegacyRequestError';
  }
}

const legacyErrors = <T>(work: () => Promise<T>): Promise<T> =>
  translateRequestErrors(work, (error) => new LegacyRequestError(LEGACY_CODES[error.code], error.message, error.data));

/** Returns a function that makes a fresh, unconnected 1.x `Server` for a new session. */
export function createLegacyServerFactory(service: McpService): () => Server {
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const listTools = () => service.listToolsResult;
  const callTool = (request: CallToolRequest, extra: { sessionId?: string; authInfo?: AuthInfo }) =>
    legacyErrors(() => service.callTool(request.params.name, request.params.arguments, { era: 'legacy', sessionId: extra.sessionId, authInfo: extra.authInfo }));
  const listResources = (request: { params?: { cursor?: string } }) => legacyErrors(() => service.listResources(request.params?.cursor));
  const readResource = (request: { params: { uri: string } }) => legacyErrors(() => service.readResource(request.params.uri));

  return function createLegacyServer(): Server {
    const server = new Server(service.serverInfo, { capabilities: CAPABILITIES, instructions: service.instructions, jsonSchemaValidator });
    server.setRequestHandler(ListToolsRequestSchema, listTools);
    server.setRequestHandler(CallToolRequestSchema, callTool);
    server.setRequestHandler(ListResourcesRequestSchema, listResources);
    server.setRequestHandler(ReadResourceRequestSchema, readResource);
    return server;
  };
}
