// POST /hooks/git: a signed push webhook starts a fetch of the git source at once (mounted only with
// CORPUS_GIT_WEBHOOK_SECRET). 401 for a missing or wrong signature, before anything else is done; a
// replayed delivery is answered 200 and starts nothing; otherwise 202 and the fetch runs behind it.
import { Hono } from 'hono';
import { DeliveryMemory, validSignature } from '../../git-source/webhook-signature.js';
import { smallBodyLimit } from '../middleware/small-body-limit.js';
import { SERVER_PATHS } from '../../server-paths.js';

const GIT_HOOK_PATH = SERVER_PATHS.gitHook;
/** Largest webhook body, in bytes: a push of 20 commits with long file lists stays well under it. */
export const GIT_HOOK_MAX_BYTES = 2 * 1024 * 1024;

export interface GitHookOptions {
  secret: string;
  /** Starts a fetch; not awaited. */
  sync: (trigger: string) => void;
}

export function gitHookRoutes({ secret, sync }: GitHookOptions): Hono {
  const deliveries = new DeliveryMemory();
  const routes = new Hono();
  routes.use(GIT_HOOK_PATH, smallBodyLimit({ maxBytes: GIT_HOOK_MAX_BYTES }));
  routes.post(GIT_HOOK_PATH, async (c) => {
    const body = new Uint8Array(await c.req.arrayBuffer());
    if (!validSignature(secret, body, c.req.header('x-hub-signature-256'))) {
      return c.json({ error: 'invalid_signature', message: 'X-Hub-Signature-256 must be sha256=<HMAC-SHA256 of the body under CORPUS_GIT_WEBHOOK_SECRET>' }, 401);
    }
    const delivery = c.req.header('x-github-delivery') ?? c.req.header('x-gitea-delivery');
    if (delivery !== undefined && !deliveries.first(delivery)) {
      return c.json({ accepted: false, reason: `delivery ${delivery.slice(0, 64)} was already received; nothing to do` });
    }
    if (c.req.header('x-github-event') === 'ping') return c.json({ accepted: false, reason: 'ping' });
    sync('webhook');
    return c.json({ accepted: true }, 202);
  });
  return routes;
}
