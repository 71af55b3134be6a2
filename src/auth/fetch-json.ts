// One way to fetch a JSON document from an authorization server (metadata, key set): bounded in time
// and size, and never following a redirect, so a compromised or misconfigured server cannot point the
// resource server elsewhere or make it buffer an endless body.

/** A fetch with the signature of the global one; injectable for tests. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

/** Largest metadata or key-set document read, in bytes. Real ones are a few KB. */
export const MAX_AUTH_DOCUMENT_BYTES = 256 * 1024;

export interface FetchJsonOptions {
  fetch?: FetchLike;
  /** Milliseconds for the whole exchange, headers and body. Default 5000. */
  timeoutMs?: number;
  /** Bytes read at most; a longer body is refused. Default MAX_AUTH_DOCUMENT_BYTES. */
  maxBytes?: number;
}

/**
 * GETs `url` and parses its body as JSON. Throws an Error whose message says what went wrong (status,
 * redirect, size, timeout, parse) and names neither headers nor body.
 */
export async function fetchJson(url: string, options: FetchJsonOptions = {}): Promise<unknown> {
  const { fetch: fetchImpl = fetch, timeoutMs = 5000, maxBytes = MAX_AUTH_DOCUMENT_BYTES } = options;
  const signal = AbortSignal.timeout(timeoutMs);
  const response = await fetchImpl(url, { headers: { accept: 'application/json' }, redirect: 'manual', signal });
  if (response.status !== 200) {
    await response.body?.cancel();
    const redirected = (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect';
    throw new Error(`HTTP ${response.status}${redirected ? ' (a redirect, which is not followed)' : ''}`);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Error(`the response is ${declared} bytes, more than the ${maxBytes} accepted`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (response.body !== null) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel();
        throw new Error(`the response is more than the ${maxBytes} bytes accepted`);
      }
      chunks.push(value);
    }
  }
  try {
    return JSON.parse(new TextDecoder().decode(Buffer.concat(chunks)));
  } catch {
    throw new Error('the response is not JSON');
  }
}
