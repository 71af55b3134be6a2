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
import type { Session, SessionRegistry } from '../sessions.js';

export interface McpHandlerOptions {
  sessions: SessionRegistry;
  /** Makes the MCP server for a new session (shared handlers; see createMcpServerFactory). */
  createServer: () => Server;
  logger?: Logger;
  /**
   * JSON-RPC requests one session may have in progress at once, ≥ 1 (a batch counts as its members);
   * more get 429 with Retry-After. A request counts until its response has been read to the end or
   * abandoned. Default 16.
   */
  maxConcurrentPerSession?: number;
  /** Called when a request names a live session that belongs to another principal (metrics). Must not throw. */
  onForeignSession?: () => void;
}

/** Seconds a client is told to wait after a 429. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The same response, calling `done` exactly once when its body has been read to the end, failed, or
 * was cancelled by the client going away. A POST's answer is an SSE stream that ends only when the
 * request has been answered, so this is when the request stops holding resources.
 */
function onceFinished(response: Response, done: () => void): Response {
  const body = response.body;
  if (body === null) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          finish();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, { status: response.status, statusText: response.statusText, headers: response.headers });
}

const isInitialize = (body: unknown) => (Array.isArray(body) ? body.some(isInitializeRequest) : isInitializeRequest(body));

export function mcpHandler({ sessions, createServer, logger = silentLogger, maxConcurrentPerSession = 16, onForeignSession }: McpHandlerOptions) {
  if (!Number.isInteger(maxConcurrentPerSession) || maxConcurrentPerSession < 1) {
    throw new RangeError(`mcpHandler: maxConcurrentPerSession must be a whole number ≥ 1, got ${maxConcurrentPerSession}`);
  }
  /** Requests in progress per live session (a batch counts as its members); an ended session's entry goes with it. */
  const inFlight = new WeakMap<Session, number>();

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
    // Peek first: a request from anyone but the owner must not keep the session alive.
    const session = sessions.peek(sessionId);
    // A session belongs to the principal that created it. Another principal's request on it is
    // answered exactly like an unknown session (404), as if sessions were keyed by
    // `<principal>:<session id>` (MCP security best practices, session hijacking): the answer
    // confirms nothing about which ids are live, and a client that gets 404 starts a session of its
    // own, which is the right recovery. A 403 would confirm the id, and in MCP reads as
    // insufficient_scope.
    const foreign = session !== undefined && session.owner !== c.get('principal')?.id;
    if (!session || foreign) {
      if (foreign) {
        logger.warn({ session_id: sessionId, principal: c.get('principal')?.id }, 'request on a session of another principal refused');
        try {
          onForeignSession?.();
        } catch {
          // metrics must never turn a refusal into a 500
        }
      }
      return c.json(
        jsonRpcErrorBody(SESSION_NOT_FOUND, 'Session not found: it ended, expired or never existed; send a new initialize request without Mcp-Session-Id'),
        404,
      );
    }
    sessions.get(sessionId); // the owner's request: refresh the idle timer and recency
    if (c.req.method !== 'POST') return session.transport.handleRequest(c.req.raw, { authInfo: c.get('authInfo') });

    // One client flooding its session with requests it does not read must not hold unbounded
    // streams and buffers; it is told to slow down, and other sessions are unaffected. A JSON-RPC
    // batch counts as the requests it holds (the SDK accepts up to 100 in one POST), so batching
    // cannot multiply the limit. The body is parsed here once and handed to the transport.
    const text = await c.req.text();
    let parsed: unknown;
    let parsedOk = true;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsedOk = false;
    }
    const weight = parsedOk && Array.isArray(parsed) ? Math.max(parsed.length, 1) : 1;
    if (weight > maxConcurrentPerSession) {
      return c.json(
        jsonRpcErrorBody(
          INVALID_REQUEST,
          `Invalid Request: a batch of ${weight} messages exceeds the ${maxConcurrentPerSession} requests a session may have in progress; send at most ${maxConcurrentPerSession} at a time`,
        ),
        400,
      );
    }
    const running = inFlight.get(session) ?? 0;
    if (running + weight > maxConcurrentPerSession) {
      return c.json(
        jsonRpcErrorBody(
          SERVER_ERROR,
          `Too Many Requests: this session already has ${running} requests in progress (the limit is ${maxConcurrentPerSession}); wait for one to finish or retry after ${RETRY_AFTER_SECONDS} s`,
        ),
        429,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    inFlight.set(session, running + weight);
    const release = () => inFlight.set(session, (inFlight.get(session) ?? weight) - weight);
    let response: Response;
    try {
      // Unparseable bodies go to the transport as they came, so it answers them exactly as it would.
      const request = parsedOk ? c.req.raw : new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: text });
      response = await session.transport.handleRequest(request, parsedOk ? { authInfo: c.get('authInfo'), parsedBody: parsed } : { authInfo: c.get('authInfo') });
    } catch (error) {
      release();
      throw error;
    }
    return onceFinished(response, release);
  };
}
