// `npm run load`: many concurrent MCP sessions doing realistic tool calls against the server on the
// SciFact corpus, then MCP `ping` against `search_documents` on the same server (the transport sets
// the floor for a call), then optionally a soak that opens and abandons thousands of sessions.
//
// The server runs in a child process built like main.ts builds it (request ids, JSON request logs to
// /dev/null, metrics, the same limits), so its RSS, heap and CPU are measured apart from the load
// generator's. Only loopback addresses; every phase is bounded in time or count.
//
//   npm run load                                   # 100 sessions × 20 s mixed, then ping vs search through
//                                                  # the SDK client and as raw HTTP, then a search's stages
//   npm run load -- --sessions 200 --duration 30
//   npm run load -- --url http://127.0.0.1:8080/mcp   # an already running server (no RSS/CPU figures)
//   npm run load -- --profile                      # also CPU-profile the server during ping and search
//   npm run load -- --soak                         # 5,000 idle sessions' memory, then 2,500 opened and
//                                                  # abandoned in waves under a cap of 500
//   npm run load -- --soak --waves 12 --wave-size 250 --max-sessions 500 --idle-sessions 5000
//   npm run load -- --replicas                     # only the mixed load: one replica, one behind the
//                                                  # round-robin proxy, two behind it (shared SESSION_SECRET)
//   npm run load -- --eras                         # only search_documents in the legacy era (2025
//                                                  # sessions, SDK 1.x) vs the modern era (2026-07-28,
//                                                  # SDK v2), same server, alternating rounds
import { fork } from 'node:child_process';
import { Session } from 'node:inspector/promises';
import type { ChildProcess } from 'node:child_process';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { startRoundRobinProxy } from '../test/support/round-robin-proxy.js';
import { readClaims, readScifactDocs, table, writeCorpusFolder } from './lib/scifact.js';
import { summariseProfile } from './lib/cpu-profile.js';
import type { CpuProfile } from './lib/cpu-profile.js';

// ── options ──────────────────────────────────────────────────────────────────────────────────────
interface Options {
  sessions: number;
  durationS: number;
  ratioDurationS: number;
  ratioSessions: number;
  url: string | undefined;
  soak: boolean;
  waves: number;
  waveSize: number;
  maxSessions: number;
  idleSessions: number;
  logLevel: string;
  profile: boolean;
  eras: boolean;
  replicas: boolean;
  eraSessions: number;
  eraDurationS: number;
}

function parseOptions(argv: readonly string[]): Options {
  const value = (name: string, fallback: string): string => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 && argv[at + 1] !== undefined ? (argv[at + 1] as string) : fallback;
  };
  const bounded = (name: string, fallback: number, min: number, max: number): number => {
    const n = Number(value(name, String(fallback)));
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
  const url = argv.includes('--url') ? value('url', '') : undefined;
  if (url !== undefined && !/^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//.test(url)) {
    throw new Error(`--url must be a loopback http URL such as http://127.0.0.1:8080/mcp, got ${JSON.stringify(url)}`);
  }
  if (url !== undefined && argv.includes('--soak')) throw new Error('--soak measures the memory of a server it starts itself; drop --url');
  return {
    sessions: bounded('sessions', 100, 1, 1000),
    durationS: bounded('duration', 20, 1, 600),
    ratioDurationS: bounded('ratio-duration', 8, 1, 120),
    ratioSessions: bounded('ratio-sessions', 4, 1, 1000),
    url,
    soak: argv.includes('--soak'),
    waves: bounded('waves', 10, 2, 100),
    waveSize: bounded('wave-size', 250, 1, 10_000),
    maxSessions: bounded('max-sessions', 500, 1, 1_000_000),
    idleSessions: bounded('idle-sessions', 5000, 100, 100_000),
    logLevel: value('log-level', 'info'),
    profile: argv.includes('--profile'),
    eras: argv.includes('--eras'),
    replicas: argv.includes('--replicas'),
    // At most 16: with authentication off every modern request counts against one anonymous
    // principal, whose in-flight bound is MAX_CONCURRENT_PER_PRINCIPAL (default 32).
    eraSessions: bounded('era-sessions', 8, 1, 16),
    eraDurationS: bounded('era-duration', 8, 1, 120),
  };
}

// ── the server child ─────────────────────────────────────────────────────────────────────────────
interface ServerStats {
  rss: number;
  heapUsed: number;
  external: number;
  sessions: number;
  connections: number;
  cpuUserMs: number;
  cpuSystemMs: number;
}
type ToParent = { type: 'listening'; port: number } | { type: 'stats'; stats: ServerStats } | { type: 'profile'; profile: CpuProfile };
type ToChild = { type: 'stats'; gc: boolean } | { type: 'profile-start' } | { type: 'profile-stop' } | { type: 'stop' };

