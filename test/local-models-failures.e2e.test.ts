// What a local model's failures do to a real listening server (SDK client over HTTP): a model missing
// with downloads off or with its hub out of reach, a damaged model file, a runtime that does not load.
// Each leaves keyword search serving, with a note naming the model and what went wrong, and the
// process alive. And downloads: a model missing from MODELS_DIR is fetched from the hub on first use;
// one present is never asked of the hub.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer } from './metrics-server.js';
import { eventually } from './support/eventually.js';
import { startHub } from './support/fake-hub.js';
import { BENCH_MODEL_ID, writeBenchModel } from '../scripts/tiny-models/tiny-models.js';
import { writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import { LOCAL_FILES, TINY_EMBED_ID, TINY_RERANK_ID, tinyModelsAndLocalCorpus, tinyModelsDir } from './support/tiny-models.js';
import { callTool, type SearchResult } from './support/tool-call.js';

const NO_NETWORK = new URL('./support/no-network.mjs', import.meta.url).pathname;
const LOCAL = { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: TINY_EMBED_ID, RERANK_PROVIDER: 'local', RERANK_MODEL: TINY_RERANK_ID, MODEL_THREADS: '1' };

async function startLocal(env: Record<string, string>, localRuntime?: string): Promise<OpsServer> {
  const server = await startOpsServer({ files: LOCAL_FILES, env: { ...LOCAL, ...env }, semanticTuning: { retryDelayMs: 60_000, ...(localRuntime ? { localRuntime } : {}) } });
  await eventually(() => server.semantic.state.state !== 'starting', { what: 'the chunk embedding to end', timeoutMs: 60_000 });
  return server;
}

/** Keyword answers for a semantic search and a rerank, each with a note that matches `why`; and a server still answering. */
async function expectKeywordsWithNote(server: OpsServer, why: RegExp): Promise<void> {
  const search = (await callTool(server, 'search_documents', { query: 'car', mode: 'semantic' })).structured as SearchResult;
  expect(search.mode).toBe('keyword');
  expect(search.results.map((r) => r.chunk_id)).toEqual(['parking.md#0']);
  expect(search.note).toMatch(why);
  const ready = await fetch(`${server.url}/readyz`);
  expect(ready.status).toBe(200);
  expect(((await ready.json()) as { status: string; reason: string })).toMatchObject({ status: 'degraded', reason: expect.stringMatching(why) });
}

describe('local models that cannot serve', () => {
  let server: OpsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('missing with downloads off: keywords, and a note naming the model and that downloads are off', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'corpus-mcp-models-'));
    server = await startLocal({ MODELS_DIR: empty, MODELS_DOWNLOAD: 'false' });
    await expectKeywordsWithNote(server, /model corpus-mcp\/tiny-embed is not in MODELS_DIR .*onnx\/model\.onnx missing\) and downloads are off \(MODELS_DOWNLOAD=false\)/);
    const rerank = (await callTool(server, 'rerank_results', { query: 'car badge', chunk_ids: ['fleet.md#0', 'parking.md#0'] })).structured as { method: string; note: string };
    expect(rerank.method).toBe('keyword');
    expect(rerank.note).toMatch(/model corpus-mcp\/tiny-rerank is not in MODELS_DIR/);
    expect(server.lines().some((l) => l.msg === 'embedding the chunks failed; serving keyword search only' && l.code === 'model_missing')).toBe(true);
  });

  it('missing with the hub out of reach (no network): keywords, and a note naming the model and the hub', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'corpus-mcp-models-'));
    const hub = await startHub(undefined);
    await hub.close(); // a port nothing listens on
    server = await startLocal({ MODELS_DIR: empty, MODELS_URL: hub.url });
    await expectKeywordsWithNote(server, /downloading model corpus-mcp\/tiny-embed failed: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  });

  it('a damaged model file: keywords, and a note naming the model and that it does not load', async () => {
    const { modelsDir, embed } = tinyModelsDir();
    writeFileSync(join(embed, 'onnx/model.onnx'), Buffer.from('not an ONNX graph'));
    server = await startLocal({ MODELS_DIR: modelsDir, MODELS_DOWNLOAD: 'false' });
    await expectKeywordsWithNote(server, /model corpus-mcp\/tiny-embed does not load \(.+\); fetch it again/);
    // The rerank model is whole, and serves.
    expect(((await callTool(server, 'rerank_results', { query: 'doctor', chunk_ids: ['parking.md#0', 'clinic.md#0'] })).structured as { method: string }).method).toBe('rerank_model');
  });

  it('a runtime that does not load: keywords, and a note naming the model and how to install the runtime', async () => {
    const { modelsDir } = tinyModelsDir();
    server = await startLocal({ MODELS_DIR: modelsDir, MODELS_DOWNLOAD: 'false' }, 'corpus-mcp-no-such-runtime');
    await expectKeywordsWithNote(server, /the model runtime does not load \(.*corpus-mcp-no-such-runtime.*\); install it with npm ci \(not --omit=optional\)/);
    const rerank = (await callTool(server, 'rerank_results', { query: 'car badge', chunk_ids: ['fleet.md#0', 'parking.md#0'] })).structured as { note: string };
    expect(rerank.note).toMatch(/the model runtime does not load/);
  });
});

