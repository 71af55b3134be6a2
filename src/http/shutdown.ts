// Graceful shutdown for SIGTERM/SIGINT. Order matters:
//   1. mark the server draining: /readyz answers 503, new sessions get a 503 JSON-RPC error, and every
//      response from now on carries `Connection: close`, so no client reuses a connection to this
//      process and its next request opens a new one, which a load balancer sends elsewhere;
//   2. keep listening and serving while traffic still arrives: requests other than probes stop coming
//      once the load balancer has seen /readyz fail (or the orchestrator has removed the instance).
//      The listener closes when no such request has started for `quietMs` and none is in flight
//      (standalone SSE streams, GET, and 2026-07-28 subscriptions/listen streams are not waited for:
//      they never end on their own), or at half the
//      drain time. Closing it while requests still arrive would reset the connections waiting in the
//      kernel's accept queue, which a client cannot tell from a crash; a closed listener instead
//      refuses connections, which a load balancer retries on another instance;
//   3. stop accepting and close every session, which ends the SSE streams;
//   4. answer every connection already accepted, including one whose request has not arrived yet,
//      and close idle ones; force-close whatever is left once the drain deadline passes, and report.
// The whole sequence is bounded by `drainTimeoutMs`, so a stuck request cannot block the exit.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../logger.js';
import { PROBE_PATHS } from '../server-paths.js';

export interface ShutdownOptions {
  logger: Logger;
  /** Upper bound on the whole drain, in milliseconds, > 0 (DRAIN_TIMEOUT_MS). */
  drainTimeoutMs: number;
  /**
   * How long no request (other than a probe) must have started before the listener closes, in
   * milliseconds, ≥ 0; the wait never exceeds half of drainTimeoutMs. Default 1000: longer than a
   * load balancer polling /readyz every few hundred milliseconds takes to steer away.
   */
  quietMs?: number;
  /**
   * Requests that stay open by design and are ended by closing sessions rather than awaited.
   * Default: GET requests that accept text/event-stream (the MCP standalone SSE stream), and POSTs
   * whose Mcp-Method header names `subscriptions/listen` (SDK v2 refuses a body that contradicts it).
   */
  isLongLived?: (req: IncomingMessage) => boolean;
  /** Requests that do not count as traffic for `quietMs`. Default: GET /healthz and /readyz. */
  isProbe?: (req: IncomingMessage) => boolean;
}

export interface ShutdownTarget {
  /** The listening server; its connections and in-flight requests are tracked from `attach` on. */
  server: Server;
  /** Closes every session (their transports end any open SSE stream). */
  closeSessions: () => Promise<void> | void;
}

export interface ShutdownReport {
  /** Which signal or caller started it, e.g. 'SIGTERM'. */
  reason: string;
  /** True if every request ended before the deadline. */
  drained: boolean;
  /** Requests still open at the deadline and cut off. */
  abandoned: number;
  durationMs: number;
}

export interface Shutdown {
  /** True from the moment shutdown starts. The app consults it for /readyz and new sessions. */
  readonly draining: boolean;
  /** Requests currently being served (tracked after `attach`). */
  readonly inFlight: number;
  attach(target: ShutdownTarget): void;
  /** Starts the drain; later calls return the same promise. Never rejects. */
  run(reason: string): Promise<ShutdownReport>;
}

const isStream = (req: IncomingMessage) =>
  (req.method === 'GET' && (req.headers.accept ?? '').includes('text/event-stream')) ||
  (req.method === 'POST' && req.headers['mcp-method'] === 'subscriptions/listen');

/**
 * Makes `res` end its connection: `Connection: close`, even when the handler names keep-alive (the MCP
 * SDK does on its SSE responses), since headers given to writeHead would otherwise win over it.
 */
function closeConnectionAfter(res: ServerResponse): void {
  if (res.headersSent) return;
  res.setHeader('connection', 'close');
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const headers = args.at(-1);
    if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
      args[args.length - 1] = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'connection'));
    }
    return Reflect.apply(writeHead, this, args) as ServerResponse;
  } as ServerResponse['writeHead'];
}

const PROBES = new Set(PROBE_PATHS);
const isHealthProbe = (req: IncomingMessage) => req.method === 'GET' && PROBES.has((req.url ?? '').split('?')[0]!);

