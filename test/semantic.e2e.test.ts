// Semantic and hybrid search, rerank_results and the degraded modes, end to end: a real listening
// server assembled as main.ts assembles it, the SDK client over HTTP, and local embeddings and rerank
// servers started by the test (test/support/fake-providers.ts). Their vectors and scores encode a small
// synonym table ("car" ~ "automobile", "doctor" ~ "physician"), so which passage a semantic search must
// find is known by hand. They test the integration, not the quality of any embedding or rerank model.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProviders, type FakeProviders } from './support/fake-providers.js';
import { startOpsServer, type OpsServer } from './metrics-server.js';
import { eventually } from './support/eventually.js';
import { callTool, type SearchResult } from './support/tool-call.js';

const EMBEDDINGS_KEY = 'sk-embed-e2e-1f2e3d4c5b6a79881726354453627180';
const RERANK_KEY = 'rk-rerank-e2e-0a9b8c7d6e5f40312233445566778899';

const FILES = {
  'fleet.md': '# Fleet care\n\nEvery automobile in the fleet gets new tyres before winter.\n',
  'parking.md': '# Parking\n\nThe car park opens at seven; bring your badge.\n',
  'weather.md': '# Weather\n\nHeavy rainfall is expected on Tuesday, so the market moves indoors.\n',
  'clinic.md': '# Clinic\n\nThe physician on duty answers pages within ten minutes.\n',
};

const TUNING = { queryTimeoutMs: 2000, retryDelayMs: 100, maxRetryDelayMs: 200, embedTimeoutMs: 2000, embedMaxRetries: 1, backoffMs: 5 };

const metricValue = async (server: OpsServer, name: string, labels: Record<string, string>): Promise<number | undefined> =>
  (await server.scrape()).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

/** A server on FILES whose embeddings and rerank endpoints are a fake of their own, once its chunks are embedded. */
async function startWithProviders(env: Record<string, string>, semanticTuning: typeof TUNING): Promise<{ fake: FakeProviders; server: OpsServer }> {
  const fake = await startFakeProviders();
  const server = await startOpsServer({
    files: FILES,
    env: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed', EMBEDDINGS_API_KEY: EMBEDDINGS_KEY, RERANK_URL: fake.url, RERANK_API_KEY: RERANK_KEY, ...env },
    semanticTuning,
  });
  await eventually(() => server.semantic.state.state === 'ready', { what: 'chunk vectors' });
  return { fake, server };
}

