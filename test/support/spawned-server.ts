// The real process (src/main.ts) spawned over the sample corpus, for tests of signals, restarts and
// several replicas. Its JSON log lines are collected as they come; it is ready once it says so.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE_FILES, writeCorpusFiles } from './sample-corpus.js';
import { eventually } from './eventually.js';

const root = new URL('../../', import.meta.url).pathname;

export interface SpawnedServer {
  child: ChildProcess;
  port: number;
  base: string;
  /** Every JSON log line written so far. */
  lines: Array<Record<string, unknown>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const groups = new WeakSet<ChildProcess>();
const dirs: string[] = [];

/** Kills whatever is still running and removes the corpora; call from afterEach/afterAll. */
export async function cleanUpSpawnedServers(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    // A launcher's group, so that the server it started goes with it.
    if (groups.has(child)) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone already
      }
    } else child.kill('SIGKILL');
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
}

/**
 * Starts `src/main.ts` with PORT=0 over a fresh copy of the sample corpus (or `corpusDir`); resolves
 * once the index is built (or, with `until: 'listening'`, once the server listens), or fails after
 * `readyWithinMs` (default 60000: on a busy machine a start that takes 2 s alone can take 30).
 * `nodeArgs` go to node before the entry (e.g. `--import` of a test hook); the build process inherits them.
 * `launcher: 'npm'` starts it as `npm run dev` does, so the server is not the child this process spawned.
 */
export async function spawnServer(
  env: Record<string, string> = {},
  options: { corpusDir?: string; readyWithinMs?: number; until?: 'ready' | 'listening'; nodeArgs?: string[]; launcher?: 'node' | 'npm' } = {},
): Promise<SpawnedServer> {
  let corpusDir = options.corpusDir;
  if (corpusDir === undefined) {
    corpusDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-spawned-'));
    dirs.push(corpusDir);
    await writeCorpusFiles(corpusDir, SAMPLE_FILES);
  }
  const [command, args] =
    options.launcher === 'npm' ? ['npm', ['run', '--silent', 'dev']] : [process.execPath, ['--import', 'tsx', ...(options.nodeArgs ?? []), 'src/main.ts']];
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: '0', CORPUS_DIR: corpusDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.launcher === 'npm',
  });
  children.push(child);
  if (options.launcher === 'npm') groups.add(child);
  const lines: Array<Record<string, unknown>> = [];
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await Promise.race([
    eventually(async () => lines.some((l) => l.msg === (options.until === 'listening' ? 'listening' : 'index built; ready')), { timeoutMs: options.readyWithinMs ?? 60_000 }),
    exit.then(({ code }) => {
      throw new Error(`server exited with ${code} before it was ready: ${stderr}`);
    }),
  ]);
  const port = lines.find((l) => l.msg === 'listening')!.port as number;
  return { child, port, base: `http://127.0.0.1:${port}`, lines, exit };
}

/** SIGTERM, then the exit (the drain runs in between). */
export function stopServer(server: SpawnedServer): SpawnedServer['exit'] {
  server.child.kill('SIGTERM');
  return server.exit;
}

/** A POST whose body is sent in two parts, so the request is in flight for as long as the test wants. */
export function slowPost(port: number, headers: Record<string, string>, body: string) {
  let response: (res: IncomingMessage) => void;
  const answered = new Promise<IncomingMessage>((resolve) => (response = resolve));
  let failed: (error: Error) => void;
  const cutOff = new Promise<never>((_, reject) => (failed = reject));
  cutOff.catch(() => {});
  const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }, (res) =>
    response(res),
  );
  req.on('error', (error) => failed(error));
  const cut = Math.floor(body.length / 2);
  const sent = new Promise<void>((resolve) => req.write(body.slice(0, cut), () => resolve()));
  return {
    sent,
    finish: () => req.end(body.slice(cut)),
    cutOff,
    answered: answered.then(async (res) => {
      let text = '';
      for await (const chunk of res) text += String(chunk);
      return { status: res.statusCode, contentType: res.headers['content-type'] ?? '', text };
    }),
  };
}
