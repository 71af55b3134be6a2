// The MCP endpoint, one URL for two protocol eras. Each request is classified once, on a body parsed
// once, with SDK v2's own predicate (`isLegacyRequest`), and routed:
//   legacy (initialize, and every request carrying Mcp-Session-Id): to legacy-requests.ts, sessions on
//     the 1.x web-standard Streamable HTTP transport.
//   modern (2026-07-28: the request carries its protocol version in `_meta`): SDK v2's strict handler,
//     which builds a server per request; nothing outlives the request but a `subscriptions/listen`
//     stream, which is bounded on its own (listen-stream.ts) and never counts as a request in progress.
import { isLegacyRequest } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { Logger } from '../../logger.js';
import { jsonRpcErrorBody, SERVER_ERROR } from '../json-rpc-error.js';
import type { McpEvents } from '../mcp-events.js';
import type { McpEra } from '../mcp-service.js';
import type { LegacyRequestHandler } from './legacy-requests.js';
import { endWhenIdle, listenRequestId } from './listen-stream.js';
import { jsonResponse, readBody, weightOf } from './mcp-request.js';
import type { McpFetchHandler, McpRequestInfo, ReadBody } from './mcp-request.js';
import { onceFinished } from './once-finished.js';
import type { ListenStreamLimits, RequestBudgets } from './request-budgets.js';

export interface EraRouterOptions {
  /** Serves legacy requests (legacy-requests.ts). */
  legacy: LegacyRequestHandler;
  /** Serves modern (2026-07-28) requests: SDK v2's `createMcpHandler(…, { legacy: 'reject' })`. */
  modern: McpHttpHandler;
  budgets: RequestBudgets;
  /** The listen streams' idle lifetime (the bound on their number is in `budgets`). */
  listen: Pick<ListenStreamLimits, 'idleMs'>;
  events: McpEvents;
  logger: Logger;
}

export function eraRouter({ legacy, modern, budgets, listen, events, logger }: EraRouterOptions): McpFetchHandler {
  /**
   * A modern request: no session to bound, so the in-flight bound is the principal's (or the client
   * address's). The handler answers the revision's own refusals (-32020 header/body mismatch, -32022
   * unsupported version).
   */
  async function serveModern(request: Request, context: McpRequestInfo, body: ReadBody): Promise<Response> {
    const listenId = listenRequestId(body.parsed);
    if (listenId !== undefined) return serveListen(request, context, body, listenId);
    return budgets.counted(weightOf(body), [budgets.requester(context)], () => modern.fetch(request, { authInfo: context.authInfo, parsedBody: body.parsed }));
  }

  /**
   * A `subscriptions/listen` request: its answer is a stream that stays open while the client
   * listens, so it is not a request in progress (it would hold a slot of the request budget for
   * hours, and a few dozen idle listeners would refuse everyone's requests, server/discover included).
   * It counts against a bound of open streams of its own until it ends, and ends when idle.
   */
  async function serveListen(request: Request, context: McpRequestInfo, body: ReadBody, listenId: string | number): Promise<Response> {
    const budget = budgets.listen(context);
    const open = budget.running();
    if (open >= budget.limit) {
      return jsonResponse(
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
      response = await modern.fetch(request, { authInfo: context.authInfo, parsedBody: body.parsed });
    } catch (error) {
      budget.add(-1);
      throw error;
    }
    const idle = endWhenIdle(response, { idleMs: listen.idleMs, listenId, onIdle: () => logger.debug({ era: 'modern' }, 'idle subscriptions/listen stream ended') });
    return onceFinished(idle, () => budget.add(-1));
  }

  function routed(context: McpRequestInfo, era: McpEra): void {
    context.routed?.(era);
    events.emit('request', era);
  }

  return async function routeByEra(request, context) {
    const method = request.method;
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      return jsonResponse(jsonRpcErrorBody(SERVER_ERROR, 'Method not allowed'), 405, { Allow: 'GET, POST, DELETE' });
    }
    const sessionId = request.headers.get('mcp-session-id');
    // The body is read once, here; both eras get it parsed.
    const body = method === 'POST' ? await readBody(request) : undefined;
    // A request on a session is legacy by construction: 2026-07-28 has no sessions. Otherwise the SDK's
    // own predicate decides; an unparseable body has no envelope claim, so it is legacy too.
    const isLegacy = sessionId !== null || body === undefined || !body.parsedOk || (await isLegacyRequest(request, body.parsed));
    routed(context, isLegacy ? 'legacy' : 'modern');
    return isLegacy ? legacy(request, context, body) : serveModern(request, context, body!);
  };
}
