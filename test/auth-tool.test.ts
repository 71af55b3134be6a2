// The operator tool (`npm run auth`) against stores it finds, and the one it must not make.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/open-store.js';

function runAuthTool(args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done, reject) => {
    execFile(
      process.execPath,
      // tsx by its file, so the tool can run from any working directory.
      ['--import', pathToFileURL(resolve('node_modules/tsx/dist/loader.mjs')).href, resolve('src/auth-tool.ts'), ...args],
      { cwd: env.CWD ?? resolve('.'), encoding: 'utf8', env: { PATH: process.env.PATH!, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => (error !== null && typeof error.code !== 'number' ? reject(error) : done({ status: error === null ? 0 : (error.code as number), stdout, stderr })),
    );
  });
}

describe('npm run auth', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'corpus-auth-tool-')); });
  afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

  it('refuses a folder that holds no sign-in store, names it, and creates nothing', async () => {
    const missing = join(dir, 'data');
    const out = await runAuthTool(['grants'], { AUTH_DATA_DIR: missing });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(`no sign-in store at ${missing}`);
    expect(out.stderr).toContain('AUTH_DATA_DIR');
    expect(out.stdout).not.toContain('no one is signed in');
    expect(existsSync(missing)).toBe(false);
  });

  it('without AUTH_DATA_DIR, does not create ./data in the working directory', async () => {
    const out = await runAuthTool(['grants'], { CWD: dir });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain(`no sign-in store at ${join(dir, 'data')}`);
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('counts in revoke the grants that grants lists, not every record it deletes', async () => {
    const store = await openStore({ dataDir: dir });
    const account = 'ada@example.com';
    await store.put('Grant', 'g1', { accountId: account, clientId: 'c1' }, { accountId: account, expiresAt: Date.now() + 3_600_000 });
    for (const kind of ['AccessToken', 'RefreshToken', 'Session']) {
      await store.put(kind, `${kind}-1`, { accountId: account }, { accountId: account, grantId: 'g1', expiresAt: Date.now() + 3_600_000 });
    }
    await store.close();
    const out = await runAuthTool(['revoke', account], { AUTH_DATA_DIR: dir });
    expect(out.status).toBe(0);
    expect(out.stdout).toContain('1 grant ended');
    expect(out.stdout).not.toMatch(/\b4 grants\b/);
  });
});
