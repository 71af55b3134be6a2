// POST a JSON body and read a JSON answer, with a timeout per attempt and retries with exponential
// backoff on 429, 5xx, timeouts and connection failures. A `Retry-After` header (seconds or an HTTP
// date, RFC 9110 §10.2.3) sets the wait before the next attempt, capped at `maxRetryAfterMs`. An
// answer is read as a stream and abandoned past the size its caller can expect, so that an endpoint
// cannot make the server hold more than that in memory.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';
import { ProviderError } from './provider-error.js';

export interface RetryPolicy {
  /** Milliseconds one attempt may take before it is aborted. */
  timeoutMs: number;
  /** Attempts after the first; 0 means no retry. */
  maxRetries: number;
  /** First backoff in milliseconds; doubled each retry, with up to 50 % random jitter added. */
  backoffMs: number;
  /** Longest wait a `Retry-After` header may impose; a longer one is cut to this. */
  maxRetryAfterMs: number;
  /**
   * Milliseconds the whole call may take, attempts and waits included; undefined bounds each attempt
   * only. No attempt is given more than what is left, and a wait that would use up what is left is not
   * taken: the failure is thrown at once.
   */
  budgetMs?: number;
  /**
   * Retry only when the endpoint says when, with `Retry-After`; any other failure is thrown at once.
   * Default false: back off and retry. For a call someone waits on, where a guessed backoff would
   * only delay the fallback.
   */
  retryOnlyWhenTold?: boolean;
}

/**
 * What every provider client accepts besides its own settings: the retry policy (each client states
 * its defaults), a logger for retries, and a fetch to inject in tests.
 */
export interface ProviderClientOptions extends Partial<RetryPolicy> {
  /** Base URL of the endpoint. */
  url: string;
  /** Bearer key; undefined sends no Authorization header. Never logged. */
  apiKey?: string;
  logger?: Logger;
  fetch?: typeof fetch;
}

export interface PostJsonOptions extends RetryPolicy {
  url: string;
  body: unknown;
  /** Sent as `Authorization: Bearer <apiKey>` when set. Never logged, never put in an error. */
  apiKey: string | undefined;
  /** Called before each retry, e.g. to log or count it. */
  onRetry?: (info: { attempt: number; waitMs: number; status?: number; reason: string }) => void;
  /** Injected for tests; default the global fetch. */
  fetch?: typeof fetch;
  /** Aborting it ends the attempt in flight or the wait before the next one, with a `cancelled` error. */
  signal?: AbortSignal;
  /**
   * Most bytes of a 2xx answer read: past them the request is aborted with a `too_large` error (not
   * retried, as the same request would get the same answer). Each client scales it to its request.
   */
  maxResponseBytes: number;
  /** Called when an answer is abandoned for its size, e.g. to log it. */
  onTooLarge?: (info: { maxBytes: number }) => void;
}

/**
 * Room every answer gets on top of what its content needs: the envelope (`object`, `model`, `usage`,
 * `id`, `meta`…) and whitespace.
 */
export const ANSWER_SLACK_BYTES = 64 * 1024;

/** Most bytes of an error answer read before it is dropped; it is only read so the connection can be reused. */
const ERROR_BODY_BYTES = 64 * 1024;

/** How logs and messages name an endpoint: origin and path, never a user name, password or query string. */
export function endpointName(url: string): string {
  const u = new URL(url);
  return u.origin + u.pathname;
}

/** The wait a `Retry-After` value asks for, in milliseconds, or undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date in any of its three forms starts with a day name; Date.parse alone would also read
  // "1.5" or "-1" as a date in 2001 and mean "retry now".
  if (!/^[A-Za-z]{3}/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const retryable = (status: number): boolean => status === 429 || status >= 500;

/**
 * The bytes of `response`'s body, or undefined when it holds more than `maxBytes` (announced by its
 * Content-Length or found while reading): reading then stops and `abort` ends the request, so the rest
 * is never received.
 */
async function readCapped(response: Response, maxBytes: number, abort: AbortController): Promise<Buffer | undefined> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const tooLarge = async (): Promise<undefined> => {
    abort.abort();
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  };
  if (declared > maxBytes) return tooLarge();
  if (response.body === null) return Buffer.alloc(0);
  const pieces: Uint8Array[] = [];
  let total = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(pieces, total);
    total += value.byteLength;
    if (total > maxBytes) {
      reader.releaseLock();
      return tooLarge();
    }
    pieces.push(value);
  }
}

