// `npm run bench:local`: the local embedding model's costs, for whatever model is in MODELS_DIR
// (`--model owner/name`), by default a generated one of all-MiniLM-L6-v2's shape with random weights
// (scripts/tiny-models/: no real weights can be downloaded where this runs), on SciFact passages:
//   1. passages per second of the corpus embedding through our pipeline (the model's thread:
//      tokenising, windows, ONNX Runtime, pooling), and the bare ONNX Runtime session on the very same
//      input rows in the same run: the pipeline's time over the session's;
//   2. query-embedding latency (p50, p95) through the pipeline;
//   3. RSS added by the runtime and the model (in this process: the thread shares it), and by the
//      vectors of SciFact ×4's chunks as the semantic service keeps them (int8 scan + float32 rows);
//   4. the real server (dist/): keyword search_documents p50 while it embeds SciFact, over the p50 of
//      a keyword-only server on the same corpus.
//
//   [MODELS_DIR=dir] npm run bench:local [-- --model owner/name] [--passages 512] [--threads 1] [--searches 200]
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadCorpus } from '../src/corpus/load-corpus.js';
import { createLocalEmbeddings } from '../src/local-models/local-embeddings.js';
import { readModelFolder } from '../src/local-models/model-folder.js';
import { paddedInputs, specialTokens, tokenWindows } from '../src/local-models/token-windows.js';
import { SearchIndex } from '../src/search/search-index.js';
import { VectorIndex } from '../src/search/vector-index.js';
import { settledMemoryUsage } from './lib/memory.js';
import { readClaims, readScifactDocs, table, writeCorpusFolder } from './lib/scifact.js';
import { connect, freePort, mib, rssOf, stopServer } from './lib/server-process.js';
import { seededRandom } from './lib/stats.js';
import { BENCH_MODEL_ID, writeBenchModel } from './tiny-models/tiny-models.js';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string, fallback: string): string => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 && argv[at + 1] !== undefined ? (argv[at + 1] as string) : fallback;
};
const id = option('model', BENCH_MODEL_ID);
const passageCount = Number(option('passages', '512'));
const threads = Number(option('threads', '1'));
const searches = Number(option('searches', '200'));
const BATCH = 16;
const percentile = (values: readonly number[], p: number): number => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? NaN;

const docs = readScifactDocs();
const claims = readClaims();
const corpusDir = writeCorpusFolder(docs, 1);
const modelsDir = process.env.MODELS_DIR ?? mkdtempSync(join(tmpdir(), 'corpus-mcp-bench-models-'));
if (id === BENCH_MODEL_ID && !existsSync(join(modelsDir, id, 'onnx/model.onnx'))) {
  const words = [...new Set(docs.slice(0, 3000).flatMap((d) => `${d.title} ${d.text}`.toLowerCase().match(/[a-z]+/g) ?? []))];
  writeBenchModel(modelsDir, words);
  console.log(`generated ${id} (random weights, all-MiniLM-L6-v2's shape) in ${modelsDir}`);
}
const corpus = await loadCorpus(corpusDir);
const index = SearchIndex.build(corpus.documents);
const passages = Array.from({ length: Math.min(passageCount, index.stats.chunks) }, (_, i) => index.passage(i));
console.log(`${passages.length} SciFact passages of ${index.stats.chunks} chunks; model ${id}; ${threads} ONNX Runtime thread(s); batches of ${BATCH}`);

// ---- 1-3: in this process ----
const rssBase = (await settledMemoryUsage(2)).rss;
const embedder = createLocalEmbeddings({ modelsDir, id, threads, allowDownloads: false, hubUrl: '', batchSize: BATCH });
const info = await embedder.thread.ready;
await embedder.embed(passages.slice(0, BATCH));
const rssModel = (await settledMemoryUsage(2)).rss - rssBase;

// The bare session, on the rows the pipeline builds: same tokenizer, same windows, same batches.
const ort = (await import('onnxruntime-node' as string)) as {
  InferenceSession: { create(path: string, options: object): Promise<{ run(feeds: object): Promise<unknown> }> };
  Tensor: new (type: 'int64', data: BigInt64Array, dims: readonly number[]) => unknown;
};
const transformers = (await import('@huggingface/transformers' as string)) as {
  env: { allowRemoteModels: boolean; localModelPath: string };
  AutoTokenizer: { from_pretrained(id: string, options: object): Promise<{ encode(text: string, options?: { add_special_tokens?: boolean }): number[]; pad_token_id?: number | null }> };
};
transformers.env.allowRemoteModels = false;
transformers.env.localModelPath = modelsDir;
const folder = readModelFolder(modelsDir, id, 'embed');
const tokenizer = await transformers.AutoTokenizer.from_pretrained(id, { local_files_only: true });
const rules = { tokenizer, ...specialTokens(tokenizer), maxTokens: folder.maxTokens };
const session = await ort.InferenceSession.create(join(folder.dir, folder.modelFile), { intraOpNumThreads: threads, interOpNumThreads: 1, executionProviders: ['cpu'] });
const feeds = [];
for (let first = 0; first < passages.length; first += BATCH) {
  const rows = paddedInputs(tokenWindows(rules, passages.slice(first, first + BATCH), folder.passagePrefix).ids, tokenizer.pad_token_id ?? 0);
  const tensor = (data: BigInt64Array) => new ort.Tensor('int64', data, rows.dims);
  feeds.push({ input_ids: tensor(rows.inputIds), attention_mask: tensor(rows.attentionMask), token_type_ids: tensor(rows.tokenTypeIds) });
}
await session.run(feeds[0]!);

