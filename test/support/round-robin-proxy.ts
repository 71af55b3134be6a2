// A loopback round-robin HTTP proxy for tests of several replicas behind one address, the way a load
// balancer without session affinity spreads requests. Each request goes to the next backend in turn
// over a brand-new upstream connection (no keep-alive), so nothing that rides on a reused socket can
// hide a replica switch. A backend that refuses the connection is skipped and the request goes to the
// next one; the body is buffered first so it can be sent again. Responses, SSE streams included, are
// streamed back as they arrive, and a client going away tears down its upstream request.
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Backend {
  host: string;
  port: number;
}

export interface ProxiedRequest {
  method: string;
  path: string;
  /** Index in `backends` of the backend that answered, or -1 when none could be reached (502). */
  backend: number;
  status: number;
}

export interface RoundRobinProxy {
  url: string;
  port: number;
  /** The backends in rotation; replace one in place (e.g. a restarted replica on a new port). */
  backends: Backend[];
  /**
   * Takes a backend out of rotation (true) or puts it back (false), as a load balancer does with an
   * instance that is being stopped: requests already sent to it are not affected.
   */
  setOutOfRotation(index: number, out: boolean): void;
  /** Requests answered by each backend, by index. */
  readonly served: number[];
  /** Every request answered, in order of response headers. */
  readonly log: readonly ProxiedRequest[];
  /** Times a backend refused a connection and the request went on to the next one. */
  readonly refusals: number;
  /** With `readiness`: the backends whose last health check failed. */
  readonly unready: ReadonlySet<number>;
  close(): Promise<void>;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) are the proxy's own business, not forwarded. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) out[name] = value;
  return out;
}

/** True for failures that happen before the backend saw the request: nothing was accepted, so trying the next one is safe. */
const refused = (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED' || error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH';

export interface RoundRobinProxyOptions {
  /**
   * Forward the client's Host header unchanged, as a load balancer in front of PUBLIC_URL does, so a
   * backend that builds absolute URLs from the request (oidc-provider's resume and redirect URLs)
   * builds them for the proxy's address. Default false: Host names the backend.
   */
  preserveHost?: boolean;
  /**
   * Health-check each backend by GET on this path every `intervalMs`, as Fly's proxy or a Kubernetes
   * Service (through readiness) does: a backend that answers anything but 200, or cannot be reached,
   * gets no new requests until it answers 200 again. Default none: every backend is always in rotation.
   */
  readiness?: { path: string; intervalMs: number };
}

export async function startRoundRobinProxy(initial: Backend[], { preserveHost = false, readiness }: RoundRobinProxyOptions = {}): Promise<RoundRobinProxy> {
  if (initial.length === 0) throw new RangeError('startRoundRobinProxy: at least one backend is needed');
  const backends = [...initial];
  const served = backends.map(() => 0);
  const log: ProxiedRequest[] = [];
  let next = 0;
  let refusals = 0;
  const outOfRotation = new Set<number>();
  const unready = new Set<number>();
  const skipped = (index: number) => outOfRotation.has(index) || unready.has(index);

  const record = (req: IncomingMessage, backend: number, status: number) => {
    if (backend >= 0) served[backend] = (served[backend] ?? 0) + 1;
    log.push({ method: req.method ?? 'GET', path: req.url ?? '/', backend, status });
  };

  function forward(req: IncomingMessage, res: ServerResponse, body: Buffer, attempt: number, start: number): void {
    if (attempt >= backends.length) {
      record(req, -1, 502);
      res.writeHead(502, { 'content-type': 'text/plain' }).end('round-robin proxy: every backend refused the connection');
      return;
    }
    const index = (start + attempt) % backends.length;
    if (skipped(index) && backends.some((_, i) => !skipped(i))) {
      forward(req, res, body, attempt + 1, start);
      return;
    }
    const backend = backends[index]!;
    const headers = forwardable(req.headers);
    if (!preserveHost) headers.host = `${backend.host}:${backend.port}`;
    headers.connection = 'close';
    if (body.length > 0 || req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH') headers['content-length'] = String(body.length);
    const upstream = httpRequest({ host: backend.host, port: backend.port, method: req.method, path: req.url, headers, agent: false });
    let answered = false;
    upstream.on('response', (upstreamRes) => {
      answered = true;
      record(req, index, upstreamRes.statusCode ?? 0);
      res.writeHead(upstreamRes.statusCode ?? 502, forwardable(upstreamRes.headers));
      // Flush headers now: an SSE stream's first event may be a while coming.
      res.flushHeaders();
      upstreamRes.on('data', (chunk: Buffer) => res.write(chunk));
      upstreamRes.on('end', () => res.end());
      // The backend died mid-response: the client must see a broken response, not a clean end.
      upstreamRes.on('error', () => res.destroy());
      upstreamRes.on('aborted', () => res.destroy());
    });
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (answered) {
        res.destroy();
        return;
      }
      if (refused(error)) {
        refusals += 1;
        forward(req, res, body, attempt + 1, start);
        return;
      }
      record(req, index, 502);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`round-robin proxy: backend ${index} failed: ${error.code ?? error.message}`);
      else res.destroy();
    });
    // The client went away (e.g. it closed an SSE stream): stop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  }

  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (chunk: Buffer) => parts.push(chunk));
    req.on('end', () => {
      const start = next;
      next = (next + 1) % backends.length;
      forward(req, res, Buffer.concat(parts), 0, start);
    });
    req.on('error', () => res.destroy());
  });
  // The proxy's own client side may keep connections alive; only the upstream side must not.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const check = (index: number) =>
    new Promise<void>((resolve) => {
      const backend = backends[index]!;
      const probe = httpRequest({ host: backend.host, port: backend.port, path: readiness!.path, agent: false, timeout: readiness!.intervalMs * 4 }, (res) => {
        res.resume();
        if (res.statusCode === 200) unready.delete(index);
        else unready.add(index);
        resolve();
      });
      probe.on('timeout', () => probe.destroy(new Error('readiness check timed out')));
      probe.on('error', () => {
        unready.add(index);
        resolve();
      });
      probe.end();
    });
  let checking = true;
  const checks = readiness
    ? (async () => {
        while (checking) {
          await Promise.all(backends.map((_, index) => check(index)));
          await new Promise((resolve) => setTimeout(resolve, readiness.intervalMs));
        }
      })()
    : Promise.resolve();

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    backends,
    served,
    log,
    get refusals() {
      return refusals;
    },
    unready,
    setOutOfRotation(index, out) {
      if (out) outOfRotation.add(index);
      else outOfRotation.delete(index);
    },
    close: async () => {
      checking = false;
      await checks;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
