// Socket-level limits for the Node HTTP server, so a slow or vanished client cannot hold a connection
// forever: a request must arrive in full within the request timeout (slowloris), an idle keep-alive
// connection is closed after a few seconds, and TCP keep-alive probes notice peers that disappeared
// without closing. Open SSE streams are not cut by these: the MCP transport writes a keep-alive comment
// every 15 s (a write to a dead peer fails), and the session's idle TTL or eviction closes them.
import type { ServerOptions } from 'node:http';
import { SERVER_DEFAULTS } from '../config/server-defaults.js';

export interface HttpServerLimits {
  /** Longest time to receive a whole request, headers and body, in milliseconds, ≥ 1000. Default REQUEST_TIMEOUT_MS's. */
  requestTimeoutMs?: number;
  /**
   * Longest time to receive the request line and headers, in milliseconds, ≥ 1000; at most
   * requestTimeoutMs (Node requires it). Default 10000: real clients send headers in one go, so a
   * slow trickle of headers is a client holding a socket for nothing.
   */
  headersTimeoutMs?: number;
  /** Idle time after which a keep-alive connection between requests is closed, in milliseconds. Default 5000. */
  keepAliveTimeoutMs?: number;
  /** Idle time before the first TCP keep-alive probe on a connection, in milliseconds. Default 30000. */
  tcpKeepAliveDelayMs?: number;
}

/** Options for `http.createServer` (or @hono/node-server's `serverOptions`). */
export function httpServerOptions(limits: HttpServerLimits = {}): ServerOptions {
  const { requestTimeoutMs = SERVER_DEFAULTS.requestTimeoutMs, keepAliveTimeoutMs = 5_000, tcpKeepAliveDelayMs = 30_000 } = limits;
  const headersTimeoutMs = Math.min(limits.headersTimeoutMs ?? 10_000, requestTimeoutMs);
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 1000) {
    throw new RangeError(`httpServerOptions: requestTimeoutMs must be a whole number ≥ 1000, got ${requestTimeoutMs}`);
  }
  if (!Number.isInteger(headersTimeoutMs) || headersTimeoutMs < 1000) {
    throw new RangeError(`httpServerOptions: headersTimeoutMs must be a whole number ≥ 1000, got ${headersTimeoutMs}`);
  }
  if (!Number.isInteger(keepAliveTimeoutMs) || keepAliveTimeoutMs < 1) {
    throw new RangeError(`httpServerOptions: keepAliveTimeoutMs must be a whole number ≥ 1, got ${keepAliveTimeoutMs}`);
  }
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: headersTimeoutMs,
    // Node checks those timeouts on this interval (30 s by default, which would let a slow client
    // hold a socket up to 30 s past its deadline).
    connectionsCheckingInterval: Math.min(1000, requestTimeoutMs),
    keepAliveTimeout: keepAliveTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelay: tcpKeepAliveDelayMs,
  };
}
