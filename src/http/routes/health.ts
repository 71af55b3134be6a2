// Liveness and readiness. /healthz says the process is up and serving HTTP (a supervisor restarts it
// otherwise); /readyz says it can answer tool calls, i.e. the index is built (a load balancer sends
// traffic only then).
import { Hono } from 'hono';
import type { IndexHolder } from '../../mcp/index-holder.js';
import type { SemanticService } from '../../semantic/semantic-service.js';

export interface HealthRoutesOptions {
  index: IndexHolder;
  /** Extra reasons to report not ready, e.g. shutting down. Return a reason string, or undefined when fine. */
  notReadyReason?: () => string | undefined;
  /**
   * Embeddings state. While the endpoint is down the server still answers every tool (by keywords),
   * so /readyz stays 200 with status "degraded" and the reason, for an operator rather than a load balancer.
   */
  semantic?: SemanticService;
}

export function healthRoutes({ index, notReadyReason, semantic }: HealthRoutesOptions): Hono {
  const routes = new Hono();
  routes.get('/healthz', (c) => c.json({ status: 'ok' }));
  routes.get('/readyz', (c) => {
    const extra = notReadyReason?.();
    if (extra !== undefined) return c.json({ status: 'unavailable', reason: extra }, 503);
    if (index.failure) return c.json({ status: 'failed', reason: 'the index failed to build' }, 503);
    const served = index.current;
    if (!served) return c.json({ status: 'starting', reason: 'the index is being built' }, 503);
    const { documents, chunks } = served.index.stats;
    const body = { status: 'ready', documents, chunks, skipped: served.skipped.length };
    const state = semantic?.state;
    if (state === undefined || state.state === 'off') return c.json(body);
    if (state.state === 'degraded') {
      return c.json({ ...body, status: 'degraded', reason: `semantic search unavailable, serving keyword search only: ${state.reason}`, semantic: state });
    }
    return c.json({ ...body, semantic: state });
  });
  return routes;
}
