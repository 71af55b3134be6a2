// `npm run bench:boot`: the index lifecycle as an operator sees it, on SciFact ×4 (20,732 documents),
// measured from outside the server process: the compiled server is started exactly as `npm start`
// starts it, and everything is read over HTTP or from /proc.
//
//   1. fresh build (no snapshot yet): process start → /readyz 200, with /healthz polled every 20 ms
//      throughout (its slowest answer is the figure), RSS after boot;
//   2. boot from the snapshot the first boot wrote: the same figures;
//   3. the same search_documents calls against both servers: identical results or not;
//   4. 8 concurrent search clients for 60 s against the snapshot-booted server, RSS every 5 s.
//
//   npm run bench:boot                          # ×4, 60 s of load
//   npm run bench:boot -- --copies 1 --duration 20 --clients 8
//   npm run bench:boot -- --node-args "--max-old-space-size=4096"   # compare against another heap cap
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readClaims, readScifactDocs, table, writeCorpusFolder } from './lib/scifact.js';
import { bootServer, connect, mib, ms, rssOf, stopServer } from './lib/server-process.js';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? (argv[at + 1] as string) : fallback;
};
const copies = Number(option('copies', '4'));
const durationS = Number(option('duration', '60'));
const clients = Number(option('clients', '8'));
const extraNodeArgs = option('node-args', '').split(' ').filter((a) => a !== '');

async function searchAll(port: number, queries: readonly string[]): Promise<string[]> {
  const client = await connect(port, 'bench-boot');
  const out: string[] = [];
  for (const query of queries) {
    const result = (await client.callTool({ name: 'search_documents', arguments: { query, top_k: 10 } })) as CallToolResult;
    out.push(JSON.stringify(result.structuredContent));
  }
  await client.close();
  return out;
}

async function main(): Promise<void> {
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const corpusDir = writeCorpusFolder(readScifactDocs(), copies);
  const claims = readClaims().map((c) => c.text);
  const indexFile = join(tmpdir(), `corpus-mcp-bench-boot-${process.pid}.snapshot`);
  rmSync(indexFile, { force: true });
  const machine = `${(await import('node:os')).cpus().length} cores, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`;
  console.log(`# bench:boot — SciFact ×${copies} (${corpusDir}), ${machine}\n`);

  const fresh = await bootServer({ root, corpusDir, indexFile, extraNodeArgs });
  const freshResults = await searchAll(fresh.port, claims.slice(0, 200));
  await stopServer(fresh.child);
  const fromSnapshot = await bootServer({ root, corpusDir, indexFile, extraNodeArgs });
  const snapshotResults = await searchAll(fromSnapshot.port, claims.slice(0, 200));
  const identical = freshResults.every((r, i) => r === snapshotResults[i]);
  const snapshotBytes = Number(readFileSync(indexFile).length);

  console.log(
    table(
      [
        'boot',
        'origin',
        'start → /healthz 200 (ms)',
        'start → /readyz 200 (ms)',
        'CPU s to ready',
        'slowest /healthz while booting (ms)',
        '/healthz answers',
        'slowest /healthz once ready (ms, baseline)',
        'RSS at ready (MiB)',
        'RSS 2 s later (MiB)',
      ],
      [fresh, fromSnapshot].map((b, i) => [
        i === 0 ? 'no snapshot (fresh build)' : 'from the snapshot',
        b.origin,
        ms(b.firstHealthzMs),
        ms(b.readyMs),
        b.cpuReady.toFixed(2),
        ms(b.healthzMaxMs),
        String(b.healthzCount),
        ms(b.healthzIdleMaxMs),
        mib(b.rssReady),
        mib(b.rssSettled),
      ]),
    ),
  );
  console.log(`\nsnapshot file: ${mib(snapshotBytes)} MiB; search_documents on ${freshResults.length} claims: ${identical ? 'identical' : 'DIFFERENT'} results from the snapshot and the fresh build`);

  // Load: `clients` sessions, each calling search_documents back to back over the claims.
  const sessions = await Promise.all(Array.from({ length: clients }, () => connect(fromSnapshot.port, 'bench-boot')));
  let calls = 0;
  let failures = 0;
  let running = true;
  const loops = sessions.map(async (client, k) => {
    for (let i = k; running; i += clients) {
      try {
        const result = (await client.callTool({ name: 'search_documents', arguments: { query: claims[i % claims.length] as string } })) as CallToolResult;
        if (result.isError) failures += 1;
        calls += 1;
      } catch {
        failures += 1;
      }
    }
  });
  const samples: string[][] = [];
  const rss: number[] = [];
  const loadStarted = performance.now();
  for (let t = 5; t <= durationS; t += 5) {
    await new Promise((r) => setTimeout(r, loadStarted + t * 1000 - performance.now()));
    const value = rssOf(fromSnapshot.child.pid!);
    rss.push(value);
    samples.push([String(t), mib(value), String(calls)]);
  }
  running = false;
  await Promise.all(loops);
  await Promise.all(sessions.map((c) => c.close()));
  const seconds = (performance.now() - loadStarted) / 1000;
  console.log(`\n## ${clients} concurrent search clients for ${durationS} s (server booted from the snapshot)\n`);
  console.log(table(['t (s)', 'RSS (MiB)', 'calls so far'], samples));
  const half = rss.slice(Math.floor(rss.length / 2));
  console.log(
    `\n${calls} calls (${(calls / seconds).toFixed(0)}/s), ${failures} failed; RSS max ${mib(Math.max(...rss))} MiB; ` +
      `second half ${mib(Math.min(...half))}–${mib(Math.max(...half))} MiB (drift ${mib(Math.max(...half) - Math.min(...half))} MiB)`,
  );
  await stopServer(fromSnapshot.child);
  rmSync(indexFile, { force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
