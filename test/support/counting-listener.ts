// A real TCP listener on loopback that counts every connection made to it (and closes each at once),
// for tests that show an address is refused before any connection is opened.
import { afterAll, beforeAll } from 'vitest';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface CountingListener {
  /** The port it listens on (set once the suite's beforeAll has run). */
  readonly port: number;
  /** Connections made to it so far. */
  readonly connections: number;
}

/** Starts the listener in the calling suite's beforeAll and closes it in its afterAll. */
export function countingListener(): CountingListener {
  const state = { port: 0, connections: 0 };
  const listener = createServer((socket) => {
    state.connections += 1;
    socket.destroy();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    state.port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));
  return state;
}
