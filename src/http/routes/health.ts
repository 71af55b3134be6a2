// Liveness and readiness. /healthz says the process is up and serving HTTP (a supervisor restarts it
// otherwise); /readyz says it can answer tool calls, i.e. the index is built (a load balancer sends
// traffic only then).
import { Hono } from 'hono';
import type { IndexHolder } from '../../mcp/index-holder.js';

export interface HealthRoutesOptions {
  index: IndexHolder;
  /** Extra reasons to report not ready, e.g. shutting down. Return a reason string, or undefined when fine. */
  notReadyReason?: () => string | undefined;
}

export function healthRoutes({ index, notReadyReason }: HealthRoutesOptions): Hono {
  const routes = new Hono();
  routes.get('/healthz', (c) => c.json({ status: 'ok' }));
  routes.get('/readyz', (c) => {
    const extra = notReadyReason?.();
    if (extra !== undefined) return c.json({ status: 'unavailable', reason: extra }, 503);
    if (index.failure) return c.json({ status: 'failed', reason: 'the index failed to build' }, 503);
    const served = index.current;
    if (!served) return c.json({ status: 'starting', reason: 'the index is being built' }, 503);
    const { documents, chunks } = served.index.stats;
    return c.json({ status: 'ready', documents, chunks, skipped: served.skipped.length });
  });
  return routes;
}