export async function postJson(options: PostJsonOptions): Promise<unknown> {
  const doFetch = options.fetch ?? fetch;
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
  const payload = JSON.stringify(options.body);
  const where = endpointName(options.url);
  const { signal } = options;
  // A function, not a property read, so the compiler does not take `aborted` as fixed after one check.
  const aborted = (): boolean => signal?.aborted === true;
  const cancelled = () => new ProviderError('cancelled', `POST ${where} was given up: another request of the same call failed`);
  const { budgetMs, maxResponseBytes } = options;
  const deadline = budgetMs === undefined ? undefined : performance.now() + budgetMs;
  for (let attempt = 0; ; attempt += 1) {
    if (aborted()) throw cancelled();
    let failure: ProviderError;
    let waitHint: number | undefined;
    const timeoutMs = deadline === undefined ? options.timeoutMs : Math.max(1, Math.min(options.timeoutMs, Math.floor(deadline - performance.now())));
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      const tooLarge = new AbortController();
      const response = await doFetch(options.url, {
        method: 'POST',
        headers,
        body: payload,
        signal: AbortSignal.any(signal === undefined ? [timeout, tooLarge.signal] : [timeout, tooLarge.signal, signal]),
      });
      if (response.ok) {
        const body = await readCapped(response, maxResponseBytes, tooLarge);
        if (body === undefined) {
          options.onTooLarge?.({ maxBytes: maxResponseBytes });
          throw new ProviderError(
            'too_large',
            `POST ${where} answered more than ${maxResponseBytes} bytes, the most this request can need; the request was aborted (is the URL an embeddings or rerank endpoint?)`,
            response.status,
          );
        }
        try {
          return JSON.parse(body.toString('utf8')) as unknown;
        } catch {
          throw new ProviderError('bad_response', `POST ${where} answered ${response.status} with a body that is not JSON`, response.status);
        }
      }
      // Drain a short body so the connection can be reused; its text may echo the request, so it is not kept.
      await readCapped(response, ERROR_BODY_BYTES, tooLarge).catch(() => undefined);
      if (!retryable(response.status)) {
        throw new ProviderError(
          'http_status',
          `POST ${where} answered ${response.status}` + (response.status === 401 || response.status === 403 ? ': check the API key' : ': check the URL and model'),
          response.status,
        );
      }
      failure = new ProviderError('unavailable', `POST ${where} answered ${response.status} on ${attempt + 1} attempt(s)`, response.status);
      waitHint = retryAfterMs(response.headers.get('retry-after'));
    } catch (error) {
      if (error instanceof ProviderError && error.code !== 'unavailable') throw error;
      if (aborted()) throw cancelled();
      const name = (error as { name?: string }).name;
      failure =
        name === 'TimeoutError' || name === 'AbortError'
          ? new ProviderError('timeout', `POST ${where} gave no answer within ${timeoutMs} ms on ${attempt + 1} attempt(s)`)
          : new ProviderError('network', `POST ${where} failed on ${attempt + 1} attempt(s): ${(error as Error).message.split(options.url).join(where)}`);
    }
    if (attempt >= options.maxRetries) throw failure;
    if (options.retryOnlyWhenTold === true && waitHint === undefined) throw failure;
    const backoff = options.backoffMs * 2 ** attempt * (1 + Math.random() * 0.5);
    const waitMs = waitHint !== undefined ? Math.min(waitHint, options.maxRetryAfterMs) : backoff;
    if (deadline !== undefined && performance.now() + waitMs >= deadline) {
      const left = Math.max(0, Math.round(deadline - performance.now()));
      throw new ProviderError(failure.code, `${failure.message}; not retried: waiting ${Math.round(waitMs)} ms would leave nothing of the ${left} ms left of its ${budgetMs} ms budget`, failure.status);
    }
    options.onRetry?.({ attempt: attempt + 1, waitMs, status: failure.status, reason: failure.code });
    try {
      await sleep(waitMs, undefined, signal === undefined ? undefined : { signal });
    } catch {
      throw cancelled();
    }
  }
}