async function serveChild(argv: readonly string[]): Promise<void> {
  const { serve } = await import('@hono/node-server');
  const { pino } = await import('pino');
  const { loadConfig } = await import('../src/config/load-config.js');
  const { loadCorpus } = await import('../src/corpus/load-corpus.js');
  const { SearchIndex } = await import('../src/search/search-index.js');
  const { IndexHolder } = await import('../src/mcp/index-holder.js');
  const { assembleServer, listenOptions } = await import('../src/http/assemble.js');
  const { semanticServiceFromConfig } = await import('../src/semantic/semantic-from-config.js');
  const { createLogger } = await import('../src/logger.js');

  const corpusDir = argv[argv.indexOf('--corpus') + 1] as string;
  const maxSessions = Number(argv[argv.indexOf('--max-sessions') + 1]);
  const logLevel = argv[argv.indexOf('--log-level') + 1] as 'info';
  const sessionSecret = argv.includes('--session-secret') ? (argv[argv.indexOf('--session-secret') + 1] as string) : undefined;
  // The production defaults for every limit, as main.ts reads them.
  const config = loadConfig({ CORPUS_DIR: corpusDir, MAX_SESSIONS: String(maxSessions), LOG_LEVEL: logLevel, ...(sessionSecret ? { SESSION_SECRET: sessionSecret } : {}) });
  const logger = createLogger({ level: config.logLevel, destination: pino.destination({ dest: '/dev/null', sync: true }) });
  const corpus = await loadCorpus(corpusDir);
  const holder = IndexHolder.of({ index: SearchIndex.build(corpus.documents), skipped: corpus.skipped });
  // Assembled as main.ts assembles it, with the production defaults for every limit.
  const assembled = assembleServer({ config, semantic: semanticServiceFromConfig(config.semantic, logger), holder, logger, publicUrl: 'http://127.0.0.1', version: 'load' });
  const server = serve(
    { fetch: assembled.app.fetch, hostname: '127.0.0.1', port: 0, serverOptions: listenOptions(config) },
    (info) => process.send!({ type: 'listening', port: info.port } satisfies ToParent),
  );
  const gc = (globalThis as { gc?: () => void }).gc;
  const inspector = new Session();
  inspector.connect();
  const connections = () => new Promise<number>((done) => server.getConnections((_error, count) => done(count ?? 0)));

  process.on('message', (message: ToChild) => {
    void (async () => {
      if (message.type === 'stats') {
        if (message.gc && gc) {
          gc();
          gc();
        }
        const { rss, heapUsed, external } = process.memoryUsage();
        const cpu = process.cpuUsage();
        const stats = { rss, heapUsed, external, sessions: assembled.mcp.sessions.size, connections: await connections(), cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000 };
        process.send!({ type: 'stats', stats } satisfies ToParent);
      } else if (message.type === 'profile-start') {
        await inspector.post('Profiler.enable');
        await inspector.post('Profiler.setSamplingInterval', { interval: 100 });
        await inspector.post('Profiler.start');
      } else if (message.type === 'profile-stop') {
        const { profile } = await inspector.post('Profiler.stop');
        process.send!({ type: 'profile', profile: profile as unknown as CpuProfile } satisfies ToParent);
      } else if (message.type === 'stop') {
        await assembled.mcp.close();
        server.close();
        process.exit(0);
      }
    })();
  });
}

class ServerChild {
  private constructor(
    private readonly child: ChildProcess,
    readonly mcpUrl: string,
  ) {}

  static async start(corpusDir: string, maxSessions: number, logLevel: string, sessionSecret?: string): Promise<ServerChild> {
    const secretArgs = sessionSecret === undefined ? [] : ['--session-secret', sessionSecret];
    const child = fork(import.meta.filename, ['--serve', '--corpus', corpusDir, '--max-sessions', String(maxSessions), '--log-level', logLevel, ...secretArgs], {
      execArgv: ['--expose-gc', '--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((done, fail) => {
      child.on('message', (m: ToParent) => m.type === 'listening' && done(m.port));
      child.on('exit', (code) => fail(new Error(`the server exited with ${code} before listening`)));
    });
    return new ServerChild(child, `http://127.0.0.1:${port}/mcp`);
  }

  private ask<T extends ToParent['type']>(message: ToChild, reply: T): Promise<Extract<ToParent, { type: T }>> {
    return new Promise((done) => {
      const onMessage = (m: ToParent) => {
        if (m.type === reply) {
          this.child.off('message', onMessage);
          done(m as Extract<ToParent, { type: T }>);
        }
      };
      this.child.on('message', onMessage);
      this.child.send(message);
    });
  }

  async stats(gc = false): Promise<ServerStats> {
    return (await this.ask({ type: 'stats', gc }, 'stats')).stats;
  }

  startProfile(): void {
    this.child.send({ type: 'profile-start' } satisfies ToChild);
  }

  async stopProfile(): Promise<CpuProfile> {
    return (await this.ask({ type: 'profile-stop' }, 'profile')).profile;
  }

  async stop(): Promise<void> {
    const exited = new Promise((done) => this.child.once('exit', done));
    this.child.send({ type: 'stop' } satisfies ToChild);
    await exited;
  }
}

// ── measuring ────────────────────────────────────────────────────────────────────────────────────
class Recorder {
  readonly latencies = new Map<string, number[]>();
  readonly errors = new Map<string, number>();
  readonly errorSamples: string[] = [];