export function createShutdown(options: ShutdownOptions): Shutdown {
  const { logger, drainTimeoutMs, quietMs = 1000, isLongLived = isStream, isProbe = isHealthProbe } = options;
  if (!Number.isFinite(drainTimeoutMs) || drainTimeoutMs <= 0) {
    throw new RangeError(`createShutdown: drainTimeoutMs must be a positive number of milliseconds, got ${drainTimeoutMs}`);
  }
  if (!Number.isFinite(quietMs) || quietMs < 0) {
    throw new RangeError(`createShutdown: quietMs must be a number of milliseconds ≥ 0, got ${quietMs}`);
  }

  let draining = false;
  let target: ShutdownTarget | undefined;
  let running: Promise<ShutdownReport> | undefined;
  let lastTraffic = 0;
  const open = new Map<ServerResponse, boolean>(); // response → long-lived?
  const sockets = new Set<Socket>();
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
  };

  const onConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => {
      sockets.delete(socket);
      wake();
    });
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!isProbe(req)) lastTraffic = Date.now();
    // Runs before the app's handler (prepended), so the header is in place before any is written.
    if (draining) closeConnectionAfter(res);
    open.set(res, isLongLived(req));
    res.once('close', () => {
      open.delete(res);
      wake();
    });
  };

  const count = (includeLongLived: boolean) => {
    let n = 0;
    for (const longLived of open.values()) if (includeLongLived || !longLived) n += 1;
    return n;
  };

  /**
   * Resolves true once `done()` holds, false if the deadline comes first. Checked at once, whenever a
   * request or connection ends, and after `recheckMs()` when that says how long to wait.
   */
  const until = (done: () => boolean, deadline: number, recheckMs?: () => number | undefined) =>
    new Promise<boolean>((resolve) => {
      let recheck: NodeJS.Timeout | undefined;
      const check = () => {
        if (done()) return finish(true);
        const wait = recheckMs?.();
        clearTimeout(recheck);
        if (wait !== undefined) recheck = setTimeout(check, Math.max(1, wait));
      };
      const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        clearTimeout(recheck);
        waiters.delete(check);
        resolve(ok);
      };
      waiters.add(check);
      check();
    });

  const withDeadline = async (work: () => Promise<void> | void, deadline: number) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
    });
    try {
      await Promise.race([Promise.resolve().then(work), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const drain = async (reason: string): Promise<ShutdownReport> => {
    const started = Date.now();
    const deadline = started + drainTimeoutMs;
    draining = true;
    logger.info({ reason, in_flight: open.size, drain_timeout_ms: drainTimeoutMs }, 'shutdown started: draining');
    if (!target) {
      logger.warn({ reason }, 'shutdown: no server attached, nothing to drain');
      return { reason, drained: true, abandoned: 0, durationMs: Date.now() - started };
    }
    const { server, closeSessions } = target;
    for (const res of open.keys()) closeConnectionAfter(res);

    // 2. Listen until the traffic has moved elsewhere.
    const quietSince = () => Math.max(lastTraffic, started);
    const quiet = await until(
      () => count(false) === 0 && Date.now() - quietSince() >= quietMs,
      started + drainTimeoutMs / 2,
      () => {
        const left = quietSince() + quietMs - Date.now();
        return left > 0 ? left : undefined; // past it, the end of a request wakes the check
      },
    );
    if (!quiet) logger.warn({ reason, in_flight: count(false) }, 'shutdown: requests still arriving at half the drain time; closing the listener anyway');

    // 3. Stop accepting: connections are refused from here on. Node also closes idle keep-alive
    // connections now; connections accepted and not yet idle are answered below.
    server.close();
    try {
      await withDeadline(closeSessions, deadline);
    } catch (error) {
      logger.error({ err: error }, 'shutdown: closing sessions failed');
    }

    // 4. Every accepted connection gets its answer (with Connection: close, so it ends there); one
    // left idle after an answer that predates the drain (an SSE stream just ended) is closed.
    const drained = await until(() => {
      server.closeIdleConnections();
      return open.size === 0 && sockets.size === 0;
    }, deadline);
    const abandoned = open.size;
    server.closeAllConnections();
    for (const socket of sockets) socket.destroy();
    const report = { reason, drained: drained || abandoned === 0, abandoned, durationMs: Date.now() - started };
    const fields = { reason, drained: report.drained, abandoned, duration_ms: report.durationMs };
    if (report.drained) logger.info(fields, 'shutdown complete');
    else logger.warn(fields, 'shutdown deadline reached: open requests were cut off');
    return report;
  };

  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return open.size;
    },
    attach(next) {
      if (target) throw new Error('createShutdown: a server is already attached');
      target = next;
      next.server.prependListener('request', onRequest);
      next.server.on('connection', onConnection);
    },
    run(reason) {
      running ??= drain(reason);
      return running;
    },
  };
}