describe('semantic search over a real server with local embeddings and rerank endpoints', () => {
  let fake: FakeProviders;
  let server: OpsServer;
  beforeAll(async () => {
    ({ fake, server } = await startWithProviders({ RERANK_MODEL: 'fake-rerank' }, TUNING));
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });
  afterEach(() => {
    fake.down = false;
  });

  it('embeds every chunk once at boot, with the key, and logs the model and its dimension', () => {
    expect(fake.embeddedTexts()).toHaveLength(server.index.stats.chunks);
    expect(fake.requests.filter((r) => r.path === '/v1/embeddings').every((r) => r.authorization === `Bearer ${EMBEDDINGS_KEY}`)).toBe(true);
    const ready = server.lines().find((l) => l.msg === 'chunk vectors ready; semantic and hybrid search on');
    expect(ready).toMatchObject({ model: 'fake-embed', dimensions: 64, chunks: 4, embedded: 4, reused: 0 });
  });

  it('lists search_documents with mode defaulting to hybrid, and rerank_results', async () => {
    const { client } = await server.connect();
    const { tools } = await client.listTools();
    await client.close();
    const search = tools.find((t) => t.name === 'search_documents')!;
    const mode = (search.inputSchema.properties as Record<string, { default?: string; enum?: string[]; description?: string }>).mode!;
    expect(mode.default).toBe('hybrid');
    expect(mode.enum).toEqual(['hybrid', 'keyword', 'semantic']);
    expect(search.description).toMatch(/meaning \(embeddings\)/);
    expect(mode.description).toMatch(/"keyword": words \(stemmed\), for exact names/);
    expect(tools.map((t) => t.name)).toContain('rerank_results');
  });

  it('semantic mode finds a paraphrase that keyword mode misses ("vehicle" for "automobile" and "car")', async () => {
    const keyword = (await callTool(server, 'search_documents', { query: 'vehicle', mode: 'keyword' })).structured as SearchResult;
    expect(keyword.results).toEqual([]);
    const semantic = (await callTool(server, 'search_documents', { query: 'vehicle', mode: 'semantic', top_k: 2 })).structured as SearchResult;
    expect(semantic.mode).toBe('semantic');
    expect(semantic.results.map((r) => r.chunk_id).sort()).toEqual(['fleet.md#0', 'parking.md#0']);
    expect(semantic.results.every((r) => r.found_by.join() === 'semantic')).toBe(true);
  });

  it('hybrid mode (the default) ranks the paraphrase beside the keyword match, first the passage both rankings found', async () => {
    const keyword = (await callTool(server, 'search_documents', { query: 'car', mode: 'keyword' })).structured as SearchResult;
    expect(keyword.results.map((r) => r.chunk_id)).toEqual(['parking.md#0']);
    const hybrid = (await callTool(server, 'search_documents', { query: 'car', top_k: 3 })).structured as SearchResult;
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.note).toBeUndefined();
    expect(hybrid.results.slice(0, 2).map((r) => [r.chunk_id, r.found_by])).toEqual([
      ['parking.md#0', ['keyword', 'semantic']],
      ['fleet.md#0', ['semantic']],
    ]);
  });

  it('rerank_results orders exactly the given chunks by the rerank endpoint, sending its key', async () => {
    const before = fake.requests.length;
    const ids = ['weather.md#0', 'parking.md#0', 'fleet.md#0', 'clinic.md#0'];
    const answer = (await callTool(server, 'rerank_results', { query: 'automobile tyres', chunk_ids: ids })).structured as {
      method: string;
      results: Array<{ chunk_id: string; score: number }>;
    };
    expect(answer.method).toBe('rerank_model');
    // fake scores: fleet holds both concepts (1), parking one (0.5), the others none, kept in input order.
    expect(answer.results.map((r) => [r.chunk_id, r.score])).toEqual([
      ['fleet.md#0', 1],
      ['parking.md#0', 0.5],
      ['weather.md#0', 0],
      ['clinic.md#0', 0],
    ]);
    const sent = fake.requests.slice(before).find((r) => r.path === '/v1/rerank')!;
    expect(sent.authorization).toBe(`Bearer ${RERANK_KEY}`);
    expect(sent.body.documents).toHaveLength(4);
  });

  it('rerank_results names every unknown chunk id in one error', async () => {
    const answer = await callTool(server, 'rerank_results', { query: 'car', chunk_ids: ['fleet.md#0', 'fleet.md#7', 'nowhere.md#0', 'bad-id'] });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/3 chunk ids the index does not hold/);
    expect(answer.text).toContain('"fleet.md#7"');
    expect(answer.text).toContain('"nowhere.md#0"');
    expect(answer.text).toContain('"bad-id"');
  });

  it('answers by keywords with a note when the endpoints fail at query time, and counts the fallback', async () => {
    fake.down = true;
    const before = (await metricValue(server, 'corpus_mcp_semantic_fallbacks_total', { tool: 'search_documents' })) ?? 0;
    const answer = await callTool(server, 'search_documents', { query: 'car' });
    expect(answer.isError).toBeFalsy();
    const result = answer.structured as SearchResult;
    expect(result.mode).toBe('keyword');
    expect(result.results.map((r) => r.chunk_id)).toEqual(['parking.md#0']);
    expect(result.note).toMatch(/^These are keyword results: the embeddings endpoint failed for this query \(POST .*answered 503/);
    expect(await metricValue(server, 'corpus_mcp_semantic_fallbacks_total', { tool: 'search_documents' })).toBe(before + 1);

    const reranked = await callTool(server, 'rerank_results', { query: 'car badge', chunk_ids: ['fleet.md#0', 'parking.md#0'] });
    expect(reranked.isError).toBeFalsy();
    expect(reranked.structured).toMatchObject({ method: 'keyword', results: [{ chunk_id: 'parking.md#0' }, { chunk_id: 'fleet.md#0' }] });
    expect((reranked.structured as { note: string }).note).toMatch(/rerank endpoint failed/);
  });

  it('waits out a 429 whose Retry-After fits the query budget and answers hybrid', async () => {
    const before = fake.requests.length;
    fake.failNext(1, 429, '1');
    const hybrid = (await callTool(server, 'search_documents', { query: 'car', top_k: 2 })).structured as SearchResult;
    expect(hybrid).toMatchObject({ mode: 'hybrid', results: [{ chunk_id: 'parking.md#0' }, { chunk_id: 'fleet.md#0' }] });
    expect(hybrid.note).toBeUndefined();
    expect(fake.requests.slice(before).map((r) => r.status)).toEqual([429, 200]);
  });

  it('answers by keywords at once, without waiting, when a 429\'s Retry-After is longer than the query budget', async () => {
    const before = fake.requests.length;
    const retries = (): number => server.lines().filter((l) => l.msg === 'embeddings request failed; retrying').length;
    const retriesBefore = retries();
    fake.failNext(1, 429, '3600');
    const answer = (await callTool(server, 'search_documents', { query: 'car' })).structured as SearchResult;
    expect(answer.mode).toBe('keyword');
    expect(answer.note).toMatch(/answered 429 on 1 attempt\(s\); not retried: waiting \d+ ms would leave nothing of the \d+ ms left of its 2000 ms budget/);
    expect(fake.requests.slice(before).map((r) => r.status)).toEqual([429]);
    expect(retries()).toBe(retriesBefore);
  });

  it('answers by keywords, never with an error, when the endpoint starts answering with another vector size, then embeds the chunks again', async () => {
    fake.nativeDimensions = 32;
    const answer = await callTool(server, 'search_documents', { query: 'vehicle', mode: 'semantic' });
    expect(answer.isError).toBeFalsy();
    expect(answer.structured).toMatchObject({ mode: 'keyword', note: expect.stringMatching(/vectors of 32 numbers where the chunk vectors have 64/) });
    const reranked = await callTool(server, 'rerank_results', { query: 'vehicle', chunk_ids: ['fleet.md#0', 'weather.md#0'] });
    expect(reranked.isError).toBeFalsy();
    await eventually(() => server.semantic.state.state === 'ready' && server.semantic.state.dimensions === 32, { what: 'the chunks embedded at the new size' });
    // At 32 numbers the fake model folds other words onto the synonym axes too, so only the mode and the paraphrase's presence are checked.
    const semantic = (await callTool(server, 'search_documents', { query: 'vehicle', mode: 'semantic', top_k: 3 })).structured as SearchResult;
    expect(semantic).toMatchObject({ mode: 'semantic' });
    expect(semantic.note).toBeUndefined();
    expect(semantic.results.map((r) => r.chunk_id)).toContain('fleet.md#0');
  });

  it('never writes either API key into the logs, through boot, queries and failures', () => {
    const log = server.rawLog();
    expect(log).toContain('embeddings endpoint configured');
    expect(log).toContain('query embedding failed');
    expect(log).not.toContain(EMBEDDINGS_KEY);
    expect(log).not.toContain(RERANK_KEY);
  });
});

