import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_DIMENSIONS, startFakeProviders, type FakeProviders } from '../../test/support/fake-providers.js';
import type { Document } from '../corpus/document.js';
import { silentLogger } from '../logger.js';
import { createEmbeddingsClient } from '../providers/embeddings-client.js';
import { eventually } from '../../test/support/eventually.js';
import { SearchIndex } from '../search/search-index.js';
import { VectorCache } from '../search/vector-cache.js';
import { semanticServiceFromConfig } from './semantic-from-config.js';
import { SemanticService } from './semantic-service.js';

const doc = (source: string, text: string): Document => ({ source, format: 'text', title: source, text, bodyStart: 0, bytes: text.length, sections: [] });
const DOCS = [doc('a.txt', 'The automobile needs tyres.'), doc('b.txt', 'The physician is on duty.'), doc('c.txt', 'Rainfall on Tuesday.')];

let fake: FakeProviders;
beforeEach(async () => {
  fake = await startFakeProviders();
});
afterEach(async () => {
  await fake.close();
});

const service = (): SemanticService =>
  new SemanticService({ embeddings: createEmbeddingsClient({ url: fake.url, model: 'fake', batchSize: 2 }), logger: silentLogger, retryDelayMs: 50 });

describe('SemanticService', () => {
  describe('serve', () => {
    it('embeds the chunks in batches and builds their vectors', async () => {
      const semantic = service();
      const index = SearchIndex.build(DOCS);
      await semantic.embedInBackground(index);
      expect(semantic.state).toMatchObject({ state: 'ready', model: 'fake', chunks: 3 });
      expect(fake.requests.map((r) => r.body.input?.length)).toEqual([2, 1]);
      expect(semantic.vectorsFor(index)?.count).toBe(3);
      expect(semantic.vectorsFor(SearchIndex.build(DOCS))).toBeUndefined();
    });

    it('answers whenSaved only once a save of the cache under way has ended, and logs it', async () => {
      const lines: string[] = [];
      const log = (_fields: Record<string, unknown>, message?: string): void => {
        lines.push(message ?? '');
      };
      let finish: () => void = () => undefined;
      const saves: VectorCache[] = [];
      const semantic = new SemanticService({ embeddings: createEmbeddingsClient({ url: fake.url, model: 'fake' }), logger: { debug: log, info: log, warn: log, error: log } });
      semantic.useCacheStore({
        load: () => undefined,
        save: (cache) => {
          saves.push(cache);
          return new Promise<void>((resolve) => (finish = resolve));
        },
      });
      const index = SearchIndex.build(DOCS);
      void semantic.embedInBackground(index);
      await eventually(() => saves.length === 1, { what: 'the save has started' });
      expect(semantic.state.state).toBe('ready');
      let saved = false;
      void semantic.whenSaved().then(() => (saved = true));
      // Every promise that could settle without the save finishing has settled by the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      expect(saved).toBe(false);
      finish();
      await eventually(() => saved, { what: 'whenSaved' });
      expect(lines).toContain('chunk vector cache saved');
      semantic.close();
    });

    it('keeps one copy of the vectors: the cache holds views of the served vector index\'s rows', async () => {
      const semantic = service();
      const index = SearchIndex.build(DOCS);
      await semantic.embedInBackground(index);
      const rows = semantic.vectorsFor(index)!.row(0)!.buffer;
      for (let i = 0; i < index.stats.chunks; i += 1) {
        const cached = semantic.cache!.get(semantic.cache!.key(index.passage(i)))!;
        expect(cached.buffer).toBe(rows);
        expect([...cached]).toEqual([...semantic.vectorsFor(index)!.vector(i)!]);
      }
      semantic.close();
    });

    it('after a restart from a saved cache, embeds only new or changed chunks (none when nothing changed)', async () => {
      const first = service();
      await first.embedInBackground(SearchIndex.build(DOCS));
      const saved = first.cache!.toBytes();
      const callsAtFirstBoot = fake.embeddingCalls();

      const unchanged = service();
      unchanged.seedCache(VectorCache.fromBytes(saved));
      await unchanged.embedInBackground(SearchIndex.build(DOCS));
      expect(fake.embeddingCalls()).toBe(callsAtFirstBoot);
      expect(unchanged.lastPass).toMatchObject({ chunks: 3, embedded: 0, reused: 3 });
      expect(unchanged.state.state).toBe('ready');

      const edited = service();
      edited.seedCache(VectorCache.fromBytes(saved));
      await edited.embedInBackground(SearchIndex.build([DOCS[0]!, doc('b.txt', 'The doctor is on duty.'), DOCS[2]!, doc('d.txt', 'A new car.')]));
      expect(fake.embeddedTexts().slice(-2).map((t) => t.split('\n\n')[0])).toEqual(['b.txt', 'd.txt']);
      expect(edited.lastPass).toMatchObject({ chunks: 4, embedded: 2, reused: 2 });
      // Vectors of chunks no longer served are dropped from the cache.
      expect(edited.cache!.size).toBe(4);
    });

    it('embeds every chunk again when the saved cache belongs to another model or dimension request', async () => {
      const first = service();
      await first.embedInBackground(SearchIndex.build(DOCS));
      const saved = first.cache!.toBytes();
      for (const options of [{ model: 'other' }, { model: 'fake', dimensions: 8 }]) {
        const callsBefore = fake.embeddedTexts().length;
        const next = new SemanticService({ embeddings: createEmbeddingsClient({ url: fake.url, batchSize: 2, ...options }), logger: silentLogger, retryDelayMs: 50 });
        next.seedCache(VectorCache.fromBytes(saved));
        await next.embedInBackground(SearchIndex.build(DOCS));
        expect(next.lastPass).toMatchObject({ chunks: 3, embedded: 3, reused: 0 });
        expect(fake.embeddedTexts().length - callsBefore).toBe(3);
        expect(next.cache!.model).not.toBe(first.cache!.model);
      }
    });

    it('stops the scan threads of the vectors it no longer serves, and all of them at close', async () => {
      const semantic = new SemanticService({ embeddings: createEmbeddingsClient({ url: fake.url, model: 'fake' }), logger: silentLogger, scanThreads: 2 });
      const first = SearchIndex.build(DOCS);
      await semantic.embedInBackground(first);
      const firstVectors = semantic.vectorsFor(first)!;
      await eventually(() => firstVectors.threads === 2, { what: 'the first scan thread is ready' });
      const second = SearchIndex.build([...DOCS, doc('d.txt', 'A new car.')]);
      const serving = semantic.embedInBackground(second);
      expect(firstVectors.threads).toBe(1);
      await eventually(() => firstVectors.helpersAlive === 0, { what: 'the first scan thread has exited' });
      await serving;
      const secondVectors = semantic.vectorsFor(second)!;
      await eventually(() => secondVectors.threads === 2, { what: 'the second scan thread is ready' });
      semantic.close();
      expect(secondVectors.threads).toBe(1);
      await eventually(() => secondVectors.helpersAlive === 0, { what: 'the second scan thread has exited' });
      expect(semantic.vectorsFor(second)).toBeUndefined();
    });

    it('scans with the threads the configuration gives (VECTOR_SCAN_THREADS)', async () => {
      for (const scanThreads of [1, 3]) {
        const semantic = semanticServiceFromConfig({ embeddings: { url: fake.url, model: 'fake', apiKey: undefined, dimensions: undefined }, rerank: undefined, scanThreads }, silentLogger);
        const index = SearchIndex.build(DOCS);
        await semantic.embedInBackground(index);
        const vectors = semantic.vectorsFor(index)!;
        await eventually(() => vectors.threads === scanThreads, { what: `${scanThreads} scan threads are ready` });
        // No helper beyond those: every helper started is one of the ready ones.
        expect(vectors.helpersAlive).toBe(scanThreads - 1);
        expect(vectors.threads).toBe(scanThreads);
        semantic.close();
      }
    });

    it('re-embeds only the changed chunks when the same service serves a rebuilt index', async () => {
      const semantic = service();
      await semantic.embedInBackground(SearchIndex.build(DOCS));
      const calls = fake.embeddingCalls();
      await semantic.embedInBackground(SearchIndex.build([...DOCS, doc('d.txt', 'A new car.')]));
      expect(fake.embeddingCalls()).toBe(calls + 1);
      expect(semantic.lastPass).toMatchObject({ chunks: 4, embedded: 1, reused: 3 });
    });

    it('keeps what a pass embedded when a reload replaces its index, so the next pass embeds only the new chunks', async () => {
      fake.delayMs = 40;
      const semantic = service();
      const first = semantic.embedInBackground(SearchIndex.build(DOCS));
      await eventually(() => fake.requests.length > 0, { what: 'the first pass has sent its batches' });
      const second = SearchIndex.build([...DOCS, doc('d.txt', 'A new car.')]);
      await Promise.all([first, semantic.embedInBackground(second)]);
      expect(fake.embeddedTexts()).toHaveLength(4);
      expect(semantic.lastPass).toMatchObject({ chunks: 4, embedded: 1, reused: 3 });
      expect(semantic.vectorsFor(second)?.count).toBe(4);
      semantic.close();
    });

    it('saves the vectors of a pass that a reload overtook, so the next boot embeds none of them', async () => {
      let file: Uint8Array | undefined;
      const store = {
        load: () => (file === undefined ? undefined : VectorCache.fromBytes(file)),
        save: (cache: VectorCache) => {
          file = cache.toBytes();
          return Promise.resolve();
        },
      };
      const first = service();
      first.useCacheStore(store);
      await first.embedInBackground(SearchIndex.build(DOCS));
      first.close();
      const four = [...DOCS, doc('d.txt', 'A huge purchase.')];
      const second = service();
      second.useCacheStore(store);
      fake.delayMs = 60;
      const requestsBefore = fake.requests.length;
      const overtaken = second.embedInBackground(SearchIndex.build(four));
      await eventually(() => fake.requests.length > requestsBefore, { what: 'the new chunk is being embedded' });
      await Promise.all([overtaken, second.embedInBackground(SearchIndex.build(four))]);
      second.close();
      expect(VectorCache.fromBytes(file!).size).toBe(4);
      fake.delayMs = 0;
      const third = service();
      third.useCacheStore(store);
      await third.embedInBackground(SearchIndex.build(four));
      expect(third.lastPass).toMatchObject({ embedded: 0, reused: 4 });
      third.close();
    });

    it('embeds every chunk again when the endpoint answers with another vector size than the cached vectors', async () => {
      const first = service();
      await first.embedInBackground(SearchIndex.build(DOCS));
      const saved = first.cache!.toBytes();
      fake.nativeDimensions = 16;
      const next = service();
      next.seedCache(VectorCache.fromBytes(saved));
      const before = fake.embeddedTexts().length;
      await next.embedInBackground(SearchIndex.build([...DOCS, doc('d.txt', 'A new car.')]));
      expect(next.state).toMatchObject({ state: 'ready', dimensions: 16, chunks: 4 });
      expect(next.lastPass).toMatchObject({ chunks: 4, embedded: 4, reused: 0 });
      expect(fake.embeddedTexts().length - before).toBe(5);
      expect(next.cache!.dimensions).toBe(16);
      next.close();
    });

    it('answers a query unavailable when the endpoint has changed vector size since every chunk was cached, and embeds the chunks again once', async () => {
      const first = service();
      await first.embedInBackground(SearchIndex.build(DOCS));
      const saved = first.cache!.toBytes();
      const states: string[] = [];
      const next = new SemanticService({
        embeddings: createEmbeddingsClient({ url: fake.url, model: 'fake', batchSize: 2 }),
        logger: silentLogger,
        onState: (state) => states.push(state.state),
      });
      next.seedCache(VectorCache.fromBytes(saved));
      const index = SearchIndex.build(DOCS);
      await next.embedInBackground(index);
      expect(next.state).toMatchObject({ state: 'ready', dimensions: FAKE_DIMENSIONS });
      fake.nativeDimensions = 16;
      states.length = 0;
      const before = fake.embeddedTexts().length;
      const answers = await Promise.all([next.embedQuery('car', FAKE_DIMENSIONS), next.embedQuery('rain', FAKE_DIMENSIONS)]);
      for (const answer of answers) {
        expect(answer).toMatchObject({ ok: false, reason: expect.stringMatching(/now answers with vectors of 16 numbers where the chunk vectors have 64 .*embedded again/) });
      }
      await eventually(() => next.state.state === 'ready', { what: 'the chunks embedded again' });
      expect(next.state).toMatchObject({ state: 'ready', dimensions: 16, chunks: 3 });
      expect(fake.embeddedTexts().length - before).toBe(2 + 3);
      expect(next.vectorsFor(index)?.dimensions).toBe(16);
      expect(await next.embedQuery('car', 16)).toMatchObject({ ok: true });
      // One pass for both queries that noticed the change (a second would have begun by now: both
      // queries were answered before the pass ended).
      await new Promise((resolve) => setImmediate(resolve));
      expect(states).toEqual(['starting', 'ready']);
      next.close();
    });

    it('answers a query unavailable when the endpoint embeds it as all zeros, which has no direction to rank by', async () => {
      const semantic = service();
      await semantic.embedInBackground(SearchIndex.build(DOCS));
      fake.zeroInput = 'nothing at all';
      expect(await semantic.embedQuery('nothing at all', FAKE_DIMENSIONS)).toMatchObject({ ok: false, reason: expect.stringMatching(/all-zero vector/) });
      expect(await semantic.embedQuery('car', FAKE_DIMENSIONS)).toMatchObject({ ok: true });
      semantic.close();
    });

    it('retries a query embedding only when a Retry-After asks for a wait that fits the query budget, else answers unavailable at once', async () => {
      const semantic = new SemanticService({ embeddings: createEmbeddingsClient({ url: fake.url, model: 'fake', backoffMs: 1 }), logger: silentLogger, queryTimeoutMs: 5000 });
      await semantic.embedInBackground(SearchIndex.build(DOCS));
      const before = fake.requests.length;
      fake.failNext(1, 429, '0');
      expect(await semantic.embedQuery('car', FAKE_DIMENSIONS)).toMatchObject({ ok: true });
      fake.failNext(1, 429, '10');
      expect(await semantic.embedQuery('car', FAKE_DIMENSIONS)).toMatchObject({ ok: false, reason: expect.stringMatching(/answered 429 on 1 attempt\(s\); not retried: waiting 10000 ms/) });
      fake.failNext(1, 503);
      expect(await semantic.embedQuery('car', FAKE_DIMENSIONS)).toMatchObject({ ok: false, reason: expect.stringMatching(/answered 503 on 1 attempt\(s\)\)$/) });
      expect(fake.requests.slice(before).map((r) => r.status)).toEqual([429, 200, 429, 503]);
      semantic.close();
    });

    it('goes degraded when the endpoint is down, keeps retrying in the background, and recovers', async () => {
      fake.down = true;
      const semantic = new SemanticService({
        embeddings: createEmbeddingsClient({ url: fake.url, model: 'fake', maxRetries: 0 }),
        logger: silentLogger,
        retryDelayMs: 20,
        maxRetryDelayMs: 40,
      });
      const index = SearchIndex.build(DOCS);
      await semantic.embedInBackground(index);
      expect(semantic.state).toMatchObject({ state: 'degraded', code: 'unavailable' });
      expect(await semantic.embedQuery('car', FAKE_DIMENSIONS)).toMatchObject({ ok: false, reason: expect.stringMatching(/semantic search is unavailable/) });
      const failed = fake.requests.length;
      await eventually(() => fake.requests.length > failed, { what: 'a retry in the background' });
      expect(fake.requests.length).toBeGreaterThan(failed);
      fake.down = false;
      await eventually(() => semantic.state.state === 'ready', { what: 'recovery' });
      expect(semantic.state.state).toBe('ready');
      expect(semantic.vectorsFor(index)).toBeDefined();
      semantic.close();
    });
  });
});

