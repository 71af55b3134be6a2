// SIGTERM and SIGINT against the real process (src/main.ts, spawned): while a request is in flight the
// server reports not ready and refuses new sessions, lets the request finish, ends the open SSE
// stream, and exits 0.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SHUTTING_DOWN_CODE } from '../src/http/middleware/draining.js';
import { SAMPLE_FILES } from './support/sample-corpus.js';
import { eventually } from './support/test-server.js';

const root = new URL('../', import.meta.url).pathname;

interface Spawned {
  child: ChildProcess;
  port: number;
  base: string;
  lines: Array<Record<string, unknown>>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function spawnServer(env: Record<string, string> = {}): Promise<Spawned> {
  const corpusDir = await mkdtemp(join(tmpdir(), 'corpus-mcp-shutdown-'));
  dirs.push(corpusDir);
  for (const [path, content] of Object.entries(SAMPLE_FILES)) {
    await mkdir(dirname(join(corpusDir, path)), { recursive: true });
    await writeFile(join(corpusDir, path), content);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, PORT: '0', CORPUS_DIR: corpusDir, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
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
    eventually(async () => lines.some((l) => l.msg === 'index built; ready'), 25_000),
    exit.then(({ code }) => {
      throw new Error(`server exited with ${code} before it was ready: ${stderr}`);
    }),
  ]);
  const port = lines.find((l) => l.msg === 'listening')!.port as number;
  return { child, port, base: `http://127.0.0.1:${port}`, lines, exit };
}

/** A POST whose body is sent in two parts, so the request is in flight for as long as the test wants. */
function slowPost(port: number, headers: Record<string, string>, body: string) {
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

/** The JSON-RPC messages of a response that is either JSON or an SSE stream. */
function messagesOf(contentType: string, text: string): Array<Record<string, unknown>> {
  if (contentType.includes('application/json')) return [JSON.parse(text) as Record<string, unknown>];
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:') && l.slice(5).trim())
    .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
}

describe('graceful shutdown of the real process', () => {
  it('on SIGTERM finishes the in-flight request, refuses new sessions, ends the SSE stream and exits 0', async () => {
    const server = await spawnServer({ DRAIN_TIMEOUT_MS: '60000' });
    const client = new Client({ name: 'shutdown-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 } });
    await client.connect(transport);
    // The SDK client opens the standalone GET SSE stream, which stays open. It must not hold up the
    // drain: closing the session ends it, so the drain reports nothing cut off well before its
    // one-minute deadline (which would also time this test out).
    await eventually(async () => server.lines.some((l) => l.method === 'GET' && l.path === '/mcp' && l.status === 200));

    const call = JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'get_document', arguments: { source: 'lighthouse.md' } } });
    const slow = slowPost(
      server.port,
      {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': transport.sessionId!,
        'mcp-protocol-version': transport.protocolVersion!,
      },
      call,
    );
    await slow.sent;
    // a round trip on another connection, so the server has surely parsed the slow request's headers
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);

    server.child.kill('SIGTERM');
    await eventually(async () => (await fetch(`${server.base}/readyz`)).status === 503);
    const newSession = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'late', version: '1' } } }),
    });
    expect(newSession.status).toBe(503);
    expect(await newSession.json()).toMatchObject({ jsonrpc: '2.0', error: { code: SHUTTING_DOWN_CODE } });
    expect(server.child.exitCode).toBeNull(); // still draining: the slow request is not done

    slow.finish();
    const answer = await slow.answered;
    expect(answer.status).toBe(200);
    const result = messagesOf(answer.contentType, answer.text).find((m) => m.id === 99)?.result as
      | { isError?: boolean; structuredContent: { source: string; text: string } }
      | undefined;
    expect(result?.isError).toBeFalsy();
    expect(result?.structuredContent.source).toBe('lighthouse.md');
    expect(result?.structuredContent.text).toContain('Lighthouse operations');

    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.lines.find((l) => l.msg === 'shutdown complete')).toMatchObject({ reason: 'SIGTERM', drained: true, abandoned: 0 });
  });

  it('on SIGINT with nothing in flight exits 0 at once', async () => {
    const server = await spawnServer({ DRAIN_TIMEOUT_MS: '60000' });
    server.child.kill('SIGINT');
    expect(await server.exit).toEqual({ code: 0, signal: null });
    expect(server.lines.find((l) => l.msg === 'shutdown complete')).toMatchObject({ reason: 'SIGINT', drained: true });
  });

  it('cuts off a request that outlives DRAIN_TIMEOUT_MS and still exits 0', async () => {
    const server = await spawnServer({ DRAIN_TIMEOUT_MS: '300' });
    const { client, transport } = await (async () => {
      const c = new Client({ name: 'shutdown-e2e', version: '1.0.0' });
      const t = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`));
      await c.connect(t);
      return { client: c, transport: t };
    })();
    const stuck = slowPost(
      server.port,
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId! },
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
    );
    await stuck.sent;
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exit).toEqual({ code: 0, signal: null });
    await expect(stuck.cutOff).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect(server.lines.find((l) => l.msg === 'shutdown deadline reached: open requests were cut off')).toMatchObject({
      drained: false,
      abandoned: expect.any(Number),
    });
    await client.close().catch(() => {});
  });
});
