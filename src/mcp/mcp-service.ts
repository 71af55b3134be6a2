// What the server does, independent of the protocol era that asks: the tool table, the tools/list
// answer, tool calls, resources, and waiting for the index. Built once per process and shared by every
// legacy session and every modern request; the era adapters (legacy-server.ts on SDK 1.x,
// modern-server.ts on SDK v2) only translate between their SDK and this core, so no tool logic and no
// schema is written twice and both eras answer the same `structuredContent`.
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult, ListResourcesResult, ListToolsResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { CodedError } from '../coded-error.js';
import { sessionLogId, silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import type { IndexHolder, ServedCorpus } from './index-holder.js';
import type { McpEvents } from './mcp-events.js';
import type { SemanticService } from '../semantic/semantic-service.js';
import { McpRequestError } from './mcp-request-error.js';
import { listResources, readResource } from './resources.js';
import { createTools } from './tools/create-tools.js';
import { SnapshotError } from '../search/index-snapshot.js';
import { ToolError } from './tools/tool-error.js';
import type { ToolErrorCode } from './tools/tool-error.js';
import { resolveToolLimits } from './tools/tool-limits.js';
import type { ToolLimits } from './tools/tool-limits.js';
import type { SourceLinks } from './tools/source-url.js';
import { readViewer, VIEWER_URI, withViewer } from './viewer-resource.js';

/** The protocol eras: legacy is 2025-11-25 and earlier (initialize, sessions), modern is 2026-07-28 (per request). */
export const MCP_ERAS = ['legacy', 'modern'] as const;
export type McpEra = (typeof MCP_ERAS)[number];

export type ToolCallOutcome = 'ok' | 'tool_error' | 'protocol_error';

/** Reported once per tools/call, after it finished. Safe for metric labels: `tool` is a known name or "unknown". */
export interface ToolCallEvent {
  tool: string;
  outcome: ToolCallOutcome;
  durationMs: number;
  era: McpEra;
  /** Set when outcome is tool_error. */
  errorCode?: ToolErrorCode;
  /** search_documents only: how many results were returned. */
  resultCount?: number;
  /** The call answered by keywords because the embeddings or rerank endpoint it would have used was unavailable. */
  semanticFallback?: boolean;
  /** Legacy era only: the session the call came on. */
  sessionId?: string;
  authInfo?: AuthInfo;
}

/** Who asked, as far as the core needs to know (logs, metrics, audit). */
export interface CallContext {
  era: McpEra;
  sessionId?: string;
  authInfo?: AuthInfo;
}

export interface McpServiceOptions {
  /** Where the shared index comes from; tool calls wait until it is built. */
  holder: IndexHolder;
  /** `{ name, version }` reported in the initialize and server/discover results. */
  serverInfo?: { name: string; version: string };
  logger?: Logger;
  /** Whether query text may be written to logs. Default false. */
  logQueries?: boolean;
  /** Hears every finished tools/call (`toolCall` events: metrics, audit). Default none. */
  events?: McpEvents;
  /**
   * Longest a request waits for the index to be built, in milliseconds, ≥ 1; past it the call is
   * answered with an error instead of hanging (REQUEST_TIMEOUT_MS).
   */
  indexWaitMs: number;
  /** Bounds on what one tool call may ask for (query length, top_k, max_chars, page size). Default DEFAULT_TOOL_LIMITS. */
  toolLimits?: Partial<ToolLimits>;
  /** Embeddings and rerank endpoints; without it search is by keywords only. */
  semantic?: SemanticService;
  /** How hits, chunks and documents get a `url` (SOURCE_URL_TEMPLATE, CORPUS_GIT_PATH). Default: front matter urls only. */
  sourceLinks?: SourceLinks;
  /** The MCP Apps view's HTML (built from src/view/); without it no tool names a view. Default none. */
  viewerHtml?: string;
}

export interface McpService {
  readonly serverInfo: Readonly<{ name: string; version: string }>;
  readonly instructions: string;
  /** The tools/list answer, computed once: the same object in both eras. */
  readonly listToolsResult: ListToolsResult;
  /** Runs a tool. A bad argument is a tool result with `isError`; an unknown tool throws McpRequestError. */
  callTool(name: string, rawArguments: unknown, context: CallContext): Promise<CallToolResult>;
  /** One page of resources; throws McpRequestError (invalid_cursor, index_*). */
  listResources(cursor: string | undefined): Promise<ListResourcesResult>;
  /** A document's text; throws McpRequestError (resource_not_found, index_*). */
  readResource(uri: string): Promise<ReadResourceResult>;
}

/** The index was not built within the request timeout. */
class IndexNotReadyError extends CodedError<'index_not_ready'> {
  constructor(readonly waitedMs: number) {
    super('index_not_ready', `the document index is still being built (waited ${waitedMs} ms)`);
  }
}

const INSTRUCTIONS =
  'This server gives read-only access to a folder of documents. Start with search_documents to find ' +
  'relevant passages; read one in full with get_chunk, or page through its document with get_document. ' +
  'Use list_documents to see what the corpus contains, and rerank_results to reorder candidate passages ' +
  'against a question. Cite documents by their source path.';

function toolResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function toolErrorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

export function createMcpService(options: McpServiceOptions): McpService {
  const {
    holder,
    serverInfo = { name: 'corpus-mcp', version: '0.0.0' },
    logger = silentLogger,
    logQueries = false,
    events,
    indexWaitMs,
    toolLimits,
    semantic,
    sourceLinks = { template: undefined, pathPrefix: '' },
    viewerHtml,
  } = options;
  if (!Number.isFinite(indexWaitMs) || indexWaitMs < 1) {
    throw new RangeError(`createMcpService: indexWaitMs must be ≥ 1, got ${indexWaitMs}`);
  }
  const limits = resolveToolLimits(toolLimits);
  const semanticSearch = semantic?.enabled ?? false;
  const tools = createTools(limits, { semanticSearch });
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const toolNames = tools.map((t) => t.name).join(', ');
  const listToolsResult: ListToolsResult = Object.freeze({ tools: tools.map((t) => (viewerHtml === undefined ? t.listing : withViewer(t.listing))) });

  // Calls that arrive before the index is built wait for it, but never past the request timeout: a
  // client that gets no answer cannot tell a slow build from a dead server.
  const corpus = async (): Promise<ServedCorpus> => {
    const current = holder.current;
    if (current) return current;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new IndexNotReadyError(indexWaitMs)), indexWaitMs);
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
      if (error instanceof IndexNotReadyError) throw new McpRequestError('index_not_ready', `${error.message}; retry in a few seconds`);
      throw new McpRequestError('index_unavailable', 'the document index failed to build');
    }
  };

  const report = (event: ToolCallEvent, rawArguments: unknown) => {
    const fields: Record<string, unknown> = {
      tool: event.tool,
      outcome: event.outcome,
      era: event.era,
      duration_ms: Math.round(event.durationMs * 100) / 100,
      session_id: event.sessionId === undefined ? undefined : sessionLogId(event.sessionId),
    };
    if (event.errorCode) fields.error_code = event.errorCode;
    if (event.resultCount !== undefined) fields.result_count = event.resultCount;
    if (event.semanticFallback) fields.semantic_fallback = true;
    if (logQueries && event.tool === 'search_documents') fields.query = (rawArguments as { query?: unknown } | undefined)?.query;
    logger.info(fields, 'tool call');
    events?.emit('toolCall', event);
  };

  const callTool = async (name: string, rawArguments: unknown, context: CallContext): Promise<CallToolResult> => {
    const started = performance.now();
    const tool = toolsByName.get(name);
    const event: ToolCallEvent = {
      tool: tool?.name ?? 'unknown',
      outcome: 'ok',
      durationMs: 0,
      era: context.era,
      sessionId: context.sessionId,
      authInfo: context.authInfo,
    };
    try {
      if (!tool) {
        event.outcome = 'protocol_error';
        throw new McpRequestError('unknown_tool', `unknown tool "${name.slice(0, 100)}"; this server offers: ${toolNames}`);
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
        const structured = await tool.call(rawArguments, served, {
          semantic,
          links: sourceLinks,
          onFallback: () => {
            event.semanticFallback = true;
          },
        });
        if (Array.isArray(structured.results)) event.resultCount = structured.results.length;
        return toolResult(structured);
      } catch (error) {
        event.outcome = 'tool_error';
        if (error instanceof ToolError) {
          event.errorCode = error.code;
          return toolErrorResult(error.message);
        }
        if (error instanceof SnapshotError && error.code === 'damaged') {
          // The index service has logged it and is rebuilding; the model can retry.
          event.errorCode = 'index_damaged';
          return toolErrorResult(`${tool.name} could not read the document index: its file on disk was changed or damaged after the server checked it, so nothing more is served from it. The server is rebuilding the index; call ${tool.name} again in a few seconds.`);
        }
        event.errorCode = 'internal_error';
        logger.error({ err: error, tool: tool.name, era: context.era }, 'tool handler failed');
        return toolErrorResult(`${tool.name} failed with an internal error. Try again; if it persists, the server operator should check the logs.`);
      }
    } finally {
      event.durationMs = performance.now() - started;
      report(event, rawArguments);
    }
  };

  return Object.freeze({
    serverInfo: Object.freeze({ ...serverInfo }),
    instructions: INSTRUCTIONS,
    listToolsResult,
    callTool,
    listResources: async (cursor: string | undefined) => listResources(await corpusForResources(), cursor, limits.maxPageSize),
    readResource: async (uri: string) =>
      viewerHtml !== undefined && uri === VIEWER_URI ? readViewer(viewerHtml) : readResource(await corpusForResources(), uri, limits.maxDocumentChars),
  });
}
