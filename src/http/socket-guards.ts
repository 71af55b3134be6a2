// Bounds on the listening server's sockets that http.createServer's options cannot express (those are
// in server-options.ts):
//   - how many connections it holds at once (`server.maxConnections`: Node closes a connection past it
//     as soon as it is accepted, before a byte is read), so floods of idle or slow sockets cannot use
//     up memory and file descriptors;
//   - how long it holds answer bytes a client does not take. An answer is written as fast as the
//     client reads it; a client that never reads leaves it in the process's memory, and keeps the
//     request counted against its session's and principal's in-flight budgets, for as long as the
//     connection lives. A connection whose unsent bytes do not move for `writeTimeoutMs` is closed.
// The write deadline runs only while bytes wait, so an idle keep-alive connection or an open SSE
// stream with nothing to send is never cut by it, and a slow client that keeps reading is never cut
// either: every write the kernel takes restarts the clock.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface SocketGuardOptions {
  /** Connections held at once, ≥ 1; further ones are closed as soon as they are accepted. */
  maxConnections: number;
  /** Longest time unsent answer bytes may wait without any of them leaving, in milliseconds, ≥ 1000. */
  writeTimeoutMs: number;
  /** A connection was refused at the cap. Must not throw. */
  onRefused?: () => void;
  /** A connection was closed because its client did not take its answer in time. Must not throw. */
  onWriteTimeout?: (unsentBytes: number) => void;
}

/** What the last check saw of one connection's unsent bytes. */
interface Watched {
  unsent: number;
  /** When the unsent bytes last stopped moving; undefined while nothing waits or bytes move. */
  stuckSince: number | undefined;
  /** 'drain' events so far: the kernel took everything that was waiting. */
  drains: number;
  drainsSeen: number;
}

/** Applies both bounds to `server`; returns a function that stops the write deadline's checks. */
export function guardSockets(server: Server, options: SocketGuardOptions): () => void {
  const { maxConnections, writeTimeoutMs, onRefused, onWriteTimeout } = options;
  if (!Number.isInteger(maxConnections) || maxConnections < 1) {
    throw new RangeError(`guardSockets: maxConnections must be a whole number ≥ 1, got ${maxConnections}`);
  }
  if (!Number.isInteger(writeTimeoutMs) || writeTimeoutMs < 1000) {
    throw new RangeError(`guardSockets: writeTimeoutMs must be a whole number ≥ 1000, got ${writeTimeoutMs}`);
  }
  server.maxConnections = maxConnections;
  server.on('drop', () => onRefused?.());

  const watched = new Map<Socket, Watched>();
  server.on('connection', (socket: Socket) => {
    const state: Watched = { unsent: 0, stuckSince: undefined, drains: 0, drainsSeen: 0 };
    watched.set(socket, state);
    socket.on('drain', () => (state.drains += 1));
    socket.once('close', () => watched.delete(socket));
  });

  // One timer for all connections, as Node checks its own request timeouts: the deadline is kept to
  // within a tenth of itself, and a check walks only the connections that are open.
  const check = () => {
    const now = Date.now();
    for (const [socket, state] of watched) {
      const unsent = socket.writableLength;
      const moved = unsent < state.unsent || state.drains !== state.drainsSeen;
      state.drainsSeen = state.drains;
      state.unsent = unsent;
      if (unsent === 0 || moved) {
        state.stuckSince = undefined;
      } else if (state.stuckSince === undefined) {
        state.stuckSince = now;
      } else if (now - state.stuckSince >= writeTimeoutMs) {
        watched.delete(socket);
        socket.destroy();
        onWriteTimeout?.(unsent);
      }
    }
  };
  const timer = setInterval(check, Math.min(1000, Math.floor(writeTimeoutMs / 10)));
  timer.unref();
  const stop = () => clearInterval(timer);
  server.once('close', stop);
  return stop;
}
