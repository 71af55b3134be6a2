// Guards /metrics with METRICS_TOKEN when one is set. A separate credential from the MCP tokens: a
// Prometheus scraper should not hold a key that also reads the documents, and vice versa.
import type { MiddlewareHandler } from 'hono';
import { AuthError } from '../../auth/auth-error.js';
import { parseBearerHeader } from '../../auth/bearer-header.js';
import { createStaticTokens } from '../../auth/static-tokens.js';
import { authErrorResponse } from './auth.js';

export interface MetricsTokenOptions {
  /** The token scrapers send as `Authorization: Bearer <token>` (Prometheus `authorization.credentials`), ≥ 32 characters. */
  token: string;
  /** Called when a request is refused (metrics). Must not throw. */
  onRefused?: () => void;
}

/** Requires `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time; 401 with a `realm="metrics"` challenge otherwise. */
export function requireMetricsToken(options: MetricsTokenOptions): MiddlewareHandler {
  const { token, onRefused } = options;
  const tokens = createStaticTokens([token], { label: 'METRICS_TOKEN' });

  return async function metricsTokenMiddleware(c, next) {
    try {
      const presented = parseBearerHeader(c.req.header('authorization'));
      if (tokens.match(presented) === undefined) throw new AuthError('invalid_token', 'the bearer token is not METRICS_TOKEN');
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      try {
        onRefused?.();
      } catch {
        // metrics must never turn a refusal into a 500
      }
      return authErrorResponse(error, { realm: 'metrics' });
    }
    await next();
    return undefined;
  };
}
