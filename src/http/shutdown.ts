// Graceful shutdown for SIGTERM/SIGINT. Order matters:
//   1. mark the server draining: /readyz answers 503 and new sessions get a 503 JSON-RPC error, so a
//      load balancer stops routing here and clients reconnect elsewhere. The listener stays open
//      meanwhile, so probes and new clients get those answers instead of "connection refused";
//   2. let in-flight requests finish, except standalone SSE streams (GET), which never end on their
//      own and would otherwise hold the drain until the deadline;
//   3. stop accepting connections and close every session, which ends those SSE streams;
//   4. force-close whatever is left once the drain deadline passes, and report.
// The whole sequence is bounded by `drainTimeoutMs`, so a stuck request cannot block the exit.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';

export interface ShutdownOptions {
  logger: Logger;
  /** Upper bound on the whole drain, in milliseconds, > 0 (DRAIN_TIMEOUT_MS). */
  drainTimeoutMs: number;
  /**
   * Requests that stay open by design and are ended by closing sessions rather than awaited.
   * Default: GET requests that accept text/event-stream (the MCP standalone SSE stream).
   */
  isLongLived?: (req: IncomingMessage) => boolean;
}

export interface ShutdownTarget {
  /** The listening server; its in-flight requests are tracked from `attach` on. */
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

const isSseGet = (req: IncomingMessage) =>
  req.method === 'GET' && (req.headers.accept ?? '').includes('text/event-stream');

export function createShutdown(options: ShutdownOptions): Shutdown {
  const { logger, drainTimeoutMs, isLongLived = isSseGet } = options;
  if (!Number.isFinite(drainTimeoutMs) || drainTimeoutMs <= 0) {
    throw new RangeError(`createShutdown: drainTimeoutMs must be a positive number of milliseconds, got ${drainTimeoutMs}`);
  }

  let draining = false;
  let target: ShutdownTarget | undefined;
  let running: Promise<ShutdownReport> | undefined;
  const open = new Map<ServerResponse, boolean>(); // response → long-lived?
  const waiters = new Set<() => void>();

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    open.set(res, isLongLived(req));
    res.once('close', () => {
      open.delete(res);
      for (const wake of waiters) wake();
    });
  };

  const count = (includeLongLived: boolean) => {
    let n = 0;
    for (const longLived of open.values()) if (includeLongLived || !longLived) n += 1;
    return n;
  };

  /** Resolves true when no matching request is open, false if the deadline came first. */
  const settle = (includeLongLived: boolean, deadline: number) =>
    new Promise<boolean>((resolve) => {
      const check = () => {
        if (count(includeLongLived) === 0) finish(true);
      };
      const timer = setTimeout(() => finish(false), Math.max(0, deadline - Date.now()));
      const finish = (ok: boolean) => {
        clearTimeout(timer);
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
    await settle(false, deadline);
    server.close(); // stop accepting; Node also closes idle keep-alive connections here
    try {
      await withDeadline(closeSessions, deadline);
    } catch (error) {
      logger.error({ err: error }, 'shutdown: closing sessions failed');
    }
    const drained = await settle(true, deadline);
    const abandoned = open.size;
    server.closeAllConnections();
    const report = { reason, drained, abandoned, durationMs: Date.now() - started };
    const fields = { reason, drained, abandoned, duration_ms: report.durationMs };
    if (drained) logger.info(fields, 'shutdown complete');
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
      next.server.on('request', onRequest);
    },
    run(reason) {
      running ??= drain(reason);
      return running;
    },
  };
}
