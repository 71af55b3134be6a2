// The MCP endpoint, one URL for two protocol eras. Each request is classified once, on a body parsed
// once, with SDK v2's own predicate (`isLegacyRequest`), and routed:
//   legacy (initialize, and every request carrying Mcp-Session-Id): POST (client messages), GET (the
//     server-to-client SSE stream) and DELETE (end the session), handed to the 1.x web-standard
//     Streamable HTTP transport of the session named by the Mcp-Session-Id header. A POST without that
//     header must be an initialize request; it gets a fresh transport and server, registered in the
//     session registry once the transport assigns the id. An id this process does not hold is
//     re-created from the id itself (durable-sessions.ts). Without sessions (MCP_SESSIONS=off) every
//     legacy POST gets a fresh server and nothing outlives the request.
//   modern (2026-07-28: the request carries its protocol version in `_meta`): SDK v2's strict handler,
//     which builds a server per request; nothing outlives the request but a `subscriptions/listen`
//     stream, which is bounded on its own (listen-stream.ts) and never counts as a request in progress.
import type { Context } from 'hono';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import type { McpEra } from '../../mcp/mcp-service.js';
import type { AppEnv } from '../app-env.js';
import type { DurableSessions, SessionRefusal } from '../durable-sessions.js';
import { INVALID_REQUEST, jsonRpcErrorBody, PARSE_ERROR, SERVER_ERROR, SESSION_NOT_FOUND } from '../json-rpc-error.js';
import type { Session } from '../sessions.js';
import { clientAddress } from '../client-address.js';
import { endWhenIdle, listenRequestId } from '../listen-stream.js';

export interface McpHandlerOptions {
  /** Opens, finds, re-creates and revokes legacy sessions; undefined serves without sessions (MCP_SESSIONS=off). */
  durable: DurableSessions | undefined;
  /** Makes the 1.x MCP server for a legacy session, or for one request without sessions (shared handlers; see createLegacyServerFactory). */
  createServer: () => Server;
  /** Serves modern (2026-07-28) requests: SDK v2's `createMcpHandler(…, { legacy: 'reject' })`. */
  modern: McpHttpHandler;
  logger?: Logger;
  /**
   * JSON-RPC requests one legacy session may have in progress at once, ≥ 1 (a batch counts as its
   * members); more get 429 with Retry-After. A request counts until its response has been read to the
   * end or abandoned.
   */
  maxConcurrentPerSession: number;
  /**
   * JSON-RPC requests one authenticated principal may have in progress at once, over all its legacy
   * sessions (initialize included) and its modern requests together, ≥ 1; counted and answered like
   * the per-session bound. An open GET stream is not a request in progress: each session holds at
   * most one, and sessions per principal are bounded by the registry. Nor is a listen stream (see
   * `listen`).
   */
  maxConcurrentPerPrincipal: number;
  /**
   * With authentication off, the same bound per client address (the socket's, see client-address.ts),
   * over both eras, ≥ 1. Larger than the principal's: one address may be a whole team behind a NAT,
   * or a hosted client such as Claude, which connects from a handful of addresses for all its users.
   */
  maxConcurrentPerAddress: number;
  /** Bounds on modern `subscriptions/listen` streams, which hold a connection until the client goes away. */
  listen: ListenStreamLimits;
  /** Called when a request names a session that belongs to another principal (metrics). Must not throw. */
  onForeignSession?: () => void;
  /** Called when a request's session id is refused for any reason, or re-created (metrics). Must not throw. */
  onSessionLookup?: (outcome: SessionRefusal | 'restored') => void;
  /** Called once per request that reached the endpoint, with the era it was routed to (metrics). Must not throw. */
  onRequestEra?: (era: McpEra) => void;
}

export interface ListenStreamLimits {
  /** Listen streams one authenticated principal may hold open at once, ≥ 1; one more gets 429. */
  maxPerPrincipal: number;
  /** With authentication off, listen streams one client address may hold open at once, ≥ 1; one more gets 429. */
  maxPerAddress: number;
  /** A listen stream that has carried no event for this long is ended gracefully, in milliseconds, ≥ 1. */
  idleMs: number;
}