describe('an embeddings endpoint that is down at boot', () => {
  let fake: FakeProviders;
  let server: OpsServer;
  beforeAll(async () => {
    fake = await startFakeProviders();
    fake.down = true;
    server = await startOpsServer({
      files: FILES,
      env: { EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed', EMBEDDINGS_API_KEY: EMBEDDINGS_KEY },
      semanticTuning: TUNING,
    });
    await eventually(() => server.semantic.state.state === 'degraded', { what: 'degraded state' });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });

  it('serves keyword search, reports degraded with the reason in /readyz (still 200) and the metrics, logs it, then recovers by itself', async () => {
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; reason: string; semantic: { state: string } };
    expect(body.status).toBe('degraded');
    expect(body.reason).toMatch(/semantic search unavailable, serving keyword search only: POST .*\/embeddings answered 503/);
    expect(await metricValue(server, 'corpus_mcp_semantic_state', { state: 'degraded' })).toBe(1);
    expect(await metricValue(server, 'corpus_mcp_semantic_state', { state: 'ready' })).toBe(0);
    expect(server.lines().some((l) => l.msg === 'embedding the chunks failed; serving keyword search only' && l.level === 'error')).toBe(true);

    const answer = await callTool(server, 'search_documents', { query: 'car' });
    expect(answer.isError).toBeFalsy();
    expect(answer.structured).toMatchObject({ mode: 'keyword', results: [{ chunk_id: 'parking.md#0', found_by: ['keyword'] }] });
    expect((answer.structured as SearchResult).note).toMatch(/semantic search is unavailable/);

    const attemptsWhileDown = fake.requests.length;
    await eventually(() => fake.requests.length > attemptsWhileDown, { what: 'a background retry' });
    fake.down = false;
    await eventually(() => server.semantic.state.state === 'ready', { what: 'recovery' });
    expect(((await (await fetch(`${server.url}/readyz`)).json()) as { status: string }).status).toBe('ready');
    expect(await metricValue(server, 'corpus_mcp_semantic_state', { state: 'ready' })).toBe(1);
    const hybrid = (await callTool(server, 'search_documents', { query: 'car', top_k: 2 })).structured as SearchResult;
    expect(hybrid.mode).toBe('hybrid');
    expect(hybrid.results.map((r) => r.chunk_id)).toEqual(['parking.md#0', 'fleet.md#0']);
    expect(server.rawLog()).not.toContain(EMBEDDINGS_KEY);
  });
});

