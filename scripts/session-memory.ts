// `npm run bench:sessions`: what an idle MCP session costs. Starts the real app on the bundled corpus
// in a child process (so the client's own memory is not counted), opens N sessions against it over
// HTTP (initialize + notifications/initialized, then nothing), and divides the server's growth in RSS
// and in live heap by N. Each measurement is taken after two full garbage collections.
//
//   npm run bench:sessions              # 2000 sessions
//   npm run bench:sessions -- 5000      # another count
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

interface Measurement {
  rss: number;
  heapUsed: number;
  external: number;
  sessions: number;
}
type ToParent = { type: 'listening'; port: number } | { type: 'measured'; m: Measurement };

const TARGET_BYTES = 40 * 1024;
const WARMUP_SESSIONS = 100;
const CONCURRENCY = 16;

async function serve(): Promise<void> {
  const { serve: listen } = await import('@hono/node-server');
  const { loadCorpus } = await import('../src/corpus/load-corpus.js');
  const { SearchIndex } = await import('../src/search/search-index.js');
  const { IndexHolder } = await import('../src/mcp/index-holder.js');
  const { createApp } = await import('../src/http/app.js');
  const { healthRoutes } = await import('../src/http/routes/health.js');
  const { mcpRoutes } = await import('../src/http/routes/mcp.js');
  const { createMcpEndpoint } = await import('../src/mcp/mcp-endpoint.js');
  const corpus = await loadCorpus(resolve(import.meta.dirname, '../corpus'));
  const holder = IndexHolder.of({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
  let sessions = () => 0;
  const server = listen({ fetch: (req: Request) => app.fetch(req), hostname: '127.0.0.1', port: 0 }, (info) => {
    process.send!({ type: 'listening', port: info.port } satisfies ToParent);
  });
  const endpoint = createMcpEndpoint({ holder, maxSessions: 1_000_000 });
  const registry = endpoint.sessions;
  const app = createApp({ publicUrl: 'http://127.0.0.1', health: healthRoutes({ holder }), mcp: mcpRoutes({ handler: endpoint.fetch, publicUrl: 'http://127.0.0.1', maxBodyBytes: 1_000_000 }) });
  sessions = () => registry.size;
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  process.on('message', (message: { type: string }) => {
    if (message.type === 'measure') {
      gc();
      gc();
      const { rss, heapUsed, external } = process.memoryUsage();
      process.send!({ type: 'measured', m: { rss, heapUsed, external, sessions: sessions() } } satisfies ToParent);
    } else if (message.type === 'stop') {
      server.close();
      process.exit(0);
    }
  });
}

const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function openSession(url: string): Promise<void> {
  const init = await fetch(url, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } }),
  });
  const id = init.headers.get('mcp-session-id');
  await init.text();
  if (init.status !== 200 || !id) throw new Error(`initialize answered ${init.status}`);
  const done = await fetch(url, {
    method: 'POST',
    headers: { ...POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  if (done.status !== 202) throw new Error(`notifications/initialized answered ${done.status}`);
}

async function openSessions(url: string, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        await openSession(url);
      }
    }),
  );
}

function request(child: ChildProcess, message: { type: string }): Promise<Measurement> {
  return new Promise((done) => {
    const onMessage = (reply: ToParent) => {
      if (reply.type === 'measured') {
        child.off('message', onMessage);
        done(reply.m);
      }
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function bench(count: number): Promise<void> {
  const child = fork(import.meta.filename, ['--serve'], { execArgv: ['--expose-gc', '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((done) =>
    child.on('message', (m: ToParent) => {
      if (m.type === 'listening') done(m.port);
    }),
  );
  const url = `http://127.0.0.1:${port}/mcp`;
  await openSessions(url, WARMUP_SESSIONS);
  const before = await request(child, { type: 'measure' });
  const started = performance.now();
  await openSessions(url, count);
  const seconds = (performance.now() - started) / 1000;
  const after = await request(child, { type: 'measure' });
  child.send({ type: 'stop' });

  const opened = after.sessions - before.sessions;
  const rssPer = (after.rss - before.rss) / opened;
  const heapPer = (after.heapUsed + after.external - before.heapUsed - before.external) / opened;
  console.log(`idle MCP session memory (${opened} sessions opened in ${seconds.toFixed(1)} s, node ${process.version})\n`);
  console.log('measure               before      after   per session');
  console.log(`RSS              ${mb(before.rss).padStart(10)} ${mb(after.rss).padStart(10)} ${kb(rssPer).padStart(13)}`);
  console.log(`heap + external  ${mb(before.heapUsed + before.external).padStart(10)} ${mb(after.heapUsed + after.external).padStart(10)} ${kb(heapPer).padStart(13)}`);
  console.log(`\ntarget: ≤ ${kb(TARGET_BYTES)} RSS per idle session → ${rssPer <= TARGET_BYTES ? 'met' : 'NOT met'}`);
  if (opened !== count) throw new Error(`expected ${count} live sessions, the server holds ${opened}`);
  if (rssPer > TARGET_BYTES) process.exitCode = 1;
}

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await bench(Number(process.argv[2] ?? 2000));
}