/** Seconds a client is told to wait after a 429. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Largest piece of an answer handed to the socket in one write. An answer is one chunk (a JSON body,
 * or one SSE event), up to megabytes; Node reports a write done only when all of it has left, so a
 * client reading a big answer slowly would look stuck to the write deadline (socket-guards.ts) until
 * its very last byte. In pieces, every piece taken shows progress.
 */
const WRITE_PIECE_BYTES = 64 * 1024;

/**
 * The same response, calling `done` exactly once when its body has been read to the end, failed, or
 * was cancelled by the client going away (or cut off by the write deadline). A POST's answer is an
 * SSE stream that ends only when the request has been answered, so this is when the request stops
 * holding resources. The body is passed on in pieces of at most WRITE_PIECE_BYTES.
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
  /** What is left of the chunk being passed on (views of it, never copies). */
  let rest: Uint8Array | undefined;
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let chunk: Uint8Array | undefined = rest;
        if (chunk === undefined) {
          const read = await reader.read();
          if (read.done) {
            finish();
            controller.close();
            return;
          }
          chunk = read.value as Uint8Array;
        }
        rest = chunk.byteLength > WRITE_PIECE_BYTES ? chunk.subarray(WRITE_PIECE_BYTES) : undefined;
        controller.enqueue(rest === undefined ? chunk : chunk.subarray(0, WRITE_PIECE_BYTES));
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

/** A POST body as read once: its text, and its JSON value when it parses. */
interface ReadBody {
  text: string;
  parsed: unknown;
  parsedOk: boolean;
}

async function readBody(c: Context<AppEnv>): Promise<ReadBody> {
  const text = await c.req.text();
  try {
    return { text, parsed: JSON.parse(text), parsedOk: true };
  } catch {
    return { text, parsed: undefined, parsedOk: false };
  }
}

const notFound = (c: Context<AppEnv>) =>
  c.json(
    jsonRpcErrorBody(SESSION_NOT_FOUND, 'Session not found: it ended, expired or never existed; send a new initialize request without Mcp-Session-Id'),
    404,
  );

/** One legacy request, one server, no session: the transport has no id generator, so it issues no Mcp-Session-Id. */
async function serveWithoutSession(c: Context<AppEnv>, body: ReadBody | undefined, createServer: () => Server, logger: Logger): Promise<Response> {
  if (body === undefined) {
    return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Method not allowed: this server keeps no sessions (MCP_SESSIONS=off); send every message as a POST'), 405, { Allow: 'POST' });
  }
  if (!body.parsedOk) return c.json(jsonRpcErrorBody(PARSE_ERROR, 'Parse error: the request body is not valid JSON'), 400);
  const server = createServer();
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  server.onerror = (error) => logger.debug({ err: error }, 'mcp transport error');
  await server.connect(transport);
  let response: Response;
  try {
    response = await transport.handleRequest(c.req.raw, { authInfo: c.get('authInfo'), parsedBody: body.parsed });
  } catch (error) {
    await server.close();
    throw error;
  }
  return onceFinished(response, () => void server.close().catch(() => {}));
}

