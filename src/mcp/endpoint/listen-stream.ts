// A 2026-07-28 `subscriptions/listen` stream (SDK v2 answers it with an SSE stream that stays open
// until the client goes away): recognised from its body, and ended once it has carried nothing but
// keep-alive comments for a while. An idle stream is closed the graceful way, with the listen's own
// result, so the client sees a subscription that ended rather than a connection that broke, and may
// listen again; one it never needed again stops holding a connection.
import { listenEndedMessage } from '../modern-server.js';

/** The JSON-RPC id of a `subscriptions/listen` request body, or undefined for any other body (a batch included). */
export function listenRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { method, id } = body as { method?: unknown; id?: unknown };
  if (method !== 'subscriptions/listen') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** SSE comment lines (`: keepalive`) start with a colon; they keep a connection alive, not a stream busy. */
const COLON = 0x3a;

export interface IdleEndOptions {
  /** Time without an event (comments do not count) after which the stream is ended, in milliseconds, ≥ 1. */
  idleMs: number;
  /** The listen request's JSON-RPC id, answered with its graceful result when the stream is ended. */
  listenId: string | number;
  /** Called once when the stream is ended for being idle (logs). Must not throw. */
  onIdle?: () => void;
}

/**
 * The same response, whose SSE body is ended once no event has passed for `idleMs`: the listen's
 * graceful result is written, the body closes, and the SDK's stream underneath is cancelled (which
 * unsubscribes it). A response that is not an SSE stream (a refusal the SDK answered in JSON) is
 * returned as it is.
 */
export function endWhenIdle(response: Response, { idleMs, listenId, onIdle }: IdleEndOptions): Response {
  if (!Number.isFinite(idleMs) || idleMs < 1) throw new RangeError(`endWhenIdle: idleMs must be ≥ 1, got ${idleMs}`);
  const body = response.body;
  if (body === null || !response.headers.get('content-type')?.startsWith('text/event-stream')) return response;
  const reader = body.getReader();
  const farewell = new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(listenEndedMessage(listenId))}\n\n`);
  let ended = false;
  let timer: NodeJS.Timeout | undefined;
  let arm = () => {};
  const stop = () => {
    ended = true;
    clearTimeout(timer);
  };
  const tracked = new ReadableStream<Uint8Array>({
    start(controller) {
      const endIdle = () => {
        if (ended) return;
        stop();
        controller.enqueue(farewell);
        controller.close();
        reader.cancel('idle').catch(() => {});
        onIdle?.();
      };
      arm = () => {
        clearTimeout(timer);
        timer = setTimeout(endIdle, idleMs);
        timer.unref(); // an idle stream must not keep a process alive that is otherwise done
      };
      arm();
    },
    async pull(controller) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch (error) {
        if (ended) return;
        stop();
        controller.error(error);
        return;
      }
      if (ended) return; // ended for idleness while this read waited; the cancel resolved it
      if (read.done) {
        stop();
        controller.close();
        return;
      }
      const chunk = read.value as Uint8Array;
      if (chunk[0] !== COLON) arm();
      controller.enqueue(chunk);
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, { status: response.status, statusText: response.statusText, headers: response.headers });
}