describe('an endpoint whose answers outgrow any request', () => {
  const HUGE = 300 * 1024 * 1024;
  let fake: FakeProviders;
  let server: OpsServer;
  beforeAll(async () => {
    // A budget the whole answer could be read in, so that only the size cap can stop it.
    ({ fake, server } = await startWithProviders({}, { ...TUNING, queryTimeoutMs: 25_000 }));
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
  });

  /** Runs `work` while sampling this process's RSS; returns its result and the RSS growth at the peak, in bytes. */
  async function rssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
    const before = process.memoryUsage.rss();
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
    try {
      const result = await work();
      return { result, growth: Math.max(peak, process.memoryUsage.rss()) - before };
    } finally {
      clearInterval(sampler);
    }
  }

  it('stops reading a 300 MB query embedding at its cap, answers by keywords, and the process grows by less than 50 MB', async () => {
    // A plain search first, so the figure counts the answer, not the first call's loading of code.
    expect((await callTool(server, 'search_documents', { query: 'car' })).structured).toMatchObject({ mode: 'hybrid' });
    fake.padNext(HUGE);
    const { result: answer, growth } = await rssGrowth(() => callTool(server, 'search_documents', { query: 'car' }));
    console.info(`query embedding of ${HUGE} bytes: RSS grew by ${(growth / 1024 / 1024).toFixed(1)} MiB; ${fake.padded?.sent} bytes sent`);
    expect(answer.isError).toBeFalsy();
    expect(answer.structured).toMatchObject({ mode: 'keyword', results: [{ chunk_id: 'parking.md#0' }] });
    expect((answer.structured as SearchResult).note).toMatch(/embeddings endpoint failed for this query \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings answered more than \d+ bytes/);
    await fake.padded!.closed;
    expect(fake.padded).toMatchObject({ hungUp: true });
    expect(fake.padded!.sent).toBeLessThan(HUGE / 10);
    expect(growth).toBeLessThan(50 * 1024 * 1024);
    const logged = server.lines().find((l) => l.msg === 'provider answer larger than its cap; request aborted');
    expect(logged).toMatchObject({ endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings$/), max_bytes: expect.any(Number) });
    expect(server.rawLog()).not.toContain(EMBEDDINGS_KEY);
  });

  it('stops reading a 300 MB rerank answer at its cap and reorders by keywords', async () => {
    expect((await callTool(server, 'rerank_results', { query: 'car badge', chunk_ids: ['fleet.md#0', 'parking.md#0'] })).structured).toMatchObject({ method: 'rerank_model' });
    fake.padNext(HUGE);
    const { result: reranked, growth } = await rssGrowth(() => callTool(server, 'rerank_results', { query: 'car badge', chunk_ids: ['fleet.md#0', 'parking.md#0'] }));
    console.info(`rerank answer of ${HUGE} bytes: RSS grew by ${(growth / 1024 / 1024).toFixed(1)} MiB; ${fake.padded?.sent} bytes sent`);
    expect(reranked.isError).toBeFalsy();
    expect((reranked.structured as { note: string }).note).toMatch(/rerank endpoint failed \(POST http:\/\/127\.0\.0\.1:\d+\/v1\/rerank answered more than \d+ bytes/);
    await fake.padded!.closed;
    expect(fake.padded).toMatchObject({ hungUp: true });
    expect(growth).toBeLessThan(50 * 1024 * 1024);
    expect(server.rawLog()).not.toContain(RERANK_KEY);
  });
});
