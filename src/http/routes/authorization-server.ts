// The built-in authorization server on Hono. oidc-provider is a Koa application: its endpoints run on
// the Node request and response that @hono/node-server exposes, and Hono is told the response is
// already sent. The interaction routes (upstream sign-in, consent) are Hono handlers around the
// framework-free handlers in src/auth/server/.
import { IncomingMessage } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AuthorizationServer, InteractionOutcome } from '../../auth/server/authorization-server.js';
import { UPSTREAM_CALLBACK_PATH } from '../../auth/server/protocol.js';
import { PAGE_HEADERS } from '../../auth/server/consent-page.js';
import { bufferedBody } from '../middleware/small-body-limit.js';
import { SERVER_PATHS } from '../../server-paths.js';

/** oidc-provider's own endpoints, at the origin: Claude falls back to guessing these paths. */
const PROVIDER_PATHS = [
  '/authorize', '/authorize/:uid', '/token', '/register', '/register/:id', '/revoke', '/jwks',
  SERVER_PATHS.openidConfiguration, SERVER_PATHS.authorizationServerMetadata,
];

type Env = { Bindings: HttpBindings };

/**
 * The Node request oidc-provider reads. When the body limit had to read a body of undeclared length
 * (chunked) to bound it, the request is spent: oidc-provider gets a copy carrying the bytes read.
 */
function providerRequest(incoming: IncomingMessage): IncomingMessage {
  const body = bufferedBody(incoming);
  if (body === undefined) return incoming;
  const copy = new IncomingMessage(incoming.socket);
  copy.method = incoming.method;
  copy.url = incoming.url;
  copy.headers = incoming.headers;
  copy.rawHeaders = incoming.rawHeaders;
  copy.httpVersion = incoming.httpVersion;
  copy.httpVersionMajor = incoming.httpVersionMajor;
  copy.httpVersionMinor = incoming.httpVersionMinor;
  copy.push(body);
  copy.push(null);
  copy.complete = true;
  return copy;
}

/**
 * oidc-provider builds its URLs (discovery metadata, redirects, cookie paths) and decides on Secure
 * cookies from the request's Host and, as a Koa app behind a proxy, X-Forwarded-Host and -Proto. Any
 * client can send those, and a discovery document naming https://evil.example/token is the result.
 * The request it sees names the issuer instead, whatever arrived: every URL is PUBLIC_URL's, and its
 * cookies are Secure when PUBLIC_URL is https although TLS ended at the proxy in front.
 */
function pinToIssuer(incoming: IncomingMessage, issuer: URL): void {
  const { headers } = incoming;
  headers.host = issuer.host;
  headers['x-forwarded-host'] = issuer.host;
  headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
  delete headers['x-forwarded-port'];
  delete headers.forwarded;
}

function respond(c: Context<Env>, outcome: InteractionOutcome): Response {
  if (outcome.type === 'sent') return RESPONSE_ALREADY_SENT;
  if (outcome.type === 'redirect') return c.redirect(outcome.location, 303);
  return c.body(outcome.html, outcome.status as 200, PAGE_HEADERS);
}

export function authorizationServerRoutes(server: AuthorizationServer): Hono<Env> {
  const app = new Hono<Env>();
  const issuer = new URL(server.issuer);
  const node = (c: Context<Env>) => {
    if (c.env?.incoming === undefined) throw new Error('the authorization server needs @hono/node-server (c.env.incoming)');
    pinToIssuer(c.env.incoming, issuer);
    // Responses written to the Node response directly carry the request id too.
    const requestId = (c as unknown as { get(key: string): unknown }).get('requestId');
    if (typeof requestId === 'string') c.env.outgoing.setHeader('x-request-id', requestId);
    return c.env;
  };
  for (const path of PROVIDER_PATHS) {
    app.all(path, async (c) => {
      const { incoming, outgoing } = node(c);
      await server.handle(providerRequest(incoming), outgoing);
      return RESPONSE_ALREADY_SENT;
    });
  }
  app.get('/interaction/:uid', async (c) => {
    const { incoming, outgoing } = node(c);
    return respond(c, await server.showInteraction(incoming, outgoing, c.req.param('uid')));
  });
  app.get(UPSTREAM_CALLBACK_PATH, async (c) => respond(c, await server.upstreamCallback(new URL(c.req.url).searchParams)));
  app.get('/interaction/:uid/upstream', async (c) => {
    const { incoming, outgoing } = node(c);
    return respond(c, await server.finishUpstream(incoming, outgoing, c.req.param('uid'), new URL(c.req.url).searchParams));
  });
  // Both forms are read only after the interaction and its record are known (readForm), so a stranger's
  // POST is answered without its body being read.
  const formReader = (c: Context<Env>) => async () => {
    const body = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    return { csrf: field('csrf'), decision: field('decision') };
  };
  app.post('/interaction/:uid/return', async (c) => {
    const { incoming, outgoing } = node(c);
    return respond(c, await server.returnToApp(incoming, outgoing, c.req.param('uid'), formReader(c)));
  });
  app.post('/interaction/:uid/confirm', async (c) => {
    const { incoming, outgoing } = node(c);
    return respond(c, await server.confirm(incoming, outgoing, c.req.param('uid'), formReader(c)));
  });
  return app;
}