  async time<T>(name: string, call: () => Promise<T>, isError: (result: T) => string | undefined = () => undefined): Promise<T | undefined> {
    const started = performance.now();
    try {
      const result = await call();
      const problem = isError(result);
      if (problem !== undefined) this.fail(name, problem);
      else this.push(name, performance.now() - started);
      return result;
    } catch (error) {
      this.fail(name, error instanceof Error ? error.message : String(error));
      return undefined;
    }
  }

  private push(name: string, ms: number): void {
    let list = this.latencies.get(name);
    if (list === undefined) this.latencies.set(name, (list = []));
    list.push(ms);
  }

  private fail(name: string, message: string): void {
    this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
    if (this.errorSamples.length < 5) this.errorSamples.push(`${name}: ${message.slice(0, 200)}`);
  }

  get totalErrors(): number {
    return [...this.errors.values()].reduce((a, b) => a + b, 0);
  }
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

interface Row {
  name: string;
  calls: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

function rows(recorder: Recorder, seconds: number, names: readonly string[]): Row[] {
  return names.map((name) => {
    const sorted = [...(recorder.latencies.get(name) ?? [])].sort((a, b) => a - b);
    return { name, calls: sorted.length, perSecond: sorted.length / seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), errors: recorder.errors.get(name) ?? 0 };
  });
}

function printRows(list: readonly Row[]): void {
  console.log(
    table(
      ['call', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'errors'],
      list.map((r) => [r.name, String(r.calls), r.perSecond.toFixed(0), ms(r.p50), ms(r.p99), String(r.errors)]),
    ),
  );
}

// ── clients ──────────────────────────────────────────────────────────────────────────────────────
async function connect(url: string, n: number): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: `load-${n}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 } });
  await client.connect(transport);
  await client.listTools(); // as real clients do; the SDK then checks each result against its output schema
  return { client, transport };
}

const toolProblem = (result: CallToolResult | undefined): string | undefined =>
  result?.isError ? `tool error: ${JSON.stringify(result.content).slice(0, 150)}` : undefined;

/** Runs `work` in a loop on every worker until `seconds` have passed; returns the elapsed seconds. */
async function drive<W>(workers: readonly W[], seconds: number, work: (worker: W, iteration: number, index: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    workers.map(async (worker, index) => {
      for (let i = 0; performance.now() < deadline; i += 1) await work(worker, i, index);
    }),
  );
  return (performance.now() - started) / 1000;
}

async function mixedLoad(clients: readonly Client[], claims: readonly string[], seconds: number): Promise<{ recorder: Recorder; elapsed: number }> {
  const recorder = new Recorder();
  const call = (client: Client, name: string, args: Record<string, unknown>) =>
    recorder.time(name, async () => (await client.callTool({ name, arguments: args })) as CallToolResult, toolProblem);
  const elapsed = await drive(clients, seconds, async (client, i, worker) => {
    const query = claims[(worker * 7919 + i) % claims.length] as string;
    const found = await call(client, 'search_documents', { query, top_k: 5 });
    const hits = (found?.structuredContent as { results?: Array<{ chunk_id: string; source: string; start: number }> } | undefined)?.results ?? [];
    const hit = hits[i % Math.max(hits.length, 1)];
    if (hit) {
      await call(client, 'get_chunk', { chunk_id: hit.chunk_id });
      await call(client, 'get_document', { source: hit.source, offset: 0, max_chars: 4000 });
    }
    if (i % 5 === 0) await call(client, 'list_documents', { limit: 20, path_prefix: String((worker + i) % 10) });
  });
  return { recorder, elapsed };
}

interface RatioResult {
  ping: Row;
  search: Row;
  pingCpuMsPerCall: number | undefined;
  searchCpuMsPerCall: number | undefined;
}

/** The two calls compared, made either through the SDK client or as raw HTTP on the same session. */
interface Caller {
  ping(worker: number, iteration: number): Promise<unknown>;
  search(worker: number, iteration: number): Promise<unknown>;
}

/**
 * Runs one kind of call at a time on every worker, kinds alternating, two rounds of each and `seconds`
 * of each in all, so drift on a shared machine falls on every kind alike. Returns each kind's row and
 * the server CPU it took per call.
 */
async function alternateRounds<K extends string>(
  kinds: readonly K[],
  workers: number,
  seconds: number,
  server: ServerChild | undefined,
  call: (kind: K, worker: number, iteration: number, recorder: Recorder) => Promise<unknown>,
  profiles?: Map<string, CpuProfile[]>,
): Promise<{ rows: Record<K, Row>; cpuMsPerCall: Record<K, number> | undefined; recorder: Recorder }> {
  const recorder = new Recorder();
  const elapsed = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<K, number>;
  const cpu = Object.fromEntries(kinds.map((k) => [k, 0])) as Record<K, number>;
  const slots = Array.from({ length: workers }, (_, i) => i);
  for (let round = 0; round < 2; round += 1) {
    for (const kind of kinds) {
      const before = await server?.stats();
      if (profiles) server?.startProfile();
      elapsed[kind] += await drive(slots, seconds / 2, (worker, i) => call(kind, worker, i, recorder).then(() => undefined));
      if (profiles && server) profiles.set(kind, [...(profiles.get(kind) ?? []), await server.stopProfile()]);
      const after = await server?.stats();
      if (before && after) cpu[kind] += after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
    }
  }
  const rowsByKind = {} as Record<K, Row>;
  const perCall = {} as Record<K, number>;
  for (const kind of kinds) {
    const [row] = rows(recorder, elapsed[kind], [kind]) as [Row];
    rowsByKind[kind] = row;
    perCall[kind] = cpu[kind] / Math.max(row.calls, 1);
  }
  return { rows: rowsByKind, cpuMsPerCall: server ? perCall : undefined, recorder };
}

/** Alternates ping-only and search-only rounds on the same sessions, twice, and sums each kind. */
async function pingVersusSearch(workers: number, caller: Caller, seconds: number, server: ServerChild | undefined, profiles: Map<string, CpuProfile[]> | undefined): Promise<RatioResult> {
  const measured = await alternateRounds(
    ['ping', 'search_documents'] as const,
    workers,
    seconds,
    server,
    (kind, worker, i, recorder) =>
      kind === 'ping'
        ? recorder.time('ping', () => caller.ping(worker, i))
        : recorder.time('search_documents', () => caller.search(worker, i), (r) => toolProblem(r as CallToolResult | undefined)),
    profiles,
  );
  return {
    ping: measured.rows.ping,
    search: measured.rows.search_documents,
    pingCpuMsPerCall: measured.cpuMsPerCall?.ping,
    searchCpuMsPerCall: measured.cpuMsPerCall?.search_documents,
  };
}

/** Calls through the SDK client: what an MCP application sees, client-side parsing and validation included. */
function sdkCaller(clients: readonly Client[], claims: readonly string[]): Caller {
  return {
    ping: (worker) => clients[worker]!.ping(),
    search: async (worker, i) =>
      (await clients[worker]!.callTool({ name: 'search_documents', arguments: { query: claims[(worker * 104729 + i) % claims.length] as string } })) as CallToolResult,
  };
}

/** The same JSON-RPC requests posted with fetch on the clients' sessions: the server and HTTP, without the SDK client's work. */
function rawCaller(url: string, sessionIds: readonly string[], claims: readonly string[]): Caller {
  let id = 0;
  const call = async (worker: number, method: string, params?: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...POST_HEADERS, 'mcp-session-id': sessionIds[worker]!, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: (id += 1), method, params }),
    });
    const text = await response.text();
    const data = text.split('\n').find((line) => line.startsWith('data:'));
    if (response.status !== 200 || data === undefined) throw new Error(`${method} answered ${response.status}`);
    const message = JSON.parse(data.slice(5)) as { result?: Record<string, unknown>; error?: { message: string } };
    if (!message.result) throw new Error(`${method} failed: ${message.error?.message}`);
    return message.result;
  };
  return {
    ping: (worker) => call(worker, 'ping'),
    search: (worker, i) => call(worker, 'tools/call', { name: 'search_documents', arguments: { query: claims[(worker * 104729 + i) % claims.length] as string } }),
  };
}

// ── legacy vs modern era ─────────────────────────────────────────────────────────────────────────
/** One search_documents call by worker `worker`, in one era; resolves to the tool result. */
type EraSearch = (worker: number, iteration: number) => Promise<CallToolResult>;

/**
 * search_documents in the legacy era (a 1.x client on its session) against the modern era (an SDK v2
 * client, one request per call, no session), on the same server: rounds alternate, twice each, so
 * drift on a shared machine falls on both alike.
 */
async function compareEras(workers: number, legacy: EraSearch, modern: EraSearch, seconds: number, server: ServerChild | undefined, label: string): Promise<void> {
  const measured = await alternateRounds(['legacy', 'modern'] as const, workers, seconds, server, (era, worker, i, recorder) =>
    recorder.time(era, () => (era === 'legacy' ? legacy : modern)(worker, i), toolProblem),
  );
  const { legacy: legacyRow, modern: modernRow } = measured.rows;
  console.log(`\n## search_documents, legacy era vs modern era, ${label}: ${workers} concurrent clients, alternating rounds, ${seconds} s of each\n`);
  printRows([
    { ...legacyRow, name: 'legacy (2025-11-25 session, SDK 1.x)' },
    { ...modernRow, name: 'modern (2026-07-28, SDK v2, no session)' },
  ]);
  const cpu = measured.cpuMsPerCall;
  console.log(
    `\nmodern ÷ legacy: calls/s ${(modernRow.perSecond / legacyRow.perSecond).toFixed(2)}, p50 ${(modernRow.p50 / legacyRow.p50).toFixed(2)}` +
      (cpu ? `; server CPU per call: legacy ${cpu.legacy.toFixed(3)} ms, modern ${cpu.modern.toFixed(3)} ms` : ''),
  );
  for (const sample of measured.recorder.errorSamples) console.log(`  error: ${sample}`);
  if (measured.recorder.totalErrors > 0) process.exitCode = 1;
}

/** The modern request envelope (protocol version, client info and capabilities in `_meta`). */
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'load-raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** search_documents as one bare modern POST: the server and HTTP, without the SDK v2 client's work. */
function rawModernSearch(url: string, claims: readonly string[]): EraSearch {
  let id = 0;
  return async (worker, i) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...POST_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search_documents' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: (id += 1),
        method: 'tools/call',
        params: { name: 'search_documents', arguments: { query: claims[(worker * 104729 + i) % claims.length] as string }, _meta: MODERN_META },
      }),
    });
    const text = await response.text();
    const json = text.startsWith('{') ? text : text.split('\n').find((line) => line.startsWith('data:'))?.slice(5);
    if (response.status !== 200 || json === undefined) throw new Error(`tools/call answered ${response.status}`);
    const message = JSON.parse(json) as { result?: CallToolResult; error?: { message: string } };
    if (!message.result) throw new Error(`tools/call failed: ${message.error?.message}`);
    return message.result;
  };
}

