import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One PostgreSQL server for the whole run (started here unless TEST_POSTGRES_URL names one).
    globalSetup: ['test/support/postgres-server.ts'],
    // One file per core. Vitest's default (cores − 1) runs a single file at a time on a two-core
    // machine, while most files spend much of their time waiting on sockets, child processes and
    // timers. Forks (the default pool), not threads: several tests measure the process's memory.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
