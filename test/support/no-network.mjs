// `node --import ./test/support/no-network.mjs`: this process and its threads (workers inherit the
// flag) may open TCP connections to loopback only. Any other is refused, and said on stdout as a JSON
// log line, so a test sees a run that tried to reach the network.
import net from 'node:net';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost', '::ffff:127.0.0.1']);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: args[1] };
  if (options.path === undefined) {
    const host = options.host ?? 'localhost';
    if (!LOOPBACK.has(host)) {
      process.stdout.write(`${JSON.stringify({ level: 'error', msg: 'no-network: connection refused', host })}\n`);
      throw new Error(`no network here: a connection to ${host} was refused`);
    }
  }
  return connect.apply(this, args);
};