async function reportEras(url: string, server: ServerChild | undefined, claims: readonly string[], options: Options): Promise<void> {
  const workers = options.eraSessions;
  const legacy = await Promise.all(Array.from({ length: workers }, (_, n) => connect(url, n)));
  const modern = await Promise.all(
    Array.from({ length: workers }, async (_, n) => {
      const client = new ModernClient({ name: `load-modern-${n}`, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new ModernTransport(new URL(url)));
      if (client.getProtocolEra() !== 'modern') throw new Error('the SDK v2 client did not land on the modern era');
      await client.listTools();
      return client;
    }),
  );
  const query = (worker: number, i: number) => ({ name: 'search_documents', arguments: { query: claims[(worker * 104729 + i) % claims.length] as string } });
  await compareEras(
    workers,
    async (worker, i) => (await legacy[worker]!.client.callTool(query(worker, i))) as CallToolResult,
    async (worker, i) => (await modern[worker]!.callTool(query(worker, i))) as CallToolResult,
    options.eraDurationS,
    server,
    'SDK clients',
  );
  const sessionIds = legacy.map((c) => c.transport.sessionId as string);
  const rawLegacy = rawCaller(url, sessionIds, claims);
  await compareEras(workers, async (worker, i) => (await rawLegacy.search(worker, i)) as CallToolResult, rawModernSearch(url, claims), options.eraDurationS, server, 'raw HTTP');
  await Promise.all([
    ...legacy.map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }),
    ...modern.map((client) => client.close()),
  ]);
}

