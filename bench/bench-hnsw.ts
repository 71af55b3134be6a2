// Would an approximate index (HNSW, from the `usearch` package) pay at our scale? In one process, per
// case: usearch's build time (wall and CPU), the resident-set growth of its index, its query latency
// for the top 10 (one thread, one query at a time) and its recall@10 against the exact float32 top 10,
// beside the server's own exact int8 scan (VectorIndex) on the same vectors and queries.
//
// Two kinds of vectors, because they flatter or hurt an approximate index differently:
// - `random`: seeded random unit vectors, as bench-semantic.ts uses. The nearest neighbours of a random
//   query are barely nearer than anything else: the worst case for HNSW recall and build time.
// - `clustered`: anisotropic, clustered unit vectors, closer to real embeddings: a shared offset,
//   topic clusters, and a power-law spread of variance over dimensions; queries drawn the same way.
//
// usearch's expansion_search is fixed when an index is made, so the higher setting is measured on a
// copy loaded from the saved graph (same graph, no rebuild).
//
// Usage: npm run bench:hnsw                       # the default plan below (about 10 minutes on 2 busy cores)
//        npm run bench:hnsw -- --cases 35416:384:clustered:i8,200000:768:random:f32 --queries 100
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import usearch from 'usearch';
import { VectorIndex } from '../src/search/vector-index.js';
import { table } from '../scripts/lib/scifact.js';
import { seededRandom } from '../scripts/lib/stats.js';

const { Index, MetricKind, ScalarKind } = usearch;

type VectorSet = 'random' | 'clustered';
type Quantization = 'f32' | 'i8';
interface Case {
  count: number;
  dims: number;
  set: VectorSet;
  quantization: Quantization;
}

const TOP_K = 10;
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = [64, 256];
/** Threads for usearch's build (CPU time is reported beside the wall clock); search always uses one. */
const BUILD_THREADS = 2;
const CLUSTERS = 1000;

/**
 * The default plan: a full grid (2 sizes × 3 dimensions × 2 sets × 2 quantizations) builds for well
 * over an hour on this machine, where one 35k × 384 random-vector build alone takes ~40–100 s of CPU.
 */
const DEFAULT_PLAN = [
  '35416:384:random:f32',
  '35416:384:random:i8',
  '35416:384:clustered:f32',
  '35416:384:clustered:i8',
  '35416:768:clustered:i8',
  '35416:1536:clustered:i8',
  '35416:1536:random:i8',
  '200000:384:clustered:i8',
].join(',');

const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? (argv[at + 1] as string) : fallback;
};
const cases: Case[] = option('cases', DEFAULT_PLAN)
  .split(',')
  .map((spec) => {
    const [count, dims, set, quantization] = spec.split(':');
    if ((set !== 'random' && set !== 'clustered') || (quantization !== 'f32' && quantization !== 'i8')) {
      throw new Error(`case "${spec}" is invalid: expected count:dims:(random|clustered):(f32|i8)`);
    }
    return { count: Number(count), dims: Number(dims), set, quantization };
  });
/** Queries per case at 35k chunks; at 200k, half as many (the exact float32 ground truth is the slow part). */
const QUERIES = Number(option('queries', '200'));

function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function normalize(v: Float32Array): void {
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < v.length; d += 1) v[d] = (v[d] as number) / norm;
}

/** `count` unit vectors, row after row in one array (usearch adds a matrix; VectorIndex takes row views). */
function vectors(set: VectorSet, count: number, dims: number, seed: number, modelSeed: number): Float32Array {
  const out = new Float32Array(count * dims);
  const random = seededRandom(seed);
  if (set === 'random') {
    for (let i = 0; i < out.length; i += 1) out[i] = random() * 2 - 1;
  } else {
    // The "model" (offset, cluster centres, per-dimension spread) is shared by chunks and queries.
    const model = gaussian(seededRandom(modelSeed));
    const offset = Float32Array.from({ length: dims }, () => model());
    const centres = Float32Array.from({ length: CLUSTERS * dims }, () => model() * 1.2);
    const spread = Float32Array.from({ length: dims }, (_, d) => (d + 1) ** -0.5);
    const noise = gaussian(random);
    for (let i = 0; i < count; i += 1) {
      const c = Math.floor(random() * CLUSTERS) * dims;
      for (let d = 0; d < dims; d += 1) {
        out[i * dims + d] = ((offset[d] as number) + (centres[c + d] as number) + noise()) * (spread[d] as number);
      }
    }
  }
  for (let i = 0; i < count; i += 1) normalize(out.subarray(i * dims, (i + 1) * dims));
  return out;
}

const rows = (matrix: Float32Array, dims: number): Float32Array[] =>
  Array.from({ length: matrix.length / dims }, (_, i) => matrix.subarray(i * dims, (i + 1) * dims));

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** p50 and p95 (ms) of `run` over the queries, after one warm-up pass; and the CPU ms per query. */
function time(run: (i: number) => void, queries: number): { p50: number; p95: number; cpu: number } {
  for (let i = 0; i < queries; i += 1) run(i);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < queries; i += 1) {
    const t0 = performance.now();
    run(i);
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpuBefore);
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), cpu: (cpu.user + cpu.system) / 1000 / queries };
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const rssMb = (): number => {
  gc();
  return process.memoryUsage().rss / 2 ** 20;
};

