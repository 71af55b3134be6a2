// One MCP server per session, all sharing one index. A session is meant to cost almost nothing while
// idle, so everything that does not depend on the session is built here once per process: the tools/list
// answer, the tool table, the request handlers and the JSON Schema validator. Each session then gets a
// low-level SDK `Server` with those shared handlers attached (McpServer would rebuild JSON Schemas on
// every tools/list and hold per-session tool registrations).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolRequest, CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { IndexHolder, ServedCorpus } from './index-holder.js';
import { listResources, readResource } from './resources.js';
import type { DefinedTool } from './tools/define-tool.js';
import { getChunk } from './tools/get-chunk.js';
import { createGetDocument } from './tools/get-document.js';
import { createListDocuments } from './tools/list-documents.js';
import { createSearchDocuments } from './tools/search-documents.js';
import { ToolError } from './tools/tool-error.js';
import type { ToolErrorCode } from './tools/tool-error.js';
import { DEFAULT_TOOL_LIMITS, resolveToolLimits } from './tools/tool-limits.js';
import type { ToolLimits } from './tools/tool-limits.js';

/** The tools every session offers under `limits`, in the order tools/list shows them. */
export function createTools(limits: ToolLimits): readonly DefinedTool[] {
  return [createSearchDocuments(limits), getChunk, createGetDocument(limits), createListDocuments(limits)];
}

/** The tools with the default limits. */
export const TOOLS: readonly DefinedTool[] = createTools(DEFAULT_TOOL_LIMITS);

export type ToolCallOutcome = 'ok' | 'tool_error' | 'protocol_error';

/** Reported once per tools/call, after it finished. Safe for metric labels: `tool` is a known name or "unknown". */
export interface ToolCallEvent {
  tool: string;
  outcome: ToolCallOutcome;
  durationMs: number;
  /** Set when outcome is tool_error. */
  errorCode?: ToolErrorCode;
  /** search_documents only: how many results were returned. */
  resultCount?: number;
  sessionId?: string;
  authInfo?: AuthInfo;
}

export interface McpServerOptions {
  /** Where the shared index comes from; tool calls wait until it is built. */
  index: IndexHolder;
  /** `{ name, version }` reported in the initialize result. */
  serverInfo?: { name: string; version: string };
  logger?: Logger;
  /** Whether query text may be written to logs. Default false. */
  logQueries?: boolean;
  /** Called after every tools/call (metrics, audit). Must not throw. */
  onToolCall?: (event: ToolCallEvent) => void;
  /**
   * Longest a request waits for the index to be built, in milliseconds, ≥ 1; past it the call is
   * answered with an error instead of hanging. Default 30000.
   */
  requestTimeoutMs?: number;
  /** Bounds on what one tool call may ask for (query length, top_k, max_chars, page size). Default DEFAULT_TOOL_LIMITS. */
  toolLimits?: Partial<ToolLimits>;
}

/** The index was not built within the request timeout. */
class IndexNotReadyError extends Error {
  constructor(readonly waitedMs: number) {
    super(`the document index is still being built (waited ${waitedMs} ms)`);
    this.name = 'IndexNotReadyError';
  }
}

const INSTRUCTIONS =
  'This server gives read-only access to a folder of documents. Start with search_documents to find ' +
  'relevant passages; read one in full with get_chunk, or page through its document with get_document. ' +
  'Use list_documents to see what the corpus contains. Cite documents by their source path.';

const CAPABILITIES = { tools: {}, resources: {}, logging: {} } as const;

function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Builds the shared parts once and returns a function that makes a fresh, unconnected `Server` for a
 * new session.
 */
