// The secure default, checked on the real entry point started as a process: without authentication
// corpus-mcp serves only a loopback HOST; asked to bind anything else it refuses to start and says
// how to configure auth, unless ALLOW_UNAUTHENTICATED=true.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { initializeBody } from './support/raw-mcp.js';

const FILE_TOKEN = 'file-token-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
  /** Resolves with the port once the server logs that it listens. */
  port: Promise<number>;
  /** Resolves with the METRICS_PORT listener's port once it listens. */
  metricsPort: Promise<number>;
}

const children: ChildProcess[] = [];
function startMain(env: Record<string, string>): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  let onPort: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => (onPort = resolve));
  let onMetricsPort: (port: number) => void = () => {};
  const metricsPort = new Promise<number>((resolve) => (onMetricsPort = resolve));
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    const match = /"port":(\d+)[^\n]*"msg":"listening"/.exec(out);
    if (match) onPort(Number(match[1]));
    const metrics = /"port":(\d+)[^\n]*"msg":"metrics listening"/.exec(out);
    if (metrics) onMetricsPort(Number(metrics[1]));
  });
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit, port, metricsPort };
}

/** The port once listening, or the exit code if the process ended first. */
const outcome = (run: Run) => Promise.race([run.port.then((port) => ({ port })), run.exit.then((code) => ({ exit: code }))]);

// Each test boots a real process: the bound is on a hang, not on speed (a loaded machine is slow).
describe('src/main.ts secure default', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-auth-boot-'));
  });
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses to start on HOST=0.0.0.0 without auth, exits non-zero and says how to configure auth', async () => {
    const run = startMain({ HOST: '0.0.0.0' });
    expect(await run.exit).toBe(2);
    const message = run.stderr();
    expect(message).toContain('HOST="0.0.0.0"');
    expect(message).toContain('AUTH_TOKENS');
    expect(message).toContain('OAUTH_ISSUER');
    expect(message).toContain('ALLOW_UNAUTHENTICATED=true');
    expect(run.stdout()).not.toContain('"listening"');
  });

  it('starts on HOST=0.0.0.0 with ALLOW_UNAUTHENTICATED=true and serves /mcp without credentials', async () => {
    const run = startMain({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true', PUBLIC_URL: 'http://127.0.0.1' });
    const result = await outcome(run);
    expect(result).toHaveProperty('port');
    const { port } = result as { port: number };
    const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initializeBody()),
    });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    expect(run.stdout()).toContain('authentication off');
  });

  it('starts on HOST=0.0.0.0 with AUTH_TOKENS_FILE and requires one of its tokens', async () => {
    const file = join(dir, 'tokens');
    await writeFile(file, `# CI\n${FILE_TOKEN}\n`);
    const run = startMain({ HOST: '0.0.0.0', AUTH_TOKENS_FILE: file, PUBLIC_URL: 'http://127.0.0.1' });
    const result = await outcome(run);
    expect(result).toHaveProperty('port');
    const url = `http://127.0.0.1:${(result as { port: number }).port}/mcp`;
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(initializeBody()),
      });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    // Static tokens only: nothing points to OAuth.
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer realm="corpus-mcp"');
    const authorised = await post({ authorization: `Bearer ${FILE_TOKEN}` });
    expect(authorised.status).toBe(200);
    await authorised.body?.cancel();
    expect(run.stdout()).not.toContain(FILE_TOKEN);
  });

  it('exits non-zero naming AUTH_TOKENS_FILE when it cannot be read', async () => {
    const run = startMain({ AUTH_TOKENS_FILE: join(dir, 'missing') });
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(/AUTH_TOKENS_FILE .*missing cannot be read \(ENOENT\)/);
  });

  it.each(['AUTH_TOKENS', 'AUTH_TOKENS_FILE'])('refuses to start when METRICS_TOKEN equals a token of %s, without quoting it', async (where) => {
    const file = join(dir, 'tokens-shared');
    await writeFile(file, `${FILE_TOKEN}\n`);
    const env: Record<string, string> = where === 'AUTH_TOKENS' ? { AUTH_TOKENS: FILE_TOKEN } : { AUTH_TOKENS_FILE: file };
    const run = startMain({ ...env, METRICS_TOKEN: FILE_TOKEN });
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toContain('METRICS_TOKEN equals one of the MCP tokens');
    expect(run.stderr() + run.stdout()).not.toContain(FILE_TOKEN);
  });

  it('serves /metrics on METRICS_PORT only, not on the public port', async () => {
    const run = startMain({ HOST: '0.0.0.0', AUTH_TOKENS: FILE_TOKEN, PUBLIC_URL: 'http://127.0.0.1', METRICS_PORT: '0' });
    const result = await outcome(run);
    expect(result).toHaveProperty('port');
    const port = (result as { port: number }).port;
    const metricsPort = await run.metricsPort;
    expect(metricsPort).not.toBe(port);
    const publicScrape = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(publicScrape.status).toBe(404);
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await scrape.text()).toMatch(/^corpus_mcp_/m);
    // Nothing else is served there.
    expect((await fetch(`http://127.0.0.1:${metricsPort}/mcp`, { method: 'POST' })).status).toBe(404);
  });

  it('names the entries of the corpus folder that are not documents in its log, for the operator', async () => {
    const corpus = join(dir, 'corpus-with-secrets');
    await mkdir(join(corpus, '.git'), { recursive: true });
    await writeFile(join(corpus, 'guide.md'), '# Guide\n\nText.\n');
    await writeFile(join(corpus, '.env'), 'TOKEN=x\n');
    await writeFile(join(corpus, 'secret.env'), 'TOKEN=x\n');
    const run = startMain({ CORPUS_DIR: corpus });
    expect(await outcome(run)).toHaveProperty('port');
    await eventually(() => run.stdout().includes('"msg":"index built; ready"'), { what: 'the index to be built' });
    const line = run.stdout().split('\n').find((l) => l.includes('not documents'));
    expect(line).toBeDefined();
    expect(JSON.parse(line!).skipped).toEqual(expect.arrayContaining([expect.stringMatching(/^\.env: hidden file/), expect.stringMatching(/^\.git\/: hidden folder/), expect.stringMatching(/^secret\.env: unsupported file type/)]));
  });
});
