import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // One PostgreSQL server for the whole run (started here unless TEST_POSTGRES_URL names one).
    globalSetup: ['test/support/postgres-server.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
