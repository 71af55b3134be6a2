// DNS-rebinding protection: a web page on a foreign origin can make a browser send requests to a
// server on localhost by pointing its own name at 127.0.0.1. Such requests still carry the foreign
// name in `Host` (and the page's origin in `Origin`), so both are checked against the names this
// server is really reached by: loopback (as config's isLoopbackHost says) and the host of PUBLIC_URL. The ports are not
// compared: the attack is about names, and a proxy may legitimately change the port.
// The Host check runs on every route (app.ts); the Origin check on /mcp (routes/mcp.ts), since the
// authorization server's endpoints answer browser-based OAuth clients of other origins by design. On
// the operator's routes (/healthz, /readyz, /metrics) a Host that is an IP address is accepted too:
// platform checkers and scrapers reach a machine by its address, and a rebinding page always sends a
// name (the one it made resolve to this server), never an address.
// Not SDK v2's validateHostHeader / validateOriginHeader (@modelcontextprotocol/server 2.4.0): they
// parse with `new URL`, so a Host of `evil@localhost` or `localhost/path` passes as localhost, and
// their allowlists are exact names, so the loopback range (all of 127/8) cannot be said.
import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { isLoopbackHost } from '../../config/loopback-host.js';
import { jsonRpcErrorBody, SERVER_ERROR } from '../../mcp/json-rpc-error.js';

export interface HostCheckOptions {
  /** The public origin, e.g. "https://docs.example.com"; its host name is allowed. */
  publicUrl: string;
  /** What is checked: `Host`, `Origin` (when sent), or both. Default both. */
  checks?: 'host' | 'origin' | 'both';
  /** Paths on which a Host that is an IP address (any) is accepted as well. Default none. */
  addressHostPaths?: readonly string[];
}

// RFC 9110 §7.2: Host = uri-host [ ":" port ], with uri-host an IP literal in brackets, an IPv4
// address or a reg-name. Matched on the raw text rather than through a URL parser, which would take
// `evil@localhost` as userinfo plus host and so let a foreign name through. The reg-name is held to
// DNS characters: anything else (userinfo, paths, percent-encoding) is refused.
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{0,5})?$/i;
// RFC 6454 §7.1: a serialised origin is scheme "://" host [ ":" port ], nothing else.
const ORIGIN = /^(https?):\/\/([^/?#]*)$/i;

/** The lowercased host name of a Host header value ("example.com:8080" → "example.com"), or undefined when it is not a bare authority. */
function hostNameOf(hostHeader: string): string | undefined {
  return AUTHORITY.exec(hostHeader)?.[1]?.toLowerCase();
}

function originHostNameOf(origin: string): string | undefined {
  const authority = ORIGIN.exec(origin)?.[2];
  return authority === undefined ? undefined : hostNameOf(authority);
}

export function hostCheck({ publicUrl, checks = 'both', addressHostPaths = [] }: HostCheckOptions): MiddlewareHandler {
  let publicHost: string;
  try {
    publicHost = new URL(publicUrl).hostname.toLowerCase();
  } catch {
    throw new TypeError(`hostCheck: publicUrl must be an absolute URL, got ${JSON.stringify(publicUrl)}`);
  }
  const allowed = (name: string | undefined) => name !== undefined && (name === publicHost || isLoopbackHost(name));
  const addressPaths = new Set(addressHostPaths);

  return async function hostCheckMiddleware(c, next) {
    const host = c.req.header('host');
    const hostName = host === undefined ? undefined : hostNameOf(host);
    const anAddress = hostName !== undefined && addressPaths.has(c.req.path) && isIP(hostName.replace(/^\[|\]$/g, '')) !== 0;
    if (checks !== 'origin' && !allowed(hostName) && !anAddress) {
      return c.json(
        jsonRpcErrorBody(SERVER_ERROR, `Forbidden: Host header ${JSON.stringify(host ?? '')} is not a name of this server; use ${publicUrl}`),
        403,
      );
    }
    const origin = checks !== 'host' ? c.req.header('origin') : undefined;
    if (origin !== undefined) {
      const originHost = originHostNameOf(origin);
      if (!allowed(originHost)) {
        return c.json(jsonRpcErrorBody(SERVER_ERROR, `Forbidden: Origin ${JSON.stringify(origin)} is not allowed to call this server`), 403);
      }
    }
    await next();
    return undefined;
  };
}
