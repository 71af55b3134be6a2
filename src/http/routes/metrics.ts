// GET /metrics: the app's own registry in Prometheus text format. Access control (METRICS_TOKEN) is
// a middleware mounted in front of this route, not a concern of the exposition.
import type { Handler } from 'hono';
import type { Metrics } from '../metrics.js';

export function metricsRoute(options: { metrics: Metrics }): Handler {
  const { metrics } = options;
  if (!metrics) throw new TypeError('metricsRoute: metrics is required');

  return async function metricsHandler(c) {
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
  };
}
