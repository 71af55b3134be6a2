// Embedded store engines compared on what matters for the authorization server's records: install
// size, boot (fresh folder and reopen), resident memory, and the latency of the store's own statements
// (upsert, lookup, atomic consume), through the same SqlStore. Each engine runs in a fresh child
// process so that boot time and RSS are its own. PGlite is installed into bench/ for this comparison only.
//
//   npm run bench:store
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlClient } from '../src/store/sql-client.js';
import { PGlite } from '@electric-sql/pglite';
import { openSqliteClient } from '../src/store/sqlite-client.js';
import { SqlStore } from '../src/store/sql-store.js';

const OPS = 2000;

interface Result {
  engine: string;
  rssBaselineMb: number;
  bootFreshMs: number;
  bootReopenMs: number;
  rssAfterOpenMb: number;
  rssAfterOpsMb: number;
  putP50us: number; putP99us: number;
  getP50us: number; getP99us: number;
  consumeP50us: number; consumeP99us: number;
}

/** PGlite (PostgreSQL in WebAssembly) behind the store's SqlClient, the candidate measured against SQLite. */
async function pgliteClient(dataDir: string): Promise<SqlClient> {
  const db = await PGlite.create(dataDir);
  return {
    async query(sql, params = []) {
      return (await db.query<Record<string, unknown>>(sql, [...params])).rows;
    },
    async exec(sql) {
      await db.exec(sql);
    },
    async close() {
      await db.close();
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const rssMb = () => Math.round(process.memoryUsage().rss / 1e5) / 10;

async function timed(fn: (i: number) => Promise<unknown>): Promise<[number, number]> {
  const samples: number[] = [];
  for (let i = 0; i < OPS; i++) {
    const t = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  samples.sort((a, b) => a - b);
  return [Math.round(percentile(samples, 0.5)), Math.round(percentile(samples, 0.99))];
}

async function child(engine: string): Promise<Result> {
  const rssBaselineMb = rssMb();
  const dir = mkdtempSync(join(tmpdir(), `bench-store-${engine}-`));
  const open = async () => engine === 'pglite' ? pgliteClient(join(dir, 'pglite')) : openSqliteClient(join(dir, 'auth.sqlite'));
  let t = performance.now();
  let store = await SqlStore.open(await open());
  const bootFreshMs = performance.now() - t;
  await store.close();
  t = performance.now();
  store = await SqlStore.open(await open());
  const bootReopenMs = performance.now() - t;
  const rssAfterOpenMb = rssMb();
  const payload = { accountId: 'ada@example.com', clientId: 'client-1', scope: 'openid offline_access', kind: 'RefreshToken', iat: 1, exp: 2, grantId: 'g' };
  const [putP50us, putP99us] = await timed((i) => store.put('RefreshToken', `r${i}`, payload, { grantId: `g${i % 50}`, accountId: 'ada@example.com', expiresAt: Date.now() + 3_600_000 }));
  const [getP50us, getP99us] = await timed((i) => store.get('RefreshToken', `r${(i * 7) % OPS}`));
  const [consumeP50us, consumeP99us] = await timed((i) => store.consume('RefreshToken', `r${i}`, Date.now()));
  const rssAfterOpsMb = rssMb();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { engine, rssBaselineMb, bootFreshMs: Math.round(bootFreshMs), bootReopenMs: Math.round(bootReopenMs), rssAfterOpenMb, rssAfterOpsMb, putP50us, putP99us, getP50us, getP99us, consumeP50us, consumeP99us };
}

function installedMb(folder: string): number {
  return Math.round(Number(execFileSync('du', ['-sk', folder]).toString().split('\t')[0]) / 102.4) / 10;
}

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const result = await child(args[1]!);
  process.stdout.write(JSON.stringify(result));
} else {
  const self = fileURLToPath(import.meta.url);
  const benchModules = join(dirname(self), 'node_modules');
  const modules = join(dirname(dirname(self)), 'node_modules');
  // better-sqlite3's size counts its compiled addon and its one dependency (bindings, file-uri-to-path).
  const engines: [string, string[]][] = [
    ['pglite', [join(benchModules, '@electric-sql', 'pglite')]],
    ['better-sqlite3', ['better-sqlite3', 'bindings', 'file-uri-to-path'].map((m) => join(modules, m))],
  ];
  const rows: (Result & { installMb: number })[] = [];
  for (const [engine, folders] of engines) {
    const run = spawnSync(process.execPath, ['--import', 'tsx', self, '--child', engine], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`${engine} failed: ${run.stderr}`);
    rows.push({ ...(JSON.parse(run.stdout) as Result), installMb: folders.reduce((sum, f) => sum + installedMb(f), 0) });
  }
  console.table(rows);
}
