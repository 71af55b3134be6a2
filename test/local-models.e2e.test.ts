// Local embedding and rerank models in the server's own process, end to end: a real listening server
// assembled as main.ts assembles it, the SDK client over HTTP, and the generated tiny models
// (scripts/tiny-models/) in MODELS_DIR with downloads off, loaded through @huggingface/transformers and
// ONNX Runtime as a real model is. The embedding model gives synonyms one vector ("vehicle" ~
// "automobile" ~ "car", "doctor" ~ "physician", "sea" ~ "ocean"); its token limit is 32, so a long
// passage is embedded in windows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer } from './metrics-server.js';
import { eventually } from './support/eventually.js';
import { LOCAL_FILES, TINY_EMBED_ID, TINY_RERANK_ID, tinyModelsDir } from './support/tiny-models.js';
import { callTool, type SearchResult } from './support/tool-call.js';

describe('local embedding and rerank models in MODELS_DIR, with downloads off', () => {
  let server: OpsServer;
  beforeAll(async () => {
    const { modelsDir } = tinyModelsDir();
    server = await startOpsServer({
      files: LOCAL_FILES,
      env: { EMBEDDINGS_PROVIDER: 'local', EMBEDDINGS_MODEL: TINY_EMBED_ID, RERANK_PROVIDER: 'local', RERANK_MODEL: TINY_RERANK_ID, MODELS_DIR: modelsDir, MODELS_DOWNLOAD: 'false', MODEL_THREADS: '1' },
    });
    await eventually(() => server.semantic.state.state !== 'starting', { what: 'chunk vectors', timeoutMs: 60_000 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('embeds every chunk in the model\'s thread, and logs and shows in /readyz the model id and its dimension', async () => {
    expect(server.semantic.state).toEqual({ state: 'ready', model: TINY_EMBED_ID, dimensions: 12, chunks: 5 });
    const loaded = server.lines().find((l) => l.msg === 'local embedding model loaded');
    expect(loaded).toMatchObject({ model: TINY_EMBED_ID, max_tokens: 32, pooling: 'mean', pooling_from: '1_Pooling/config.json', declares_normalize: true, query_prefix: 'query: ', threads: 1 });
    expect(server.lines().find((l) => l.msg === 'chunk vectors ready; semantic and hybrid search on')).toMatchObject({ model: TINY_EMBED_ID, dimensions: 12, embedded: 5 });
    const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { status: string; semantic: unknown };
    expect(ready).toMatchObject({ status: 'ready', semantic: { state: 'ready', model: TINY_EMBED_ID, dimensions: 12 } });
  });

  it('finds by meaning a passage that holds only a synonym of the query, which keyword search misses', async () => {
    expect(((await callTool(server, 'search_documents', { query: 'vehicle', mode: 'keyword' })).structured as SearchResult).results).toEqual([]);
    const semantic = (await callTool(server, 'search_documents', { query: 'vehicle', mode: 'semantic', top_k: 2 })).structured as SearchResult;
    expect(semantic.mode).toBe('semantic');
    expect(semantic.note).toBeUndefined();
    expect(semantic.results.map((r) => r.chunk_id).sort()).toEqual(['fleet.md#0', 'parking.md#0']);
  });

  it('searches hybrid by default', async () => {
    const hybrid = (await callTool(server, 'search_documents', { query: 'doctor' })).structured as SearchResult;
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.results[0]).toMatchObject({ chunk_id: 'clinic.md#0', found_by: ['semantic'] });
  });

  it('embeds a passage longer than the model\'s token limit whole, in windows: a word past the first window is found', async () => {
    const semantic = (await callTool(server, 'search_documents', { query: 'sea', mode: 'semantic', top_k: 1 })).structured as SearchResult;
    expect(semantic.results.map((r) => r.chunk_id)).toEqual(['harbour.md#0']);
  });

  it('rerank_results orders the given chunks by the local cross-encoder', async () => {
    const answer = (await callTool(server, 'rerank_results', { query: 'doctor', chunk_ids: ['parking.md#0', 'weather.md#0', 'clinic.md#0'] })).structured as {
      method: string;
      results: Array<{ chunk_id: string; score: number }>;
      note?: string;
    };
    expect(answer.note).toBeUndefined();
    expect(answer.method).toBe('rerank_model');
    expect(answer.results[0]!.chunk_id).toBe('clinic.md#0');
    expect(answer.results[0]!.score).toBeGreaterThan(0);
    expect(answer.results.slice(1).map((r) => r.score)).toEqual([0, 0]);
  });

  it('exports the state in /metrics', async () => {
    const samples = await server.scrape();
    expect(samples.find((s) => s.name === 'corpus_mcp_semantic_state' && s.labels.state === 'ready')?.value).toBe(1);
    expect(samples.find((s) => s.name === 'corpus_mcp_semantic_chunks_to_embed')?.value).toBe(0);
  });
});