describe('MODELS_DIR and the hub', () => {
  let hub: Awaited<ReturnType<typeof startHub>>;
  let server: OpsServer | undefined;
  const source = tinyModelsDir();
  beforeAll(async () => {
    hub = await startHub(source.modelsDir);
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  afterAll(async () => {
    await hub.close();
  });

  it('serves a model found in MODELS_DIR without asking the hub anything', async () => {
    const before = hub.requests.length;
    server = await startLocal({ MODELS_DIR: source.modelsDir, MODELS_URL: hub.url });
    expect(server.semantic.state.state).toBe('ready');
    expect(((await callTool(server, 'search_documents', { query: 'vehicle', mode: 'semantic', top_k: 1 })).structured as SearchResult).mode).toBe('semantic');
    expect(hub.requests.slice(before)).toEqual([]);
  });

  it('downloads a model missing from MODELS_DIR on first use, in the repository\'s layout, then serves it', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'corpus-mcp-models-'));
    server = await startLocal({ MODELS_DIR: empty, MODELS_URL: hub.url });
    expect(server.semantic.state).toMatchObject({ state: 'ready', model: TINY_EMBED_ID });
    expect(hub.requests).toEqual(expect.arrayContaining([`/${TINY_EMBED_ID}/resolve/main/onnx/model.onnx`, `/${TINY_EMBED_ID}/resolve/main/1_Pooling/config.json`]));
    const fetched = readFileSync(join(empty, TINY_EMBED_ID, 'onnx/model.onnx'));
    expect(fetched.equals(readFileSync(join(source.embed, 'onnx/model.onnx')))).toBe(true);
    expect(relative(empty, join(empty, TINY_EMBED_ID, '1_Pooling/config.json'))).toBe(`${TINY_EMBED_ID}/1_Pooling/config.json`);
    expect(((await callTool(server, 'search_documents', { query: 'vehicle', mode: 'semantic', top_k: 2 })).structured as SearchResult).results).toHaveLength(2);
    expect(server.lines().some((l) => l.msg === `downloading model ${TINY_EMBED_ID} into MODELS_DIR`)).toBe(true);
  });
});