export function createMcpServerFactory(options: McpServerOptions): () => Server {
  const {
    index: holder,
    serverInfo = { name: 'corpus-mcp', version: '0.0.0' },
    logger = silentLogger,
    logQueries = false,
    onToolCall,
    requestTimeoutMs = 30_000,
    toolLimits,
  } = options;
  if (!Number.isFinite(requestTimeoutMs) || requestTimeoutMs < 1) {
    throw new RangeError(`createMcpServerFactory: requestTimeoutMs must be ≥ 1, got ${requestTimeoutMs}`);
  }
  const limits = resolveToolLimits(toolLimits);
  const tools = toolLimits === undefined ? TOOLS : createTools(limits);
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const toolNames = tools.map((t) => t.name).join(', ');
  const listToolsResult: ListToolsResult = Object.freeze({ tools: tools.map((t) => t.listing) });
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const info = Object.freeze({ ...serverInfo });

  // Calls that arrive before the index is built wait for it, but never past the request timeout: a
  // client that gets no answer cannot tell a slow build from a dead server.
  const corpus = async (): Promise<ServedCorpus> => {
    const current = holder.current;
    if (current) return current;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new IndexNotReadyError(requestTimeoutMs)), requestTimeoutMs);
    });
    try {
      return await Promise.race([holder.wait(), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  const corpusForResources = async (): Promise<ServedCorpus> => {
    try {
      return await corpus();
    } catch (error) {
      const reason = error instanceof IndexNotReadyError ? `${error.message}; retry in a few seconds` : 'the document index failed to build';
      throw new McpError(ErrorCode.InternalError, reason);
    }
  };

  const report = (event: ToolCallEvent, request: CallToolRequest) => {
    const fields: Record<string, unknown> = {
      tool: event.tool,
      outcome: event.outcome,
      duration_ms: Math.round(event.durationMs * 100) / 100,
      session_id: event.sessionId,
    };
    if (event.errorCode) fields.error_code = event.errorCode;
    if (event.resultCount !== undefined) fields.result_count = event.resultCount;
    if (logQueries && event.tool === 'search_documents') fields.query = request.params.arguments?.query;
    logger.info(fields, 'tool call');
    try {
      onToolCall?.(event);
    } catch (error) {
      logger.error({ err: error }, 'onToolCall hook threw');
    }
  };

  const callTool = async (request: CallToolRequest, extra: { sessionId?: string; authInfo?: AuthInfo }): Promise<CallToolResult> => {
    const started = performance.now();
    const tool = toolsByName.get(request.params.name);
    const event: ToolCallEvent = { tool: tool?.name ?? 'unknown', outcome: 'ok', durationMs: 0, sessionId: extra.sessionId, authInfo: extra.authInfo };
    try {
      if (!tool) {
        event.outcome = 'protocol_error';
        throw new McpError(ErrorCode.InvalidParams, `unknown tool "${request.params.name.slice(0, 100)}"; this server offers: ${toolNames}`);
      }
      let served: ServedCorpus;
      try {
        served = await corpus();
      } catch (error) {
        event.outcome = 'tool_error';
        if (error instanceof IndexNotReadyError) {
          event.errorCode = 'index_not_ready';
          return toolErrorResult(`The document index is still being built (waited ${error.waitedMs} ms). Call ${tool.name} again in a few seconds.`);
        }
        event.errorCode = 'index_unavailable';
        return toolErrorResult('The document index failed to build, so no document can be served. The server operator must check the logs and restart it.');
      }
      try {
        const structured = tool.call(request.params.arguments, served);
        if (Array.isArray(structured.results)) event.resultCount = structured.results.length;
        return toolResult(structured);
      } catch (error) {
        event.outcome = 'tool_error';
        if (error instanceof ToolError) {
          event.errorCode = error.code;
          return toolErrorResult(error.message);
        }
        event.errorCode = 'internal_error';
        logger.error({ err: error, tool: tool.name }, 'tool handler failed');
        return toolErrorResult(`${tool.name} failed with an internal error. Try again; if it persists, the server operator should check the logs.`);
      }
    } finally {
      event.durationMs = performance.now() - started;
      report(event, request);
    }
  };

  const listTools = () => listToolsResult;
  const listResourcesHandler = async (request: { params?: { cursor?: string } }) => listResources(await corpusForResources(), request.params?.cursor, limits.maxPageSize);
  const readResourceHandler = async (request: { params: { uri: string } }) => readResource(await corpusForResources(), request.params.uri);

  return function createMcpServer(): Server {
    const server = new Server(info, { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator });
    server.setRequestHandler(ListToolsRequestSchema, listTools);
    server.setRequestHandler(CallToolRequestSchema, callTool);
    server.setRequestHandler(ListResourcesRequestSchema, listResourcesHandler);
    server.setRequestHandler(ReadResourceRequestSchema, readResourceHandler);
    return server;
  };
}
