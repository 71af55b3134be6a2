// Times every request and counts it by route pattern, method and status. The label is the pattern
// the router matched (`/mcp`, `/.well-known/*`), never the raw path, so scanners probing random URLs
// cannot grow the series count. Recorded in `finally` so a failing handler is still counted.
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Metrics } from '../metrics.js';
import { sentStatus } from './sent-status.js';

/**
 * The pattern of the route that answered. When nothing matched, Hono's not-found handler answers
 * while the last matched route is still a catch-all middleware: that case is labelled 'unmatched'.
 */
export function routeLabel(c: Context, status: number): string {
  const pattern = routePath(c);
  if (!pattern || (status === 404 && pattern.endsWith('*'))) return 'unmatched';
  return pattern;
}

export function httpMetrics(options: { metrics: Metrics }): MiddlewareHandler {
  const { metrics } = options;
  if (!metrics) throw new TypeError('httpMetrics: metrics is required');

  return async function httpMetricsMiddleware(c, next) {
    const start = performance.now();
    let status = 500;
    try {
      await next();
      status = await sentStatus(c);
    } finally {
      metrics.recordHttpRequest(c.req.method, routeLabel(c, status), status, (performance.now() - start) / 1000);
    }
  };
}
