// The real entry point, started as a process: it refuses bad settings and a missing or empty corpus
// with a clear message and a non-zero exit, and otherwise listens at once and becomes ready.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';

const children: ChildProcess[] = [];
function startMain(env: Record<string, string>): { child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
}

describe('src/main.ts', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-boot-'));
    await writeFile(join(dir, 'only-an-image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
  });
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 1 naming CORPUS_DIR when the folder does not exist', async () => {
    const run = startMain({ CORPUS_DIR: join(dir, 'missing'), PORT: '0' });
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toMatch(/CORPUS_DIR .*missing.* does not exist/);
  });

  it('exits 1 when the folder yields no documents', async () => {
    const run = startMain({ CORPUS_DIR: dir, PORT: '0' });
    expect(await run.exit).toBe(1);
    expect(run.stderr()).toMatch(/CORPUS_DIR/);
  });

  it('exits 2 listing every bad setting at once', async () => {
    const run = startMain({ PORT: 'eighty', MAX_SESSIONS: '0', LOG_LEVEL: 'loud' });
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('PORT="eighty"');
    expect(run.stderr()).toContain('MAX_SESSIONS="0"');
    expect(run.stderr()).toContain('LOG_LEVEL="loud"');
  });

  it('serves the bundled corpus: listens, becomes ready, and exits 0 on SIGTERM', async () => {
    const run = startMain({ PORT: '0' });
    let port = 0;
    await eventually(async () => {
      const match = /"port":(\d+)/.exec(run.stdout());
      if (match) port = Number(match[1]);
      return port > 0;
    }, { timeoutMs: 20_000 });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await eventually(async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200, { timeoutMs: 20_000 });
    const ready = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { documents: number; chunks: number };
    expect(ready.documents).toBeGreaterThanOrEqual(6);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
  });
});