const recall = (truth: number[][], found: number[][]): number => {
  let hits = 0;
  truth.forEach((ids, q) => {
    const set = new Set(found[q]);
    hits += ids.filter((id) => set.has(id)).length;
  });
  return hits / (truth.length * TOP_K);
};

const started = performance.now();
console.log(`usearch HNSW against the exact scan (Node ${process.version}); connectivity ${CONNECTIVITY}, expansion_add ${EXPANSION_ADD}, ` +
  `build on ${BUILD_THREADS} threads, search on 1; cosine metric; top ${TOP_K}; ${QUERIES} queries at 35k chunks, ${QUERIES / 2} at 200k.\n`);

const out: string[][] = [];
for (const { count, dims, set, quantization } of cases) {
  const caseStart = performance.now();
  const queryCount = count > 50_000 ? QUERIES / 2 : QUERIES;
  const data = vectors(set, count, dims, dims * 31 + 7, dims);
  const queryMatrix = vectors(set, queryCount, dims, dims * 31 + 8, dims);
  const queries = rows(queryMatrix, dims);

  // Ground truth and the server's own scan. float32 is built only for the truth and dropped.
  let truth: number[][];
  let bestCos: number;
  {
    const exact = VectorIndex.build(dims, rows(data, dims));
    const results = queries.map((q) => exact.nearest(q, TOP_K));
    truth = results.map((r) => r.ids);
    bestCos = [...results.map((r) => r.scores[0] ?? 0)].sort((a, b) => a - b)[Math.floor(results.length / 2)] ?? 0;
  }
  gc();
  const scanIndex = VectorIndex.build(dims, rows(data, dims), { precision: 'int8' });
  const scan = time((i) => void scanIndex.nearest(queries[i]!, TOP_K), queryCount);
  const scanRecall = recall(truth, queries.map((q) => scanIndex.nearest(q, TOP_K).ids));

  const keys = BigUint64Array.from({ length: count }, (_, i) => BigInt(i));
  const config = {
    dimensions: dims,
    metric: MetricKind.Cos,
    quantization: quantization === 'f32' ? ScalarKind.F32 : ScalarKind.I8,
    connectivity: CONNECTIVITY,
    expansion_add: EXPANSION_ADD,
    multi: false,
  };
  const rssBefore = rssMb();
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  const hnsw = new Index({ ...config, expansion_search: EXPANSION_SEARCH[0]! });
  hnsw.add(keys, data, BUILD_THREADS);
  const buildWall = (performance.now() - t0) / 1000;
  const buildCpuUsage = process.cpuUsage(cpuBefore);
  const buildCpu = (buildCpuUsage.user + buildCpuUsage.system) / 1e6;
  const indexMb = rssMb() - rssBefore;
  const file = join(tmpdir(), `bench-hnsw-${process.pid}.usearch`);
  hnsw.save(file);

  const searches = EXPANSION_SEARCH.map((expansion) => {
    let index = hnsw;
    if (expansion !== EXPANSION_SEARCH[0]) {
      index = new Index({ ...config, expansion_search: expansion });
      index.load(file);
    }
    const timing = time((i) => void index.search(queries[i]!, TOP_K, 1), queryCount);
    const found = queries.map((q) => Array.from(index.search(q, TOP_K, 1).keys, Number));
    return { expansion, ...timing, recall: recall(truth, found) };
  });
  rmSync(file, { force: true });

  for (const s of searches) {
    out.push([
      String(count),
      String(dims),
      set,
      quantization,
      bestCos.toFixed(2),
      buildWall.toFixed(1),
      buildCpu.toFixed(1),
      indexMb.toFixed(0),
      String(s.expansion),
      s.p50.toFixed(3),
      s.p95.toFixed(3),
      s.cpu.toFixed(3),
      s.recall.toFixed(3),
      scan.p50.toFixed(3),
      scanRecall.toFixed(3),
      `${(scan.p50 / s.p50).toFixed(1)}×`,
    ]);
  }
  console.error(`${count}×${dims} ${set} ${quantization}: ${((performance.now() - caseStart) / 1000).toFixed(0)} s`);
}

console.log(
  table(
    ['chunks', 'dims', 'vectors', 'HNSW', 'best-hit cos p50', 'build s', 'build CPU s', 'index RSS MB', 'ef search', 'HNSW p50', 'HNSW p95', 'HNSW CPU', 'HNSW recall@10', 'int8 scan p50', 'scan recall@10', 'scan ÷ HNSW p50'],
    out,
  ),
);
console.log(`\nms unless marked; total ${((performance.now() - started) / 60000).toFixed(1)} min.`);