describe('VectorCache', () => {
  it('round-trips through bytes and refuses bytes that are not a cache', () => {
    const cache = new VectorCache('m@native', 3);
    cache.set(cache.key('hello'), Float32Array.from([0.5, -0.25, 1]));
    cache.set(cache.key('world'), Float32Array.from([0, 2, -3]));
    const back = VectorCache.fromBytes(cache.toBytes());
    expect(back.model).toBe('m@native');
    expect([...back.get(cache.key('hello'))!]).toEqual([0.5, -0.25, 1]);
    expect([...back.get(cache.key('world'))!]).toEqual([0, 2, -3]);
    // Read into one block: one allocation, not one per vector.
    expect(back.get(cache.key('hello'))!.buffer).toBe(back.get(cache.key('world'))!.buffer);
    expect(() => VectorCache.fromBytes(new Uint8Array(40))).toThrow(/wrong magic bytes/);
  });

  it('gives its bytes in pieces of any size, from the entries it held when asked', () => {
    const cache = new VectorCache('m@native', 3);
    for (let i = 0; i < 10; i += 1) cache.set(cache.key(`p${i}`), Float32Array.from([i, 1, -i]));
    const pieces = cache.pieces(30); // two vectors (24 bytes) a piece
    cache.set(cache.key('later'), Float32Array.from([9, 9, 9]));
    const parts = [...pieces];
    expect(parts.length).toBe(1 + 5);
    const back = VectorCache.fromBytes(Buffer.concat(parts));
    expect(back.size).toBe(10);
    expect(back.get(cache.key('later'))).toBeUndefined();
    for (let i = 0; i < 10; i += 1) expect([...back.get(cache.key(`p${i}`))!]).toEqual([i, 1, -i]);
    expect(Buffer.concat([...cache.pieces(1)])).toEqual(Buffer.from(cache.toBytes()));
  });
});
