// The status a request was really answered with, for the request log and the HTTP metrics. A handler
// that writes the Node response itself (oidc-provider's endpoints and redirects) returns
// RESPONSE_ALREADY_SENT: Hono then holds a placeholder 200, and a 400 invalid_client or a 201
// registration would be logged and counted as 200.
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** The header @hono/node-server marks RESPONSE_ALREADY_SENT with. */
const ALREADY_SENT = 'x-hono-already-sent';

/** True when the response was written to the Node response directly (reading `c.res` then would make Hono build one to send). */
export function sentDirectly(c: Context): boolean {
  return c.res.headers.has(ALREADY_SENT);
}

/**
 * `c.res.status`, or for a response written directly, the Node response's status once it has
 * finished (or its connection closed).
 */
export async function sentStatus(c: Context): Promise<number> {
  if (!sentDirectly(c)) return c.res.status;
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing === undefined) return c.res.status;
  if (!outgoing.writableFinished && !outgoing.destroyed) {
    await new Promise<void>((resolve) => {
      const done = () => {
        outgoing.off('finish', done);
        outgoing.off('close', done);
        resolve();
      };
      outgoing.on('finish', done);
      outgoing.on('close', done);
    });
  }
  return outgoing.statusCode;
}
