// `npm run conformance`: starts a fresh server on the bundled corpus on a free loopback port, runs
// the MCP conformance suite's server scenarios that apply to a documents server against it, prints
// a table, stops the server, and exits non-zero if any check failed.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const SCENARIOS = [
  'server-initialize',
  'ping',
  'tools-list',
  'logging-set-level',
  'resources-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
];
const root = resolve(import.meta.dirname, '..');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

async function waitUntilReady(base: string, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited()) throw new Error('the server exited before becoming ready');
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the server did not become ready within 60 s');
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', (code) => done({ code, output }));
  });
}

async function main(): Promise<number> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: base, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  server.on('exit', () => (exited = true));
  try {
    await waitUntilReady(base, () => exited);
    const cli = resolve(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
    const rows: Array<{ scenario: string; passed: string; failed: number; warnings: number; ok: boolean }> = [];
    for (const scenario of SCENARIOS) {
      const { code, output } = await run(process.execPath, [cli, 'server', '--url', `${base}/mcp`, '--scenario', scenario]);
      const text = stripVTControlCharacters(output);
      const summary = /Passed: (\d+\/\d+), (\d+) failed, (\d+) warnings/.exec(text);
      const failed = summary ? Number(summary[2]) : NaN;
      const ok = code === 0 && failed === 0;
      rows.push({ scenario, passed: summary?.[1] ?? '?', failed, warnings: summary ? Number(summary[3]) : NaN, ok });
      if (!ok) process.stderr.write(`\n--- ${scenario} (exit ${code}) ---\n${text}\n`);
    }
    const width = Math.max(...SCENARIOS.map((s) => s.length));
    console.log(`\n${'scenario'.padEnd(width)}  passed  failed  warnings  result`);
    for (const r of rows) {
      console.log(`${r.scenario.padEnd(width)}  ${r.passed.padStart(6)}  ${String(r.failed).padStart(6)}  ${String(r.warnings).padStart(8)}  ${r.ok ? 'ok' : 'FAIL'}`);
    }
    const failures = rows.filter((r) => !r.ok).length;
    console.log(failures === 0 ? `\nall ${rows.length} scenarios passed` : `\n${failures} of ${rows.length} scenarios failed`);
    return failures === 0 ? 0 : 1;
  } finally {
    server.kill('SIGTERM');
  }
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
