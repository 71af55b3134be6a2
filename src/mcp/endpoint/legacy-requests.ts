// Legacy-era requests (2025-11-25 and earlier): POST (client messages), GET (the server-to-client SSE
// stream) and DELETE (end the session), handed to the 1.x web-standard Streamable HTTP transport of the
// session named by the Mcp-Session-Id header. A POST without that header must be an initialize
// request; it gets a fresh transport and server, registered in the session registry once the
// transport assigns the id. An id this process does not hold is re-created from the id itself
// (sessions/durable-sessions.ts). Without sessions (MCP_SESSIONS=off) every POST gets a fresh server
// and nothing outlives the request.
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../logger.js';
import { jsonRpcErrorBody, PARSE_ERROR, SERVER_ERROR } from '../json-rpc-error.js';
import type { McpEvents } from '../mcp-events.js';
import type { DurableSessions } from '../sessions/durable-sessions.js';
import { jsonResponse, sessionNotFound, weightOf } from './mcp-request.js';
import type { McpRequestInfo, ReadBody } from './mcp-request.js';
import { onceFinished } from './once-finished.js';
import type { RequestBudgets } from './request-budgets.js';

export interface LegacyRequestsOptions {
  /** Opens, finds, re-creates and revokes sessions; 'off' serves every request without one (MCP_SESSIONS=off). */
  durable: DurableSessions | 'off';
  /** Makes the 1.x MCP server for a session, or for one request without sessions (see createLegacyServerFactory). */
  createServer: () => Server;
  budgets: RequestBudgets;
  events: McpEvents;
  logger: Logger;
}

/** Answers one legacy request: `body` is the POST's, read once; undefined for GET and DELETE. */
export type LegacyRequestHandler = (request: Request, context: McpRequestInfo, body: ReadBody | undefined) => Promise<Response>;

const isInitialize = (body: unknown) => (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));

const parseError = () => jsonResponse(jsonRpcErrorBody(PARSE_ERROR, 'Parse error: the request body is not valid JSON'), 400);

/** One request, one server, no session: the transport has no id generator, so it issues no Mcp-Session-Id. */
async function serveWithoutSession(request: Request, context: McpRequestInfo, body: ReadBody, createServer: () => Server, logger: Logger): Promise<Response> {
  if (!body.parsedOk) return parseError();
  const server = createServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  server.onerror = (error) => logger.debug({ err: error }, 'mcp transport error');
  await server.connect(transport);
  let response: Response;
  try {
    response = await transport.handleRequest(request, { authInfo: context.authInfo, parsedBody: body.parsed });
  } catch (error) {
    await server.close();
    throw error;
  }
  return onceFinished(response, () => void server.close().catch(() => {}));
}

export function legacyRequests({ durable, createServer, budgets, events, logger }: LegacyRequestsOptions): LegacyRequestHandler {
  const legacyBudgets = (context: McpRequestInfo) => [budgets.requester(context)];

  async function startSession(request: Request, context: McpRequestInfo, sessions: DurableSessions, body: ReadBody): Promise<Response> {
    if (!body.parsedOk) return parseError();
    if (!isInitialize(body.parsed)) {
      return jsonResponse(
        jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: no Mcp-Session-Id header; start a session with an initialize request first'),
        400,
      );
    }
    return budgets.counted(weightOf(body), legacyBudgets(context), () => sessions.open(request, body.parsed, context.principal, context.authInfo));
  }

  /** DELETE of a session this process does not hold: the id is revoked without re-creating anything. */
  async function endUnheldSession(context: McpRequestInfo, sessions: DurableSessions, sessionId: string): Promise<Response> {
    const checked = await sessions.claims(sessionId, context.principal);
    if ('refused' in checked) {
      events.emit('sessionLookup', checked.refused);
      return sessionNotFound();
    }
    await sessions.revoke(sessionId, checked.claims.expiresAt);
    return new Response(null, { status: 200 });
  }

  async function onSession(request: Request, context: McpRequestInfo, sessions: DurableSessions, sessionId: string, body: ReadBody | undefined): Promise<Response> {
    const { principal, authInfo } = context;
    // Ending a session this process does not hold needs no server: revoke its id and be done.
    if (request.method === 'DELETE' && !sessions.holds(sessionId)) return endUnheldSession(context, sessions, sessionId);
    // A request from anyone but the owner must not keep the session alive, nor re-create it. A
    // session belongs to the principal that created it. Another principal's request on it is
    // answered exactly like an unknown session (404), as if sessions were keyed by
    // `<principal>:<session id>` (MCP security best practices, session hijacking): the answer
    // confirms nothing about which ids are live, and a client that gets 404 starts a session of its
    // own, which is the right recovery. A 403 would confirm the id, and in MCP reads as
    // insufficient_scope. Forged, altered, expired and revoked ids get the same answer.
    const found = await sessions.find(sessionId, principal, authInfo);
    if ('refused' in found) {
      if (found.refused === 'foreign') logger.warn({ principal }, 'request on a session of another principal refused');
      else logger.debug({ reason: found.refused }, 'session id refused');
      events.emit('sessionLookup', found.refused);
      return sessionNotFound();
    }
    if (found.restored) events.emit('sessionLookup', 'restored');
    const { session } = found;
    sessions.touch(sessionId); // the owner's request: refresh the idle timer and recency
    if (request.method === 'DELETE') {
      // Revoke first, then close. Once the session has left the registry, a request for its id, here
      // or on another replica, re-creates it from the id unless the revocation is already recorded.
      if (session.expiresAt !== undefined) await sessions.revoke(sessionId, session.expiresAt);
      const response = await session.transport.handleRequest(request, { authInfo });
      // Refused (an unsupported MCP-Protocol-Version header): the id is revoked all the same, so the
      // session ends with it rather than live on under an id that no longer re-creates it.
      if (!response.ok) sessions.end(session);
      return response;
    }
    if (body === undefined) return session.transport.handleRequest(request, { authInfo });

    // One client flooding its session with requests it does not read must not hold unbounded
    // streams and buffers; it is told to slow down, and other sessions are unaffected. A JSON-RPC
    // batch counts as the requests it holds (the SDK accepts up to 100 in one POST), so batching
    // cannot multiply the limit. Opening more sessions cannot either: the principal's bound spans them.
    // Unparseable bodies go to the transport as they came, so it answers them exactly as it would.
    const forwarded = body.parsedOk ? request : new Request(request.url, { method: 'POST', headers: request.headers, body: body.text });
    return budgets.counted(weightOf(body), [budgets.session(session), ...legacyBudgets(context)], () =>
      session.transport.handleRequest(forwarded, body.parsedOk ? { authInfo, parsedBody: body.parsed } : { authInfo }),
    );
  }

  return async function serveLegacy(request, context, body) {
    const sessionId = request.headers.get('mcp-session-id') ?? undefined;
    if (durable === 'off') {
      return body === undefined
        ? jsonResponse(jsonRpcErrorBody(SERVER_ERROR, 'Method not allowed: this server keeps no sessions (MCP_SESSIONS=off); send every message as a POST'), 405, { Allow: 'POST' })
        : budgets.counted(weightOf(body), legacyBudgets(context), () => serveWithoutSession(request, context, body, createServer, logger));
    }
    if (sessionId !== undefined) return onSession(request, context, durable, sessionId, body);
    if (body !== undefined) return startSession(request, context, durable, body);
    return jsonResponse(jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required'), 400);
  };
}
