// The bounds on MCP requests in progress, so one client flooding the endpoint with requests it does
// not read cannot hold unbounded streams and buffers: per legacy session, per principal over both
// eras (per client address with authentication off), and, apart from those, per principal (or
// address) on open `subscriptions/listen` streams. A request counts until its answer has been read to
// the end or abandoned (once-finished.ts).
import { INVALID_REQUEST, jsonRpcErrorBody, SERVER_ERROR } from '../json-rpc-error.js';
import type { Session } from '../sessions/session-registry.js';
import { jsonResponse } from './mcp-request.js';
import type { McpRequestInfo } from './mcp-request.js';
import { onceFinished } from './once-finished.js';

export interface RequestBudgetLimits {
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
   * With authentication off, the same bound per client address (the socket's, see
   * src/http/client-address.ts), over both eras, ≥ 1. Larger than the principal's: one address may
   * be a whole team behind a NAT, or a hosted client such as Claude, which connects from a handful of
   * addresses for all its users.
   */
  maxConcurrentPerAddress: number;
  /** Bounds on modern `subscriptions/listen` streams, which hold a connection until the client goes away. */
  listen: ListenStreamLimits;
}

export interface ListenStreamLimits {
  /** Listen streams one authenticated principal may hold open at once, ≥ 1; one more gets 429. */
  maxPerPrincipal: number;
  /** With authentication off, listen streams one client address may hold open at once, ≥ 1; one more gets 429. */
  maxPerAddress: number;
  /** A listen stream that has carried no event for this long is ended gracefully, in milliseconds, ≥ 1. */
  idleMs: number;
}

/** One bound on requests in progress: how many run now, how many may, and how to name it in a refusal. */
export interface Budget {
  running(): number;
  limit: number;
  holder: string;
  add(delta: number): void;
}

export interface RequestBudgets {
  /** The request's legacy session's own budget. */
  session(session: Session): Budget;
  /** The budget a request counts against besides its session's: its principal's or, with authentication off, its client address's. */
  requester(context: McpRequestInfo): Budget;
  /** The open listen streams of the request's principal or, with authentication off, of its client address. */
  listen(context: McpRequestInfo): Budget;
  /**
   * Serves `produce` if every budget has room for `weight` more, counting it against all of them
   * until its answer has been read to the end or abandoned; otherwise answers the first refusal.
   */
  counted(weight: number, budgets: readonly Budget[], produce: () => Promise<Response>): Promise<Response>;
}

/** Seconds a client is told to wait after a 429. */
const RETRY_AFTER_SECONDS = 1;

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
 * Admits a request of `weight` JSON-RPC messages against a budget, or answers why not: a batch
 * larger than the whole budget can never fit (400), a full budget is told to slow down (429).
 */
function refuseOverBudget(weight: number, { running, limit, holder }: Budget): Response | undefined {
  if (weight > limit) {
    return jsonResponse(
      jsonRpcErrorBody(
        INVALID_REQUEST,
        `Invalid Request: a batch of ${weight} messages exceeds the ${limit} requests ${holder} may have in progress; send at most ${limit} at a time`,
      ),
      400,
    );
  }
  const now = running();
  if (now + weight > limit) {
    return jsonResponse(
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

/** Throws a RangeError at boot for a limit that is not a whole number ≥ 1. */
export function createRequestBudgets(limits: RequestBudgetLimits): RequestBudgets {
  const { maxConcurrentPerSession, maxConcurrentPerPrincipal, maxConcurrentPerAddress, listen } = limits;
  for (const [name, value] of [
    ['maxConcurrentPerSession', maxConcurrentPerSession],
    ['maxConcurrentPerPrincipal', maxConcurrentPerPrincipal],
    ['maxConcurrentPerAddress', maxConcurrentPerAddress],
    ['listen.maxPerPrincipal', listen.maxPerPrincipal],
    ['listen.maxPerAddress', listen.maxPerAddress],
    ['listen.idleMs', listen.idleMs],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`createMcpEndpoint: ${name} must be a whole number ≥ 1, got ${value}`);
  }
  /** Requests in progress per live session (a batch counts as its members); an ended session's entry goes with it. */
  const inFlight = new WeakMap<Session, number>();
  /** Requests in progress per principal id, both eras; an entry is removed when it drops to 0. The same per client address below. */
  const inFlightByPrincipal = new Map<string, number>();
  const inFlightByAddress = new Map<string, number>();
  /** Open listen streams per principal id, and per client address with authentication off. */
  const listeningByPrincipal = new Map<string, number>();
  const listeningByAddress = new Map<string, number>();
  const anonymous = 'this client address (authentication is off)';

  return {
    session: (session) => ({
      running: () => inFlight.get(session) ?? 0,
      limit: maxConcurrentPerSession,
      holder: 'this session',
      add: (delta) => inFlight.set(session, (inFlight.get(session) ?? 0) + delta),
    }),
    requester: ({ principal, clientAddress }) =>
      principal === undefined
        ? keyedBudget(inFlightByAddress, clientAddress, maxConcurrentPerAddress, anonymous)
        : keyedBudget(inFlightByPrincipal, principal, maxConcurrentPerPrincipal, 'this principal'),
    listen: ({ principal, clientAddress }) =>
      principal === undefined
        ? keyedBudget(listeningByAddress, clientAddress, listen.maxPerAddress, anonymous)
        : keyedBudget(listeningByPrincipal, principal, listen.maxPerPrincipal, 'this principal'),
    async counted(weight, budgets, produce) {
      for (const budget of budgets) {
        const refusal = refuseOverBudget(weight, budget);
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
    },
  };
}
