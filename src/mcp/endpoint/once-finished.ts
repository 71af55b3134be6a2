// An answer's end, whenever it comes: a request holds its budgets and its server until the client has
// read its response to the end or gone away, not until the handler returned.
/**
 * Largest piece of an answer handed to the socket in one write. An answer is one chunk (a JSON body,
 * or one SSE event), up to megabytes; Node reports a write done only when all of it has left, so a
 * client reading a big answer slowly would look stuck to the write deadline (src/http/socket-guards.ts) until
 * its very last byte. In pieces, every piece taken shows progress.
 */
const WRITE_PIECE_BYTES = 64 * 1024;

/**
 * The same response, calling `done` exactly once when its body has been read to the end, failed, or
 * was cancelled by the client going away (or cut off by the write deadline). A POST's answer is an
 * SSE stream that ends only when the request has been answered, so this is when the request stops
 * holding resources. The body is passed on in pieces of at most WRITE_PIECE_BYTES.
 */
export function onceFinished(response: Response, done: () => void): Response {
  const body = response.body;
  if (body === null) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const reader = body.getReader();
  /** What is left of the chunk being passed on (views of it, never copies). */
  let rest: Uint8Array | undefined;
  const tracked = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let chunk: Uint8Array | undefined = rest;
        if (chunk === undefined) {
          const read = await reader.read();
          if (read.done) {
            finish();
            controller.close();
            return;
          }
          chunk = read.value as Uint8Array;
        }
        rest = chunk.byteLength > WRITE_PIECE_BYTES ? chunk.subarray(WRITE_PIECE_BYTES) : undefined;
        controller.enqueue(rest === undefined ? chunk : chunk.subarray(0, WRITE_PIECE_BYTES));
      } catch (error) {
        finish();
        controller.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(tracked, { status: response.status, statusText: response.statusText, headers: response.headers });
}
