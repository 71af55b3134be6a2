// Memory the semantic service holds for its chunk vectors, as a user sees it (RSS) and as live
// typed memory (arrayBuffers), on its two paths, each in a fresh process (what one phase frees, the
// allocator would lend the next): a first boot that embeds every chunk and saves the vector cache
// file, and a restart that reads that file back and embeds none. No model runs: the real client's
// fetch is answered in-process with seeded random numbers, so the figures are the server's own.
// Run it on two commits alternately to compare them.
// A second table times a save of the cache file and the longest the event loop went without
// running a 1 ms timer meanwhile (what a /healthz probe would wait).
// Usage: npm run bench:vector-memory [-- --dims 768,1536] [--chunks 35416]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../src/logger.js';
import { createEmbeddingsClient, type EmbeddingsClient } from '../src/providers/embeddings-client.js';
import { SearchIndex } from '../src/search/search-index.js';
import { VectorCache } from '../src/search/vector-cache.js';
import { SemanticService } from '../src/semantic/semantic-service.js';
import { vectorCacheFile } from '../src/semantic/vector-cache-file.js';
import { table } from './lib/scifact.js';
import { settledMemoryUsage } from './lib/memory.js';
import { seededRandom } from './lib/stats.js';

const arg = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const dimsList = arg('--dims', '768,1536').split(',').map(Number);
const chunks = Number(arg('--chunks', '35416'));

if ((globalThis as { gc?: () => void }).gc === undefined) throw new Error('run with node --expose-gc (npm run bench:vector-memory does)');

/**
 * The real embeddings client, its fetch answered in-process with seeded random numbers as JSON, so
 * the vectors are read and allocated exactly as the server does; no socket, no model.
 */
function standIn(dims: number): EmbeddingsClient {
  const random = seededRandom(7);
  const fetch = ((_url: string, init?: RequestInit) => {
    const { input } = JSON.parse(String(init?.body)) as { input: string[] };
    const data = input.map((_, index) => ({ index, embedding: Array.from({ length: dims }, () => Math.round((random() - 0.5) * 1e6) / 1e6) }));
    return Promise.resolve(new Response(JSON.stringify({ data }), { status: 200, headers: { 'content-type': 'application/json' } }));
  }) as typeof globalThis.fetch;
  return createEmbeddingsClient({ url: 'http://stand-in.invalid/v1', model: 'stand-in', fetch });
}

const docs = Array.from({ length: chunks }, (_, i) => ({
  source: `d${i}.txt`,
  format: 'text' as const,
  title: `d${i}`,
  text: `document ${i} about topic ${i % 97}, with words ${i % 13}`,
  bodyStart: 0,
  bytes: 50,
  sections: [],
}));
const index = SearchIndex.build(docs);
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const mode = arg('--mode', 'table');
const cacheFile = arg('--cache', '');
const store = vectorCacheFile(cacheFile, (reason) => {
  throw new Error(`the vector cache was refused: ${reason}`);
});

/** One path in this process: serve the index with the stand-in, then print the growth as JSON. */
async function measure(dims: number): Promise<void> {
  const start = await settledMemoryUsage(3);
  const service = new SemanticService({ embeddings: standIn(dims), logger: silentLogger });
  service.useCacheStore(store);
  await service.embedInBackground(index);
  const after = await settledMemoryUsage(3);
  console.log(
    JSON.stringify({
      rss: after.rss - start.rss,
      arrayBuffers: after.arrayBuffers - start.arrayBuffers,
      vectorBytes: service.vectorsFor(index)?.bytes ?? 0,
      embedded: service.lastPass?.embedded,
      reused: service.lastPass?.reused,
    }),
  );
  service.close();
}

if (mode !== 'table') {
  await measure(dimsList[0] as number);
} else {
  const rows: string[][] = [];
  const folder = mkdtempSync(join(tmpdir(), 'corpus-mcp-vector-memory-'));
  try {
    for (const dims of dimsList) {
      const cache = join(folder, `${dims}.vectors`);
      const run = (path: string): { rss: number; arrayBuffers: number; vectorBytes: number; embedded: number; reused: number } => {
        const out = execFileSync(process.execPath, [...process.execArgv, process.argv[1] as string, '--mode', path, '--dims', String(dims), '--chunks', String(chunks), '--cache', cache], { encoding: 'utf8' });
        return JSON.parse(out.trim().split('\n').at(-1) as string) as { rss: number; arrayBuffers: number; vectorBytes: number; embedded: number; reused: number };
      };
      const first = run('first');
      const again = run('restart');
      if (first.embedded !== index.stats.chunks || again.reused !== index.stats.chunks) throw new Error(`embedded ${first.embedded}, then reused ${again.reused}, of ${index.stats.chunks}`);
      rows.push(
        [String(index.stats.chunks), String(dims), 'first boot (embeds every chunk)', mib(first.vectorBytes), `+${mib(first.rss)}`, `+${mib(first.arrayBuffers)}`],
        [String(index.stats.chunks), String(dims), 'restart (reads the cache file)', mib(again.vectorBytes), `+${mib(again.rss)}`, `+${mib(again.arrayBuffers)}`],
      );
    }
    console.log(table(['chunks', 'dims', 'path', 'vector index MiB', 'RSS growth MiB', 'arrayBuffers growth MiB'], rows));
    console.log(table(['chunks', 'dims', 'file MiB', 'save ms', 'longest event-loop gap ms'], await saves(folder)));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Saves a cache of every chunk's vector four times per size; its vectors are views of one block, as the server's are. */
async function saves(folder: string): Promise<string[][]> {
  const out: string[][] = [];
  for (const dims of dimsList) {
    const rows = new Float32Array(chunks * dims);
    for (let i = 0; i < chunks; i += 1) rows[i * dims + (i % dims)] = 1;
    const cache = new VectorCache('stand-in@native', dims);
    for (let i = 0; i < chunks; i += 1) cache.set(cache.key(`passage ${i}`), rows.subarray(i * dims, (i + 1) * dims));
    const file = join(folder, `save-${dims}.vectors`);
    const saving = vectorCacheFile(file, () => undefined);
    for (let round = 0; round < 4; round += 1) {
      let last = performance.now();
      let longest = 0;
      const tick = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const started = performance.now();
      await saving.save(cache);
      const took = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 10));
      clearInterval(tick);
      out.push([String(chunks), String(dims), mib(statSync(file).size), took.toFixed(0), longest.toFixed(0)]);
    }
  }
  return out;
}
