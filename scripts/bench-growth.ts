// `npm run bench:growth`: a large corpus served from a snapshot, as the Dockerfile serves it. For each
// size (SciFact ×4 and ×20 by default):
//
//   1. `npm run index -- --out` (the compiled index-cli, timed; the snapshot's size);
//   2. the compiled server started as `npm start` starts it (bench-boot.ts's harness), `boots` times
//      (3 by default; the median boot's figures are shown, and every boot's time to ready), and its boot
//      profile by phase, from outside (process start → /healthz 200, → /readyz 200) and from the
//      timings the server logs with "index built; ready" (read, checksum, manifest check, decode of
//      each section), then the first query;
//   3. a digest of the top 10 of every training claim, to show a change left the rankings alone;
//   4. `clients` search clients for `duration` s, RSS every second; then MCP ping and search in
//      alternating rounds on the same sessions: p50 and calls/s of each, and their ratios, and the
//      CPU time per call of the server and of the clients (this process) for each.
//
//   npm run bench:growth                                  # ×4 and ×20, 8 clients, 30 s
//   npm run bench:growth -- --copies 20 --duration 10 --boots 5
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { cliOption } from './lib/cli-option.js';
import { readClaims, readScifactDocs, table, writeCorpusFolder } from './lib/scifact.js';
import { bootServer, connect, cpuSecondsOf, mib, ms, rssOf, stopServer } from './lib/server-process.js';
import type { Boot } from './lib/server-process.js';

const root = resolve(import.meta.dirname, '..');
const option = cliOption;
const sizes = option('copies', '4,20').split(',').map(Number);
const durationS = Number(option('duration', '30'));
const ratioS = Number(option('ratio-duration', '5'));
const clients = Number(option('clients', '8'));
const bootCount = Number(option('boots', '3'));
if (!Number.isInteger(bootCount) || bootCount < 1) throw new Error(`--boots must be a whole number of at least 1, not ${option('boots', '3')}`);

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' ');
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/** The `timings_ms` of the server's "index built; ready" log line. */
function bootTimings(boot: Boot): Record<string, number> {
  for (const line of boot.log.split('\n')) {
    if (!line.includes('index built; ready')) continue;
    return (JSON.parse(line) as { timings_ms?: Record<string, number> }).timings_ms ?? {};
  }
  return {};
}

async function search(client: Client, query: string): Promise<CallToolResult> {
  const result = (await client.callTool({ name: 'search_documents', arguments: { query, top_k: 10 } })) as CallToolResult;
  if (result.isError) throw new Error(`search_documents failed: ${JSON.stringify(result.content)}`);
  return result;
}

/** `clients` workers calling `call` back to back for `seconds`: latencies, calls, failures. */
async function drive(sessions: readonly Client[], seconds: number, call: (client: Client, i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let failures = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    sessions.map(async (client, k) => {
      for (let i = k; performance.now() < until; i += sessions.length) {
        const sent = performance.now();
        try {
          await call(client, i);
          latencies.push(performance.now() - sent);
        } catch {
          failures += 1;
        }
      }
    }),
  );
  return { latencies, failures, seconds: (performance.now() - started) / 1000 };
}