// ── soak ─────────────────────────────────────────────────────────────────────────────────────────
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Opens a session over raw HTTP, makes one search, and walks away without DELETE. Every tenth keeps its SSE stream open, unread. */
async function openAndAbandon(url: string, query: string, n: number, abandonedStreams: AbortController[] | undefined): Promise<void> {
  const init = await fetch(url, {
    method: 'POST',
    headers: POST_HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `soak-${n}`, version: '1' } } }),
  });
  const id = init.headers.get('mcp-session-id');
  await init.text();
  if (init.status !== 200 || !id) throw new Error(`initialize answered ${init.status}`);
  const headers = { ...POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  const initialized = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await initialized.text();
  const search = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_documents', arguments: { query } } }),
  });
  const text = await search.text();
  if (search.status !== 200 || !text.includes('"results"')) throw new Error(`search answered ${search.status}`);
  if (abandonedStreams && n % 10 === 0) {
    const abort = new AbortController();
    const stream = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' }, signal: abort.signal });
    if (stream.status !== 200) throw new Error(`GET stream answered ${stream.status}`);
    abandonedStreams.push(abort); // never read; closed by the server when the session is evicted
  }
}

/** Opens `count` sessions (32 at a time) that each make one search and are then abandoned. */
async function openWave(url: string, claims: readonly string[], first: number, count: number, streams: AbortController[] | undefined): Promise<number> {
  let next = 0;
  let failures = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < count) {
        next += 1;
        const n = first + next;
        await openAndAbandon(url, claims[n % claims.length] as string, n, streams).catch(() => (failures += 1));
      }
    }),
  );
  return failures;
}

