// A small body limit for every route but /mcp. Those routes take a form or a little JSON (the consent
// form, OAuth token, registration and revocation requests) and are open to anyone on the internet;
// without a limit one streamed POST made the process buffer hundreds of megabytes.
//
// It runs before anything reads the body, and it reads the Node request itself when there is one:
// oidc-provider's endpoints read `incoming` directly, past any limit on Hono's copy of the body.
// - a declared Content-Length above the limit is refused at once, unread;
// - a body of undeclared length (chunked) is read up to the limit and refused as soon as it goes
//   past; within it, the bytes read are handed on (Hono's request body, or `bufferedBody` for the
//   handlers that give the Node request to oidc-provider).
// What is left of a refused body is drained without being kept (@hono/node-server), never buffered.
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';

/** Largest request body accepted outside /mcp, in bytes. The largest real one, a client registration, is under 2 KiB. */
export const SMALL_BODY_MAX_BYTES = 16 * 1024;

const buffered = new WeakMap<IncomingMessage, Buffer>();

/**
 * The body this middleware read from a Node request of undeclared length, for a handler that passes
 * the Node request on (the request itself has been consumed then). Undefined when it was not read.
 */
export function bufferedBody(incoming: IncomingMessage): Buffer | undefined {
  return buffered.get(incoming);
}

function nodeRequest(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** Reads at most `maxBytes` from the body; undefined as soon as it is longer. Never destroys the Node request, so a 413 can still be sent. */
async function readAtMost(c: Context, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const incoming = nodeRequest(c);
  if (incoming !== undefined) {
    for await (const chunk of incoming.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) return undefined;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, size);
  }
  const reader = c.req.raw.body?.getReader();
  if (reader === undefined) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
}

export interface SmallBodyLimitOptions {
  /** Largest body accepted, in bytes, ≥ 1. Default SMALL_BODY_MAX_BYTES. */
  maxBytes?: number;
  /** Paths left alone (they have a limit of their own), matched exactly. Default none. */
  except?: readonly string[];
}

/** Refuses request bodies over `maxBytes` with 413 on every path but `except`. */
export function smallBodyLimit(options: SmallBodyLimitOptions = {}): MiddlewareHandler {
  const { maxBytes = SMALL_BODY_MAX_BYTES, except = [] } = options;
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new RangeError(`smallBodyLimit: maxBytes must be a whole number ≥ 1, got ${maxBytes}`);
  const skip = new Set(except);
  const tooLarge = (c: Context) =>
    c.json({ error: 'invalid_request', error_description: `the request body must not exceed ${maxBytes} bytes on ${c.req.path}` }, 413);

  return async function smallBodyLimitMiddleware(c, next) {
    if (skip.has(c.req.path)) return next();
    const declared = c.req.header('content-length');
    const chunked = c.req.header('transfer-encoding') !== undefined;
    if (!chunked) {
      // RFC 9112 §6.3: no Content-Length and no Transfer-Encoding on a request means no body.
      if (declared === undefined) return next();
      return Number(declared) > maxBytes ? tooLarge(c) : next();
    }
    const body = await readAtMost(c, maxBytes);
    if (body === undefined) return tooLarge(c);
    const incoming = nodeRequest(c);
    if (incoming !== undefined) buffered.set(incoming, body);
    // A GET or HEAD may not carry a body in a Fetch Request: theirs is read (and bounded) but not handed on.
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') c.req.raw = new Request(c.req.raw, { body });
    return next();
  };
}
