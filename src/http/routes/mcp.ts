// The MCP endpoint: POST (client messages), GET (the server-to-client SSE stream) and DELETE (end the
// session), all handed to the SDK's web-standard Streamable HTTP transport of the session named by
// the Mcp-Session-Id header. A POST without that header must be an initialize request; it gets a
// fresh transport and server, registered in the session registry once the transport assigns the id.
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import type { AppEnv } from '../app-env.js';
import { INVALID_REQUEST, jsonRpcErrorBody, PARSE_ERROR, SERVER_ERROR, SESSION_NOT_FOUND } from '../json-rpc-error.js';
import type { SessionRegistry } from '../sessions.js';

export interface McpHandlerOptions {
  sessions: SessionRegistry;
  /** Makes the MCP server for a new session (shared handlers; see createMcpServerFactory). */
  createServer: () => Server;
  logger?: Logger;
}

const isInitialize = (body: unknown) => (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));

export function mcpHandler({ sessions, createServer, logger = silentLogger }: McpHandlerOptions) {
  async function startSession(c: Context<AppEnv>): Promise<Response> {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(jsonRpcErrorBody(PARSE_ERROR, 'Parse error: the request body is not valid JSON'), 400);
    }
    if (!isInitialize(body)) {
      return c.json(
        jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: no Mcp-Session-Id header; start a session with an initialize request first'),
        400,
      );
    }
    const owner = c.get('principal')?.id;
    const server = createServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => sessions.add({ id, transport, server, owner, createdAt: Date.now() }),
      onsessionclosed: (id) => sessions.delete(id),
    });
    // However the session ends (DELETE, eviction, expiry, shutdown), it leaves the registry.
    server.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    server.onerror = (error) => logger.debug({ err: error, session_id: transport.sessionId }, 'mcp transport error');
    await server.connect(transport);
    const response = await transport.handleRequest(c.req.raw, { authInfo: c.get('authInfo'), parsedBody: body });
    // Refused before a session existed (bad headers, bad protocol version): nothing to keep.
    if (transport.sessionId === undefined) await server.close();
    return response;
  }

  return async function mcpRoute(c: Context<AppEnv>): Promise<Response> {
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId === undefined) {
      if (c.req.method === 'POST') return startSession(c);
      if (c.req.method === 'GET' || c.req.method === 'DELETE') {
        return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required'), 400);
      }
      return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Method not allowed'), 405, { Allow: 'GET, POST, DELETE' });
    }
    const session = sessions.get(sessionId);
    if (!session) {
      return c.json(
        jsonRpcErrorBody(SESSION_NOT_FOUND, 'Session not found: it ended, expired or never existed; send a new initialize request without Mcp-Session-Id'),
        404,
      );
    }
    if (session.owner !== c.get('principal')?.id) {
      return c.json(jsonRpcErrorBody(INVALID_REQUEST, 'Forbidden: this session belongs to another principal'), 403);
    }
    return session.transport.handleRequest(c.req.raw, { authInfo: c.get('authInfo') });
  };
}
