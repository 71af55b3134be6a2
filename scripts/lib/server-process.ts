// The compiled server as a child process, for the boot benchmarks (bench-boot.ts, bench-growth.ts):
// started exactly as `npm start` starts it (after the build: `node $(node dist/src/node-args.js)
// dist/src/main.js`), timed from outside, and read over HTTP or from /proc.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(0);
export const ms = (value: number): string => value.toFixed(0);

/**
 * CPU seconds (user + system, all threads) the process has used, its finished children (the build
 * process) included, from /proc: load-independent.
 */
export function cpuSecondsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100;
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return Number(kb) * 1024;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Boot {
  child: ChildProcess;
  port: number;
  readyMs: number;
  firstHealthzMs: number;
  healthzMaxMs: number;
  healthzCount: number;
  origin: string;
  rssReady: number;
  rssSettled: number;
  cpuReady: number;
  /** The slowest /healthz of as many polls once ready: what this machine's load alone costs. */
  healthzIdleMaxMs: number;
  log: string;
}

export interface BootOptions {
  /** The project folder (dist/ is under it). */
  root: string;
  corpusDir: string;
  indexFile: string;
  /** Node options after npm start's heap options, e.g. another heap cap. */
  extraNodeArgs?: readonly string[];
  logLevel?: string;
}

/**
 * Starts the server as `npm start` does (after the build), polls /healthz every 20 ms (each answer
 * timed) until /readyz is 200, then measures RSS at ready and 2 s later.
 */
export async function bootServer({ root, corpusDir, indexFile, extraNodeArgs = [], logLevel = 'info' }: BootOptions): Promise<Boot> {
  const port = await freePort();
  const nodeArgs = execFileSync(process.execPath, [join(root, 'dist/src/node-args.js')], {
    env: { ...process.env, CORPUS_DIR: corpusDir },
    encoding: 'utf8',
  })
    .trim()
    .split(' ')
    .filter((a) => a !== '');
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, ...extraNodeArgs, join(root, 'dist/src/main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', CORPUS_DIR: corpusDir, INDEX_FILE: indexFile, PORT: String(port), LOG_LEVEL: logLevel },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const base = `http://127.0.0.1:${port}`;
  let firstHealthzMs = -1;
  let healthzMaxMs = 0;
  let healthzCount = 0;
  let ready = false;
  // /healthz every 20 ms, each answer timed, until /readyz says ready.
  const poller = (async () => {
    while (!ready) {
      const sent = performance.now();
      try {
        const response = await fetch(`${base}/healthz`);
        await response.arrayBuffer();
        const took = performance.now() - sent;
        if (response.status === 200) {
          if (firstHealthzMs < 0) firstHealthzMs = performance.now() - started;
          healthzMaxMs = Math.max(healthzMaxMs, took);
          healthzCount += 1;
        }
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  let readyMs = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}:\n${log}`);
    try {
      const response = await fetch(`${base}/readyz`);
      if (response.status === 200) {
        readyMs = performance.now() - started;
        await response.arrayBuffer();
        break;
      }
      await response.arrayBuffer();
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  ready = true;
  await poller;
  const cpuReady = cpuSecondsOf(child.pid!);
  const rssReady = rssOf(child.pid!);
  let healthzIdleMaxMs = 0;
  for (let i = 0; i < Math.min(healthzCount, 100); i += 1) {
    const sent = performance.now();
    await (await fetch(`${base}/healthz`)).arrayBuffer();
    healthzIdleMaxMs = Math.max(healthzIdleMaxMs, performance.now() - sent);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 2000));
  const rssSettled = rssOf(child.pid!);
  const origin = /"origin":"(\w+)"/.exec(log)?.[1] ?? '?';
  return { child, port, readyMs, firstHealthzMs, healthzMaxMs, healthzCount, origin, rssReady, rssSettled, cpuReady, healthzIdleMaxMs, log };
}

export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export async function connect(port: number, name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return client;
}