describe('a whole run with no network', () => {
  afterAll(async () => {
    await cleanUpSpawnedServers();
  });

  it('serves semantic and hybrid search and rerank_results from MODELS_DIR alone, the real process connecting to nothing beyond loopback', async () => {
    const { modelsDir, corpusDir } = await tinyModelsAndLocalCorpus('corpus-mcp-offline-');
    // Downloads stay on (the default) and MODELS_URL is the real hub: a model found in MODELS_DIR is never asked of it.
    const server = await spawnServer({ ...LOCAL, MODELS_DIR: modelsDir }, { corpusDir, nodeArgs: ['--import', NO_NETWORK] });
    await eventually(() => server.lines.some((l) => l.msg === 'chunk vectors ready; semantic and hybrid search on'), { what: 'chunk vectors', timeoutMs: 60_000 });
    const client = new Client({ name: 'offline-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`)));
    try {
      const semantic = (await client.callTool({ name: 'search_documents', arguments: { query: 'vehicle', mode: 'semantic', top_k: 2 } })).structuredContent as SearchResult;
      expect(semantic.results.map((r) => r.chunk_id).sort()).toEqual(['fleet.md#0', 'parking.md#0']);
      const hybrid = (await client.callTool({ name: 'search_documents', arguments: { query: 'doctor' } })).structuredContent as SearchResult;
      expect(hybrid.mode).toBe('hybrid');
      expect(hybrid.results[0]?.chunk_id).toBe('clinic.md#0');
      const reranked = (await client.callTool({ name: 'rerank_results', arguments: { query: 'doctor', chunk_ids: ['parking.md#0', 'clinic.md#0'] } })).structuredContent as { method: string; results: Array<{ chunk_id: string }> };
      expect(reranked).toMatchObject({ method: 'rerank_model', results: [{ chunk_id: 'clinic.md#0' }, { chunk_id: 'parking.md#0' }] });
    } finally {
      await client.close();
    }
    expect(server.lines.find((l) => l.msg === 'local embedding model loaded')).toMatchObject({ model: TINY_EMBED_ID });
    expect(server.lines.filter((l) => l.msg === 'no-network: connection refused')).toEqual([]);
  }, 120_000);
});

describe('SIGTERM while a local model embeds the corpus', () => {
  afterAll(async () => {
    await cleanUpSpawnedServers();
  });

  it('waits for the batch ONNX Runtime is running, then exits 0 (a thread stopped under it would abort the process)', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'corpus-mcp-models-'));
    writeBenchModel(modelsDir, ['alpha', 'beta']);
    const corpusDir = mkdtempSync(join(tmpdir(), 'corpus-mcp-sigterm-'));
    // Enough chunks for the embedding to last many batches of a model of MiniLM's size.
    const words = Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? 'alpha' : 'beta')).join(' ');
    await writeCorpusFiles(corpusDir, Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`d${i}.md`, `# D${i}\n\n${words}\n`])));
    const server = await spawnServer({ EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: BENCH_MODEL_ID, MODELS_DIR: modelsDir, MODELS_DOWNLOAD: 'false', MODEL_THREADS: '1' }, { corpusDir });
    await eventually(
      async () => (((await (await fetch(`${server.base}/readyz`)).json()) as { semantic?: { progress?: { embedded: number } } }).semantic?.progress?.embedded ?? 0) > 0,
      { what: 'the embedding under way', timeoutMs: 60_000 },
    );
    server.child.kill('SIGTERM');
    expect(await server.exit).toEqual({ code: 0, signal: null });
  }, 120_000);
});

describe('a restart with a local model and INDEX_FILE', () => {
  afterAll(async () => {
    await cleanUpSpawnedServers();
  });

  it('reuses the chunk vectors cached beside the snapshot, embedding none again', async () => {
    const { modelsDir, corpusDir } = await tinyModelsAndLocalCorpus('corpus-mcp-restart-');
    const env = { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: TINY_EMBED_ID, MODELS_DIR: modelsDir, MODELS_DOWNLOAD: 'false', INDEX_FILE: join(corpusDir, '..', `${corpusDir.split('/').pop()}.snapshot`) };
    const ready = (server: Awaited<ReturnType<typeof spawnServer>>) => server.lines.find((l) => l.msg === 'chunk vectors ready; semantic and hybrid search on');
    const first = await spawnServer(env, { corpusDir });
    await eventually(() => ready(first) !== undefined && first.lines.some((l) => l.msg === 'chunk vector cache saved'), { what: 'the vectors saved', timeoutMs: 60_000 });
    expect(ready(first)).toMatchObject({ embedded: 5, reused: 0 });
    first.child.kill('SIGTERM');
    expect(await first.exit).toMatchObject({ code: 0 });
    const second = await spawnServer(env, { corpusDir });
    await eventually(() => ready(second) !== undefined, { what: 'chunk vectors', timeoutMs: 60_000 });
    expect(ready(second)).toMatchObject({ model: TINY_EMBED_ID, embedded: 0, reused: 5 });
  }, 120_000);
});