async function measure(copies: number, docs: ReturnType<typeof readScifactDocs>, claims: readonly string[]): Promise<string[]> {
  const corpusDir = writeCorpusFolder(docs, copies);
  const indexFile = join(tmpdir(), `corpus-mcp-bench-growth-${process.pid}-x${copies}.snapshot`);
  rmSync(indexFile, { force: true });
  const loadBefore = load();
  const indexStarted = performance.now();
  execFileSync(process.execPath, [join(root, 'dist/src/index-cli.js'), '--out', indexFile], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', CORPUS_DIR: corpusDir },
    stdio: 'ignore',
  });
  const indexMs = performance.now() - indexStarted;
  const snapshotBytes = statSync(indexFile).size;

  // `boots` boots from the same snapshot: the phases and the figures at ready are the median boot's
  // (by start → /readyz), every boot's time is listed, and the last one serves the queries below.
  const boots: Boot[] = [];
  for (let b = 0; b < bootCount; b += 1) {
    if (b > 0) await stopServer(boots[b - 1]!.child);
    boots.push(await bootServer({ root, corpusDir, indexFile }));
  }
  const boot = boots.at(-1)!;
  const typical = [...boots].sort((a, b) => a.readyMs - b.readyMs)[Math.floor((boots.length - 1) / 2)]!;
  const t = bootTimings(typical);
  const client = await connect(boot.port, 'bench-growth');
  let sent = performance.now();
  await search(client, claims[0] as string);
  const firstQueryMs = performance.now() - sent;
  sent = performance.now();
  await search(client, claims[1] as string);
  const secondQueryMs = performance.now() - sent;

  // Every claim's top 10 (chunk ids and scores), as one digest.
  const digest = createHash('sha256');
  for (const claim of claims) {
    const hits = ((await search(client, claim)).structuredContent as { results: Array<{ chunk_id: string; score: number }> }).results;
    digest.update(JSON.stringify(hits.map((h) => [h.chunk_id, h.score])));
  }
  await client.close();

  // Load: `clients` search sessions for `durationS`, RSS every second.
  const sessions = await Promise.all(Array.from({ length: clients }, () => connect(boot.port, 'bench-growth')));
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssOf(boot.child.pid!)), 1000);
  const loadDuring = load();
  const loaded = await drive(sessions, durationS, (c, i) => search(c, claims[i % claims.length] as string));
  clearInterval(sampler);
  // Ping against search, alternating rounds on the same sessions, twice.
  const rounds = { ping: [] as number[], search: [] as number[] };
  const callTime = { ping: 0, search: 0 };
  // CPU seconds each side spent per kind: the server process, and this process (the clients).
  // Unlike latency and rate, CPU per call hardly moves with the machine's load.
  const serverCpu = { ping: 0, search: 0 };
  const clientCpu = { ping: 0, search: 0 };
  let ratioFailures = 0;
  for (let r = 0; r < 2; r += 1) {
    for (const kind of ['ping', 'search'] as const) {
      const serverBefore = cpuSecondsOf(boot.child.pid!);
      const clientBefore = process.cpuUsage();
      const round = await drive(sessions, ratioS, (c, i) => (kind === 'ping' ? c.ping() : search(c, claims[i % claims.length] as string)));
      const client = process.cpuUsage(clientBefore);
      serverCpu[kind] += cpuSecondsOf(boot.child.pid!) - serverBefore;
      clientCpu[kind] += (client.user + client.system) / 1e6;
      rounds[kind].push(...round.latencies);
      callTime[kind] += round.seconds;
      ratioFailures += round.failures;
    }
  }
  await Promise.all(sessions.map((c) => c.close()));
  const rssAfterLoad = rssOf(boot.child.pid!);
  await stopServer(boot.child);
  rmSync(indexFile, { force: true });

  const pingRate = rounds.ping.length / callTime.ping;
  const cpuPerCall = (cpu: { ping: number; search: number }): string => {
    const each = (kind: 'ping' | 'search') => (cpu[kind] * 1000) / Math.max(rounds[kind].length, 1);
    return `${each('search').toFixed(2)} / ${each('ping').toFixed(2)} = ${(each('search') / each('ping')).toFixed(2)}`;
  };
  const searchRate = rounds.search.length / callTime.search;
  const phase = (name: string): string => (t[name] === undefined ? '–' : String(t[name]));
  const decodeSum = (t.documentsMs ?? 0) + (t.termsMs ?? 0) + (t.invertedMs ?? 0) + (t.searchIndexMs ?? 0);
  return [
    `×${copies}`,
    `${docs.length * copies}`,
    ms(indexMs),
    mib(snapshotBytes),
    ms(typical.firstHealthzMs),
    phase('readMs'),
    phase('checksumMs'),
    phase('manifestParseMs'),
    phase('manifestMs'),
    phase('snapshotCheckMs'),
    phase('bytesAtMs'),
    phase('documentsMs'),
    phase('termsMs'),
    phase('invertedMs'),
    phase('searchIndexMs'),
    `${phase('decodeMs')} (${decodeSum})`,
    phase('readyAtMs'),
    ms(typical.readyMs),
    boots.map((b) => ms(b.readyMs)).join(', '),
    `${ms(firstQueryMs)} / ${ms(secondQueryMs)}`,
    mib(typical.rssReady),
    mib(typical.rssSettled),
    mib(Math.max(...rss)),
    mib(rssAfterLoad),
    `${loaded.latencies.length} (${(loaded.latencies.length / loaded.seconds).toFixed(0)}/s), ${loaded.failures + ratioFailures} failed`,
    `${median(rounds.search).toFixed(1)} / ${median(rounds.ping).toFixed(1)} = ${(median(rounds.search) / median(rounds.ping)).toFixed(2)}`,
    `${searchRate.toFixed(0)} / ${pingRate.toFixed(0)} = ${(searchRate / pingRate).toFixed(2)}`,
    cpuPerCall(serverCpu),
    cpuPerCall(clientCpu),
    digest.digest('hex').slice(0, 12),
    `${loadBefore} / ${loadDuring}`,
  ];
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const docs = readScifactDocs();
  const claims = readClaims().map((c) => c.text);
  console.log(`# bench:growth — SciFact ×${sizes.join(', ×')}, ${cpus().length} cores, load average ${load()}\n`);
  const rows: string[][] = [];
  for (const copies of sizes) rows.push(await measure(copies, docs, claims));
  const names = [
    'corpus',
    'documents',
    '`npm run index -- --out` (ms)',
    'snapshot (MiB)',
    'process start + modules → /healthz 200 (ms)',
    'check worker: read (ms)',
    'SHA-256 (ms; in the check worker, or beside it on the main thread)',
    'check worker: manifest parse (ms)',
    'check worker: manifest stat calls (ms)',
    'check worker: total (ms)',
    'bytes on the main thread at (ms since start)',
    'decode: document records (ms)',
    'decode: terms JSON (ms)',
    'decode: term map (ms)',
    'decode: SearchIndex (ms)',
    'decode wall (work) (ms)',
    'index served at (ms since start)',
    'start → /readyz 200, median boot (ms)',
    'start → /readyz 200, each boot (ms)',
    'first / second query (ms)',
    'RSS at ready (MiB)',
    'RSS 2 s later (MiB)',
    `RSS peak, ${clients} search clients ${durationS} s (MiB)`,
    'RSS after load (MiB)',
    'search calls under load',
    'search p50 / ping p50 (ms)',
    'search/s / ping/s',
    'server CPU per call, search / ping (ms)',
    'client CPU per call (the bench process), search / ping (ms)',
    'top-10 digest, all claims',
    'load average before / during load',
  ];
  // One row per figure, one column per size: easier to read with this many figures.
  console.log(table(['', ...rows.map((r) => r[0] as string)], names.slice(1).map((name, i) => [name, ...rows.map((r) => r[i + 1] as string)])));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