const pipelineRuns: number[] = [];
const sessionRuns: number[] = [];
for (let round = 0; round < 2; round += 1) {
  let started = performance.now();
  await embedder.embed(passages);
  pipelineRuns.push((performance.now() - started) / 1000);
  started = performance.now();
  for (const feed of feeds) await session.run(feed);
  sessionRuns.push((performance.now() - started) / 1000);
}
const pipelineS = Math.min(...pipelineRuns);
const sessionS = Math.min(...sessionRuns);

const queryMs: number[] = [];
for (const claim of claims.slice(0, 50)) {
  const started = performance.now();
  await embedder.embed([claim.text], { purpose: 'query' });
  queryMs.push(performance.now() - started);
}
await embedder.close();

// Vectors as the service keeps them for SciFact ×4: the int8 scan index, whose float32 rows the cache views.
const dimensions = embedder.dimensions ?? 384;
const chunks4 = index.stats.chunks * 4;
const rssBeforeVectors = (await settledMemoryUsage(2)).rss;
const random = seededRandom(3);
const block = new Float32Array(chunks4 * dimensions).map(() => random() - 0.5);
const vectors = VectorIndex.build(
  dimensions,
  Array.from({ length: chunks4 }, (_, i) => block.subarray(i * dimensions, (i + 1) * dimensions)),
  { precision: 'int8' },
);
const rssVectors = (await settledMemoryUsage(2)).rss - rssBeforeVectors;
vectors.close();

console.log(`\nmodel: ${id}, ${dimensions} dimensions, max ${info.maxTokens} tokens, ${info.pooling} pooling (${info.poolingFrom})\n`);
console.log(
  table(
    ['measure', 'value'],
    [
      ['corpus embedding, our pipeline (best of 2)', `${(passages.length / pipelineS).toFixed(1)} passages/s (${pipelineS.toFixed(2)} s)`],
      ['the same rows, bare ONNX Runtime session (best of 2)', `${(passages.length / sessionS).toFixed(1)} passages/s (${sessionS.toFixed(2)} s)`],
      ['pipeline time / session time', `${(pipelineS / sessionS).toFixed(3)}x (at most 1.15x)`],
      ['query embedding p50 / p95 (50 SciFact claims)', `${percentile(queryMs, 50).toFixed(1)} / ${percentile(queryMs, 95).toFixed(1)} ms`],
      ['RSS added by the runtime and the model', `${mib(rssModel)} MiB`],
      [`RSS added by the vectors of SciFact x4 (${chunks4} chunks x ${dimensions})`, `${mib(rssVectors)} MiB`],
    ],
  ),
);

// ---- 4: the real server ----
execFileSync(process.execPath, [join(root, 'scripts/build-if-stale.mjs')], { stdio: 'inherit' });

async function keywordP50(env: Record<string, string>, whileEmbedding: boolean): Promise<{ p50: number; progress: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', CORPUS_DIR: corpusDir, PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const readyz = async () => (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { status: string; semantic?: { state: string; progress?: { embedded: number; total: number } } };
  const wanted = async () => {
    try {
      const r = await readyz();
      return whileEmbedding ? (r.semantic?.progress?.embedded ?? 0) > 0 : r.status === 'ready';
    } catch {
      return false;
    }
  };
  while (!(await wanted())) await new Promise((r) => setTimeout(r, 100));
  const client = await connect(port, 'bench-local');
  const times: number[] = [];
  for (let i = 0; i < searches; i += 1) {
    const started = performance.now();
    const result = (await client.callTool({ name: 'search_documents', arguments: { query: claims[i % claims.length]!.text, mode: 'keyword', top_k: 10 } })) as CallToolResult;
    times.push(performance.now() - started);
    if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
  }
  const after = await readyz();
  const rss = rssOf(child.pid!);
  await client.close();
  await stopServer(child);
  const p = after.semantic?.progress;
  return { p50: percentile(times, 50), progress: p === undefined ? `${after.semantic?.state ?? 'off'}, RSS ${mib(rss)} MiB` : `${p.embedded} of ${p.total} chunks embedded at the end, RSS ${mib(rss)} MiB` };
}

const idle = await keywordP50({}, false);
const busy = await keywordP50({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: id, MODELS_DIR: modelsDir, MODELS_DOWNLOAD: 'false', MODEL_THREADS: String(threads) }, true);
console.log(`\nkeyword search_documents, ${searches} SciFact claims one after another, real server (dist/), SciFact x1 (${index.stats.chunks} chunks)\n`);
console.log(
  table(
    ['server', 'p50', 'state'],
    [
      ['keyword-only (idle)', `${idle.p50.toFixed(2)} ms`, idle.progress],
      [`embedding the corpus (MODEL_THREADS=${threads})`, `${busy.p50.toFixed(2)} ms`, busy.progress],
      ['during / idle', `${(busy.p50 / idle.p50).toFixed(2)}x (at most 2x)`, ''],
    ],
  ),
);
process.exit(0);
