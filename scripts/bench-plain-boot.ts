// A plain keyword boot (no provider configured) of this tree against another built tree of the
// project (`--against DIR`, e.g. a worktree of the commit before local models), alternately, each boot
// building the bundled corpus's index afresh: process start → /readyz 200, and RSS 2 s after ready.
// Also whether the process mapped ONNX Runtime's library (a plain boot must load no model code), and,
// for contrast, a boot of this tree with EMBEDDINGS_PROVIDER=local (`--models DIR --model ID`).
//
//   npx tsx scripts/bench-plain-boot.ts --against /tmp/before [--runs 5] [--models DIR --model ID]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { table } from './lib/scifact.js';
import { freePort, mib, rssOf, stopServer } from './lib/server-process.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? (argv[at + 1] as string) : fallback;
};
const here = resolve(import.meta.dirname, '..');
const against = option('against', '');
const runs = Number(option('runs', '5'));
const models = option('models', '');
const model = option('model', '');
if (against === '') throw new Error('--against DIR: a built tree of the project to compare with');

interface Boot {
  readyMs: number;
  rss: number;
  onnxMapped: boolean;
  threads: number;
}

async function boot(root: string, env: Record<string, string> = {}, until: 'ready' | 'semantic' = 'ready'): Promise<Boot> {
  const port = await freePort();
  const work = mkdtempSync(join(tmpdir(), 'corpus-mcp-plain-boot-'));
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', CORPUS_DIR: join(root, 'corpus'), INDEX_FILE: join(work, 'index.snapshot'), PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let readyMs = 0;
  let degraded: unknown;
  for (;;) {
    if (degraded !== undefined) {
      await stopServer(child);
      throw new Error(`the local model did not load: ${JSON.stringify(degraded)}`);
    }
    if (child.exitCode !== null) throw new Error(`the server in ${root} exited with ${child.exitCode}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      const body = (await response.json()) as { semantic?: { state: string } };
      if (body.semantic?.state === 'degraded') degraded = body.semantic;
      if (response.status === 200 && (until === 'ready' || body.semantic?.state === 'ready')) {
        readyMs = performance.now() - started;
        break;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  await new Promise((r) => setTimeout(r, 2000));
  const rss = rssOf(child.pid!);
  const onnxMapped = readFileSync(`/proc/${child.pid}/maps`, 'utf8').includes('onnxruntime');
  const threads = Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
  await stopServer(child);
  rmSync(work, { recursive: true, force: true });
  return { readyMs, rss, onnxMapped, threads };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results: Record<'against' | 'here', Boot[]> = { against: [], here: [] };
await boot(here); // a first start warms the page cache for both trees' shared node_modules
for (let i = 0; i < runs; i += 1) {
  results.against.push(await boot(against));
  results.here.push(await boot(here));
}
const row = (name: string, boots: Boot[]) => [
  name,
  `${median(boots.map((b) => b.readyMs)).toFixed(0)} ms`,
  `${Math.min(...boots.map((b) => b.readyMs)).toFixed(0)}–${Math.max(...boots.map((b) => b.readyMs)).toFixed(0)} ms`,
  `${mib(median(boots.map((b) => b.rss)))} MiB`,
  `${mib(Math.min(...boots.map((b) => b.rss)))}–${mib(Math.max(...boots.map((b) => b.rss)))} MiB`,
  String(median(boots.map((b) => b.threads))),
  boots.some((b) => b.onnxMapped) ? 'yes' : 'no',
];
const rows = [row(`before (${against})`, results.against), row('this tree', results.here)];
if (models !== '' && model !== '') {
  const local = await boot(here, { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: model, MODELS_DIR: models, MODELS_DOWNLOAD: 'false', MODEL_THREADS: '1' }, 'semantic');
  rows.push(row(`this tree, EMBEDDINGS_PROVIDER=local (${model}), to chunk vectors ready`, [local]));
}
console.log(`\nplain keyword boot of the bundled corpus (index built at each boot), ${runs} alternating runs each: start → /readyz 200, RSS 2 s later\n`);
console.log(table(['tree', 'ready p50', 'range', 'RSS p50', 'range', 'threads', 'ONNX Runtime mapped'], rows));