/** RSS and heap per 1,000 idle sessions: a server without a practical cap, before and after `count` sessions. */
async function idleSessionCost(corpusDir: string, claims: readonly string[], options: Options): Promise<void> {
  const count = options.idleSessions;
  const server = await ServerChild.start(corpusDir, 1_000_000, options.logLevel);
  try {
    await openWave(server.mcpUrl, claims, 0, 200, undefined); // warm up: JIT, pools, first allocations
    const before = await server.stats(true);
    const failures = await openWave(server.mcpUrl, claims, 200, count, undefined);
    const after = await server.stats(true);
    const opened = after.sessions - before.sessions;
    const per1000 = (delta: number) => mib((delta / opened) * 1000);
    console.log(`\n## Idle sessions: ${opened} opened (initialize, one search, abandoned) on a server without a practical cap\n`);
    console.log(
      table(
        ['measure (after 2 full GCs)', 'before', 'after', 'per 1,000 idle sessions'],
        [
          ['RSS', mib(before.rss), mib(after.rss), per1000(after.rss - before.rss)],
          ['heap used + external', mib(before.heapUsed + before.external), mib(after.heapUsed + after.external), per1000(after.heapUsed + after.external - before.heapUsed - before.external)],
        ],
      ),
    );
    if (failures > 0) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

async function soak(server: ServerChild, claims: readonly string[], options: Options): Promise<void> {
  const { waves, waveSize, maxSessions } = options;
  console.log(`\n## Soak: ${waves} waves × ${waveSize} sessions opened and abandoned (MAX_SESSIONS=${maxSessions}); measured after 2 full GCs\n`);
  const base = await server.stats(true);
  const series: Array<{ wave: number; opened: number; stats: ServerStats; seconds: number }> = [];
  const streams: AbortController[] = [];
  let opened = 0;
  let failures = 0;
  for (let wave = 1; wave <= waves; wave += 1) {
    const started = performance.now();
    failures += await openWave(server.mcpUrl, claims, opened, waveSize, streams);
    opened += waveSize;
    series.push({ wave, opened, stats: await server.stats(true), seconds: (performance.now() - started) / 1000 });
  }
  console.log(
    table(
      ['wave', 'sessions opened', 'live sessions', 'open connections', 'RSS', 'heap used', 'external', 'wave s'],
      [
        ['before', '0', String(base.sessions), String(base.connections), mib(base.rss), mib(base.heapUsed), mib(base.external), ''],
        ...series.map((s) => [String(s.wave), String(s.opened), String(s.stats.sessions), String(s.stats.connections), mib(s.stats.rss), mib(s.stats.heapUsed), mib(s.stats.external), s.seconds.toFixed(1)]),
      ],
    ),
  );
  const capped = series.filter((s) => s.opened >= maxSessions + waveSize);
  if (capped.length >= 2) {
    const heaps = capped.map((s) => s.stats.heapUsed + s.stats.external);
    const rsses = capped.map((s) => s.stats.rss);
    const spread = (list: number[]) => Math.max(...list) - Math.min(...list);
    console.log(
      `after the cap (waves ${capped[0]!.wave}–${capped[capped.length - 1]!.wave}): live sessions ${Math.max(...capped.map((s) => s.stats.sessions))} at most; ` +
        `heap+external spread ${mib(spread(heaps))}, RSS spread ${mib(spread(rsses))}; ` +
        `first→last heap+external ${mib(heaps[0]!)} → ${mib(heaps[heaps.length - 1]!)}`,
    );
  }
  console.log(`abandoned SSE streams: ${streams.length}; open server connections at the end: ${series[series.length - 1]?.stats.connections}; failed session opens: ${failures}`);
  for (const abort of streams) abort.abort();
  if (failures > 0) process.exitCode = 1;
}

async function reportRatio(label: string, workers: number, caller: Caller, options: Options, server: ServerChild | undefined): Promise<void> {
  const profiles = options.profile && server ? new Map<string, CpuProfile[]>() : undefined;
  const clientProfiler = options.profile ? new Session() : undefined;
  if (clientProfiler) {
    clientProfiler.connect();
    await clientProfiler.post('Profiler.enable');
    await clientProfiler.post('Profiler.start');
  }
  const ratio = await pingVersusSearch(workers, caller, options.ratioDurationS, server, profiles);
  const clientProfile = clientProfiler ? ((await clientProfiler.post('Profiler.stop')).profile as unknown as CpuProfile) : undefined;
  clientProfiler?.disconnect();
  console.log(`\n## MCP ping vs search_documents, ${label}: ${workers} concurrent sessions, alternating rounds, ${options.ratioDurationS} s of each\n`);
  printRows([ratio.ping, ratio.search]);
  const callsRatio = ratio.search.perSecond / ratio.ping.perSecond;
  const p50Ratio = ratio.search.p50 / ratio.ping.p50;
  console.log(
    `\nsearch calls/s ÷ ping calls/s = ${callsRatio.toFixed(2)} (target ≥ 0.5: ${callsRatio >= 0.5 ? 'met' : 'NOT met'}); ` +
      `search p50 ÷ ping p50 = ${p50Ratio.toFixed(2)} (target ≤ 1.3: ${p50Ratio <= 1.3 ? 'met' : 'NOT met'})`,
  );
  if (ratio.pingCpuMsPerCall !== undefined && ratio.searchCpuMsPerCall !== undefined) {
    console.log(`server CPU per call: ping ${ratio.pingCpuMsPerCall.toFixed(3)} ms, search ${ratio.searchCpuMsPerCall.toFixed(3)} ms`);
  }
  if (profiles) {
    for (const [kind, list] of profiles) {
      console.log(`\n### Server CPU profile during ${kind} (${label}, ${workers} sessions): self time by frame (top 15) and by origin\n`);
      console.log(summariseProfile(list));
    }
  }
  if (clientProfile) {
    console.log(`\n### Load generator CPU profile over both kinds (${label}, ${workers} sessions)\n`);
    console.log(summariseProfile([clientProfile]));
  }
}

/**
 * Where a search's time goes on the server side, measured in this process on the same corpus: ranking,
 * snippets, the tool layer (argument validation, result mapping) and the JSON text block. The rest of
 * the server's cost of a call is the MCP transport's and HTTP's, which ping measures.
 */
/** Runs a call that must throw (a refused tool call), and returns the error. */
function refused(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to be refused');
}

async function searchStages(corpusDir: string, claims: readonly string[]): Promise<void> {
  const { loadCorpus } = await import('../src/corpus/load-corpus.js');
  const { SearchIndex } = await import('../src/search/search-index.js');
  const { createSearchDocuments } = await import('../src/mcp/tools/search-documents.js');
  const { createGetDocument } = await import('../src/mcp/tools/get-document.js');
  const { DEFAULT_TOOL_LIMITS } = await import('../src/mcp/tools/tool-limits.js');
  const searchDocuments = createSearchDocuments(DEFAULT_TOOL_LIMITS, false);
  const getDocument = createGetDocument(DEFAULT_TOOL_LIMITS);
  const corpus = await loadCorpus(corpusDir);
  const index = SearchIndex.build(corpus.documents);
  const served = { index, skipped: corpus.skipped, generation: 1 };
  const stages: Array<[string, (query: string) => unknown]> = [
    ['rank: index.search, top 5 (snippets not read)', (q) => index.search(q, { topK: 5 })],
    ['rank + 5 snippets', (q) => index.search(q, { topK: 5 }).map((h) => h.snippet)],
    ['search_documents handler: + argument validation, result mapping', (q) => searchDocuments.call({ query: q }, served)],
    ['+ JSON text block (JSON.stringify of the result)', (q) => JSON.stringify(searchDocuments.call({ query: q }, served))],
    // Not a search: the refusal of an unknown source, whose "did you mean" work the caller's name drives.
    ['get_document, unknown 8-character source (suggestions)', () => refused(() => getDocument.call({ source: 'nope.mdx' }, served))],
    ['get_document, unknown 200-character source (suggestions)', () => refused(() => getDocument.call({ source: 'x'.repeat(200) }, served))],
  ];
  const rowsOut: string[][] = [];
  for (const [name, run] of stages) {
    const calls = name.startsWith('get_document') ? 200 : 4000;
    for (let i = 0; i < calls / 2; i += 1) run(claims[i % claims.length] as string);
    const samples: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      const started = performance.now();
      for (let i = 0; i < calls; i += 1) run(claims[(round * calls + i) % claims.length] as string);
      samples.push(((performance.now() - started) / calls) * 1000);
    }
    samples.sort((a, b) => a - b);
    rowsOut.push([name, (samples[2] as number).toFixed(1)]);
  }
  const bytes = JSON.stringify(searchDocuments.call({ query: claims[0] as string }, served)).length;
  console.log(`\n## Where a search's server time goes (in this process, ${claims.length} SciFact claims, median of 5 rounds)\n`);
  console.log(table(['stage (cumulative for the search rows)', 'µs per call'], rowsOut));
  console.log(`\nstructuredContent of a typical answer: ${bytes} bytes of JSON, sent twice (structuredContent and the text block)`);
}

// ── main ─────────────────────────────────────────────────────────────────────────────────────────
/**
 * The mixed load against one replica, one replica behind the round-robin proxy (a new upstream
 * connection per request), and two replicas behind it sharing SESSION_SECRET, so every session's
 * requests alternate between processes and each re-creates every session once. Setups alternate in
 * rounds so drift on a shared machine falls on each alike.
 */
async function reportReplicas(folder: string, claims: readonly string[], options: Options): Promise<void> {
  const secret = randomBytes(32).toString('hex');
  const maxSessions = Math.max(1000, options.sessions * 2);
  const [a, b] = [await ServerChild.start(folder, maxSessions, options.logLevel, secret), await ServerChild.start(folder, maxSessions, options.logLevel, secret)];
  const backend = (server: ServerChild) => ({ host: '127.0.0.1', port: Number(new URL(server.mcpUrl).port) });
  const proxyOne = await startRoundRobinProxy([backend(a)]);
  const proxyTwo = await startRoundRobinProxy([backend(a), backend(b)]);
  const setups = [
    { name: 'one replica, direct', url: a.mcpUrl },
    { name: 'one replica behind the proxy', url: `${proxyOne.url}/mcp` },
    { name: 'two replicas behind the proxy', url: `${proxyTwo.url}/mcp` },
  ];
  const results = new Map(setups.map((setup) => [setup.name, { calls: 0, seconds: 0, search: [] as number[], errors: 0 }]));
  try {
    const rounds = 2;
    for (let round = 0; round < rounds; round += 1) {
      for (const setup of setups) {
        const connected = await Promise.all(Array.from({ length: options.sessions }, (_, n) => connect(setup.url, n)));
        const { recorder, elapsed } = await mixedLoad(connected.map((c) => c.client), claims, options.durationS / rounds);
        const result = results.get(setup.name)!;
        for (const latencies of recorder.latencies.values()) result.calls += latencies.length;
        result.search.push(...(recorder.latencies.get('search_documents') ?? []));
        result.seconds += elapsed;
        result.errors += recorder.totalErrors;
        for (const sample of recorder.errorSamples) console.log(`  error (${setup.name}): ${sample}`);
        await Promise.all(connected.map(async ({ client, transport }) => {
          await transport.terminateSession().catch(() => {});
          await client.close();
        }));
      }
    }
  } finally {
    await Promise.all([proxyOne.close(), proxyTwo.close(), a.stop(), b.stop()]);
  }
  const base = results.get(setups[0]!.name)!;
  console.log(`\n## Replicas: ${options.sessions} concurrent sessions, mixed tools, ${options.durationS} s per setup in alternating rounds\n`);
  console.log(
    table(
      ['setup', 'tool calls/s', 'vs one replica', 'search p50 ms', 'search p99 ms', 'errors'],
      setups.map(({ name }) => {
        const r = results.get(name)!;
        const sorted = [...r.search].sort((x, y) => x - y);
        const perSecond = r.calls / r.seconds;
        return [name, perSecond.toFixed(0), `${(perSecond / (base.calls / base.seconds)).toFixed(2)}×`, ms(percentile(sorted, 0.5)), ms(percentile(sorted, 0.99)), String(r.errors)];
      }),
    ),
  );
  if ([...results.values()].some((r) => r.errors > 0)) process.exitCode = 1;
}

async function main(options: Options): Promise<void> {
  const claims = readClaims().map((c) => c.text);
  let server: ServerChild | undefined;
  let url = options.url;
  if (options.replicas) {
    if (url !== undefined) throw new Error('--replicas starts its own servers; drop --url');
    await reportReplicas(writeCorpusFolder(readScifactDocs()), claims, options);
    return;
  }
  if (url === undefined) {
    const folder = writeCorpusFolder(readScifactDocs());
    if (options.soak) await idleSessionCost(folder, claims, options);
    server = await ServerChild.start(folder, options.soak ? options.maxSessions : Math.max(1000, options.sessions * 2), options.logLevel);
    url = server.mcpUrl;
    console.log(`server: child process on ${url}, SciFact corpus from ${folder}, LOG_LEVEL=${options.logLevel}, node ${process.version}`);
  } else {
    console.log(`server: ${url} (not started here: no RSS or CPU figures)`);
  }

  try {
    if (options.soak) {
      await soak(server!, claims, options);
      return;
    }
    if (options.eras) {
      await reportEras(url, server, claims, options);
      return;
    }
    const idle = await server?.stats(true);
    const connectStarted = performance.now();
    const connected = await Promise.all(Array.from({ length: options.sessions }, (_, n) => connect(url, n)));
    const clients = connected.map((c) => c.client);
    console.log(`${clients.length} sessions connected (initialize + tools/list) in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s`);

    let peakRss = 0;
    const sampler = server ? setInterval(() => void server.stats().then((s) => (peakRss = Math.max(peakRss, s.rss))), 500) : undefined;
    const cpuBefore = await server?.stats();
    const { recorder, elapsed } = await mixedLoad(clients, claims, options.durationS);
    const cpuAfter = await server?.stats();
    if (sampler) clearInterval(sampler);
    const list = rows(recorder, elapsed, ['search_documents', 'get_chunk', 'get_document', 'list_documents']);
    const total = list.reduce((a, r) => a + r.calls, 0);
    console.log(`\n## Mixed load: ${clients.length} concurrent sessions for ${elapsed.toFixed(1)} s\n`);
    printRows([...list, { name: 'all tools', calls: total, perSecond: total / elapsed, p50: NaN, p99: NaN, errors: recorder.totalErrors }]);
    if (cpuBefore && cpuAfter && idle) {
      const cpuMs = cpuAfter.cpuUserMs + cpuAfter.cpuSystemMs - cpuBefore.cpuUserMs - cpuBefore.cpuSystemMs;
      console.log(`\nserver: CPU ${(cpuMs / elapsed / 10).toFixed(0)}% of one core, ${(cpuMs / Math.max(total, 1)).toFixed(2)} ms CPU per call; RSS idle ${mib(idle.rss)}, peak ${mib(peakRss)}, live sessions ${cpuAfter.sessions}`);
    }
    for (const sample of recorder.errorSamples) console.log(`  error: ${sample}`);

    const sessionIds = connected.map((c) => c.transport.sessionId as string);
    for (const count of [clients.length, Math.min(options.ratioSessions, clients.length)]) {
      await reportRatio('SDK client', count, sdkCaller(clients, claims), options, server);
      await reportRatio('raw HTTP on the same sessions', count, rawCaller(url, sessionIds, claims), options, server);
    }

    await Promise.all(connected.map(async ({ client, transport }) => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }));
    if (recorder.totalErrors > 0) process.exitCode = 1;
    await reportEras(url, server, claims, options);
    if (server) await searchStages(writeCorpusFolder(readScifactDocs()), claims);
  } finally {
    await server?.stop();
  }
}

if (process.argv.includes('--serve')) {
  await serveChild(process.argv);
} else {
  await main(parseOptions(process.argv.slice(2)));
}