export function mcpHandler({
  durable,
  createServer,
  modern,
  logger = silentLogger,
  maxConcurrentPerSession,
  maxConcurrentPerPrincipal,
  maxConcurrentPerAddress,
  listen,
  onForeignSession,
  onRequestEra,
  onSessionLookup,
}: McpHandlerOptions) {
  for (const [name, value] of [
    ['maxConcurrentPerSession', maxConcurrentPerSession],
    ['maxConcurrentPerPrincipal', maxConcurrentPerPrincipal],
    ['maxConcurrentPerAddress', maxConcurrentPerAddress],
    ['listen.maxPerPrincipal', listen.maxPerPrincipal],
    ['listen.maxPerAddress', listen.maxPerAddress],
    ['listen.idleMs', listen.idleMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`mcpHandler: ${name} must be a whole number ≥ 1, got ${value}`);
  }
  /** Requests in progress per live session (a batch counts as its members); an ended session's entry goes with it. */
  const inFlight = new WeakMap<Session, number>();
  /** Requests in progress per principal id, both eras; an entry is removed when it drops to 0. The same per client address below. */
  const inFlightByPrincipal = new Map<string, number>();
  const inFlightByAddress = new Map<string, number>();
  /** Open listen streams per principal id, and per client address with authentication off. */
  const listeningByPrincipal = new Map<string, number>();
  const listeningByAddress = new Map<string, number>();

  /** One bound on requests in progress: how many run now, how many may, and how to name it in a refusal. */
  interface Budget {
    running(): number;
    limit: number;
    holder: string;
    add(delta: number): void;
  }
  const sessionBudget = (session: Session): Budget => ({
    running: () => inFlight.get(session) ?? 0,
    limit: maxConcurrentPerSession,
    holder: 'this session',
    add: (delta) => inFlight.set(session, (inFlight.get(session) ?? 0) + delta),
  });
  /** A budget counted in `counts` under `key`, whose entry is removed when it drops to 0. */
  const keyedBudget = (counts: Map<string, number>, key: string, limit: number, holder: string): Budget => ({
    running: () => counts.get(key) ?? 0,
    limit,
    holder,
    add: (delta) => {
      const left = (counts.get(key) ?? 0) + delta;
      if (left > 0) counts.set(key, left);
      else counts.delete(key);
    },
  });
  /**
   * The budget a request counts against besides its session's: its principal's or, with
   * authentication off, its client address's.
   */
  const requesterBudget = (c: Context<AppEnv>): Budget => {
    const principal = c.get('principal')?.id;
    return principal === undefined
      ? keyedBudget(inFlightByAddress, clientAddress(c), maxConcurrentPerAddress, 'this client address (authentication is off)')
      : keyedBudget(inFlightByPrincipal, principal, maxConcurrentPerPrincipal, 'this principal');
  };
  /** The open listen streams of the request's principal or, with authentication off, of its client address. */
  const listenBudget = (c: Context<AppEnv>): Budget => {
    const principal = c.get('principal')?.id;
    return principal === undefined
      ? keyedBudget(listeningByAddress, clientAddress(c), listen.maxPerAddress, 'this client address (authentication is off)')
      : keyedBudget(listeningByPrincipal, principal, listen.maxPerPrincipal, 'this principal');
  };
  const legacyBudgets = (c: Context<AppEnv>): Budget[] => [requesterBudget(c)];

  /**
   * Admits a request of `weight` JSON-RPC messages against a budget, or answers why not: a batch
   * larger than the whole budget can never fit (400), a full budget is told to slow down (429).
   */
  function refuseOverBudget(c: Context<AppEnv>, weight: number, { running, limit, holder }: Budget): Response | undefined {
    if (weight > limit) {
      return c.json(
        jsonRpcErrorBody(
          INVALID_REQUEST,
          `Invalid Request: a batch of ${weight} messages exceeds the ${limit} requests ${holder} may have in progress; send at most ${limit} at a time`,
        ),
        400,
      );
    }
    const now = running();
    if (now + weight > limit) {
      return c.json(
        jsonRpcErrorBody(
          SERVER_ERROR,
          `Too Many Requests: ${holder} already has ${now} requests in progress (the limit is ${limit}); wait for one to finish or retry after ${RETRY_AFTER_SECONDS} s`,
        ),
        429,
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
    return undefined;
  }

  /**
   * Serves `produce` if every budget has room for `weight` more, counting it against all of them
   * until its answer has been read to the end or abandoned; otherwise answers the first refusal.
   */
  async function counted(c: Context<AppEnv>, weight: number, budgets: readonly Budget[], produce: () => Promise<Response>): Promise<Response> {
    for (const budget of budgets) {
      const refusal = refuseOverBudget(c, weight, budget);
      if (refusal) return refusal;
    }
    for (const budget of budgets) budget.add(weight);
    const release = () => {
      for (const budget of budgets) budget.add(-weight);
    };
    let response: Response;
    try {
      response = await produce();
    } catch (error) {
      release();
      throw error;
    }
    return onceFinished(response, release);
  }

  const report = (outcome: SessionRefusal | 'restored') => {
    try {
      onSessionLookup?.(outcome);
      if (outcome === 'foreign') onForeignSession?.();
    } catch {
      // metrics must never turn an answer into a 500
    }
  };

  const weightOf = (body: ReadBody) => (body.parsedOk && Array.isArray(body.parsed) ? Math.max(body.parsed.length, 1) : 1);

  async function startSession(c: Context<AppEnv>, sessions: DurableSessions, body: ReadBody): Promise<Response> {
    if (!body.parsedOk) {
      return c.json(jsonRpcErrorBody(PARSE_ERROR, 'Parse error: the request body is not valid JSON'), 400);
    }
    if (!isInitialize(body.parsed)) {
      return c.json(
        jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: no Mcp-Session-Id header; start a session with an initialize request first'),
        400,
      );
    }
    return counted(c, weightOf(body), legacyBudgets(c), () => sessions.open(c.req.raw, body.parsed, c.get('principal')?.id, c.get('authInfo')));
  }

  /** DELETE of a session this process does not hold: the id is revoked without re-creating anything. */
  async function endUnheldSession(c: Context<AppEnv>, sessions: DurableSessions, sessionId: string): Promise<Response> {
    const checked = await sessions.claims(sessionId, c.get('principal')?.id);
    if ('refused' in checked) {
      report(checked.refused);
      return notFound(c);
    }
    await sessions.revoke(sessionId, checked.claims.expiresAt);
    return c.body(null, 200);
  }

  async function onSession(c: Context<AppEnv>, sessions: DurableSessions, sessionId: string, body: ReadBody | undefined): Promise<Response> {
    const principal = c.get('principal')?.id;
    // Ending a session this process does not hold needs no server: revoke its id and be done.
    if (c.req.method === 'DELETE' && !sessions.holds(sessionId)) return endUnheldSession(c, sessions, sessionId);
    // A request from anyone but the owner must not keep the session alive, nor re-create it. A
    // session belongs to the principal that created it. Another principal's request on it is
    // answered exactly like an unknown session (404), as if sessions were keyed by
    // `<principal>:<session id>` (MCP security best practices, session hijacking): the answer
    // confirms nothing about which ids are live, and a client that gets 404 starts a session of its
    // own, which is the right recovery. A 403 would confirm the id, and in MCP reads as
    // insufficient_scope. Forged, altered, expired and revoked ids get the same answer.
    const found = await sessions.find(sessionId, principal, c.get('authInfo'));
    if ('refused' in found) {
      if (found.refused === 'foreign') logger.warn({ principal }, 'request on a session of another principal refused');
      else logger.debug({ reason: found.refused }, 'session id refused');
      report(found.refused);
      return notFound(c);
    }
    if (found.restored) report('restored');
    const { session } = found;
    sessions.touch(sessionId); // the owner's request: refresh the idle timer and recency
    if (c.req.method === 'DELETE') {
      // Revoke first, then close. Once the session has left the registry, a request for its id, here
      // or on another replica, re-creates it from the id unless the revocation is already recorded.
      if (session.expiresAt !== undefined) await sessions.revoke(sessionId, session.expiresAt);
      const response = await session.transport.handleRequest(c.req.raw, { authInfo: c.get('authInfo') });
      // Refused (an unsupported MCP-Protocol-Version header): the id is revoked all the same, so the
      // session ends with it rather than live on under an id that no longer re-creates it.
      if (!response.ok) sessions.end(session);
      return response;
    }
    if (body === undefined) return session.transport.handleRequest(c.req.raw, { authInfo: c.get('authInfo') });

    // One client flooding its session with requests it does not read must not hold unbounded
    // streams and buffers; it is told to slow down, and other sessions are unaffected. A JSON-RPC
    // batch counts as the requests it holds (the SDK accepts up to 100 in one POST), so batching
    // cannot multiply the limit. Opening more sessions cannot either: the principal's bound spans them.
    // Unparseable bodies go to the transport as they came, so it answers them exactly as it would.
    const request = body.parsedOk ? c.req.raw : new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: body.text });
    return counted(c, weightOf(body), [sessionBudget(session), ...legacyBudgets(c)], () =>
      session.transport.handleRequest(request, body.parsedOk ? { authInfo: c.get('authInfo'), parsedBody: body.parsed } : { authInfo: c.get('authInfo') }),
    );
  }

  /**
   * A modern request: no session to bound, so the in-flight bound is the principal's (or the client
   * address's). The handler answers the revision's own refusals (-32020 header/body mismatch, -32022
   * unsupported version).
   */
  async function serveModern(c: Context<AppEnv>, body: ReadBody): Promise<Response> {
    const listenId = listenRequestId(body.parsed);
    if (listenId !== undefined) return serveListen(c, body, listenId);
    return counted(c, weightOf(body), [requesterBudget(c)], () => modern.fetch(c.req.raw, { authInfo: c.get('authInfo'), parsedBody: body.parsed }));
  }

  /**
   * A `subscriptions/listen` request: its answer is a stream that stays open while the client
   * listens, so it is not a request in progress (it would hold a slot of the request budget for
   * hours, and a few dozen idle listeners would refuse everyone's requests, server/discover included).
   * It counts against a bound of open streams of its own until it ends, and ends when idle.
   */
  async function serveListen(c: Context<AppEnv>, body: ReadBody, listenId: string | number): Promise<Response> {
    const budget = listenBudget(c);
    const open = budget.running();
    if (open >= budget.limit) {
      return c.json(
        jsonRpcErrorBody(
          SERVER_ERROR,
          `Too Many Requests: ${budget.holder} already has ${open} subscriptions/listen streams open (the limit is ${budget.limit}); close one before listening again (an idle stream is closed after ${Math.ceil(listen.idleMs / 1000)} s)`,
        ),
        429,
      );
    }
    budget.add(1);
    let response: Response;
    try {
      response = await modern.fetch(c.req.raw, { authInfo: c.get('authInfo'), parsedBody: body.parsed });
    } catch (error) {
      budget.add(-1);
      throw error;
    }
    const idle = endWhenIdle(response, { idleMs: listen.idleMs, listenId, onIdle: () => logger.debug({ era: 'modern' }, 'idle subscriptions/listen stream ended') });
    return onceFinished(idle, () => budget.add(-1));
  }

  function routed(c: Context<AppEnv>, era: McpEra): void {
    c.set('era', era);
    try {
      onRequestEra?.(era);
    } catch {
      // metrics must never fail a request
    }
  }

  return async function mcpRoute(c: Context<AppEnv>): Promise<Response> {
    const method = c.req.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Method not allowed'), 405, { Allow: 'GET, POST, DELETE' });
    }
    const sessionId = c.req.header('mcp-session-id');
    // The body is read once, here; both eras get it parsed (Hono has consumed the stream).
    const body = method === 'POST' ? await readBody(c) : undefined;
    // A request on a session is legacy by construction: 2026-07-28 has no sessions. Otherwise the SDK's
    // own predicate decides; an unparseable body has no envelope claim, so it is legacy too.
    const legacy = sessionId !== undefined || body === undefined || !body.parsedOk || (await isLegacyRequest(c.req.raw, body.parsed));
    routed(c, legacy ? 'legacy' : 'modern');
    if (!legacy) return serveModern(c, body!);
    if (durable === undefined) {
      return body === undefined
        ? serveWithoutSession(c, body, createServer, logger)
        : counted(c, weightOf(body), legacyBudgets(c), () => serveWithoutSession(c, body, createServer, logger));
    }
    if (sessionId !== undefined) return onSession(c, durable, sessionId, body);
    if (body !== undefined) return startSession(c, durable, body);
    return c.json(jsonRpcErrorBody(SERVER_ERROR, 'Bad Request: Mcp-Session-Id header is required'), 400);
  };
}
