import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_DIMENSIONS, startFakeProviders, type FakeProviders } from '../../test/support/fake-providers.js';
import type { Logger } from '../logger.js';
import { BYTES_PER_JSON_NUMBER, createEmbeddingsClient, MAX_EMBEDDING_DIMENSIONS, maxEmbeddingsAnswerBytes, normalise, readVectors } from './embeddings-client.js';
import { ProviderError } from './provider-error.js';
import { retryAfterMs } from './post-json.js';

const API_KEY = 'sk-test-4d1f0c9e7b2a44c1a8f3e6d5b0c9a7e1';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (fields: Record<string, unknown>, message?: string): void => {
    lines.push(JSON.stringify({ ...fields, message }));
  };
  return { lines, debug: log, info: log, warn: log, error: log };
}

let fake: FakeProviders;
beforeEach(async () => {
  fake = await startFakeProviders();
});
afterEach(async () => {
  await fake.close();
});

describe('createEmbeddingsClient', () => {
  describe('embed', () => {
    it('sends the texts in batches of batchSize with the model and key, and returns unit vectors in input order', async () => {
      const client = createEmbeddingsClient({ url: fake.url, model: 'fake-model', apiKey: API_KEY, batchSize: 3, concurrency: 2 });
      const texts = ['car', 'automobile', 'rain', 'doctor', 'physician', 'buy', 'large'];
      const vectors = await client.embed(texts);
      expect(fake.requests.map((r) => r.body.input?.length)).toEqual([3, 3, 1]);
      expect(fake.requests.every((r) => r.body.model === 'fake-model' && r.authorization === `Bearer ${API_KEY}`)).toBe(true);
      expect(vectors).toHaveLength(7);
      expect(client.dimensions).toBe(FAKE_DIMENSIONS);
      for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
      const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
      // The server answers each batch in reverse order; synonyms must still line up with their inputs.
      expect(dot(vectors[0]!, vectors[1]!)).toBeCloseTo(1, 5);
      expect(dot(vectors[3]!, vectors[4]!)).toBeCloseTo(1, 5);
      expect(dot(vectors[0]!, vectors[2]!)).toBeCloseTo(0, 5);
    });

    it('puts every vector of one call in one block of memory, whatever the batches', async () => {
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', batchSize: 3, concurrency: 2 });
      const vectors = await client.embed(['car', 'automobile', 'rain', 'doctor', 'physician', 'buy', 'large']);
      expect(fake.requests).toHaveLength(3);
      expect(new Set(vectors.map((v) => v.buffer)).size).toBe(1);
      expect(vectors[0]!.buffer.byteLength).toBe(7 * FAKE_DIMENSIONS * 4);
      for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    });

    it('refuses vectors longer than MAX_EMBEDDING_DIMENSIONS before allocating for them', () => {
      const answer = (length: number) => ({ data: [{ index: 0, embedding: new Array<number>(length).fill(1) }] });
      expect(readVectors(answer(MAX_EMBEDDING_DIMENSIONS), 1, 'e')[0]).toHaveLength(MAX_EMBEDDING_DIMENSIONS);
      expect(() => readVectors(answer(MAX_EMBEDDING_DIMENSIONS + 1), 1, 'e')).toThrow(/returned vectors of 8193 numbers; at most 8192 are supported/);
    });

    it('refuses vectors of another length than EMBEDDINGS_DIMENSIONS asks for (an endpoint that ignores `dimensions`)', async () => {
      const fetch = ((_url: string, init?: RequestInit) => {
        const { input } = JSON.parse(String(init?.body)) as { input: string[] };
        const data = input.map((_, index) => ({ index, embedding: [1, 2, 3, 4] }));
        return Promise.resolve(new Response(JSON.stringify({ data }), { status: 200 }));
      }) as typeof globalThis.fetch;
      const client = createEmbeddingsClient({ url: 'http://127.0.0.1:9/v1', model: 'm', dimensions: 8, fetch });
      const error = (await client.embed(['a']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('bad_response');
      expect(error.message).toMatch(/returned a vector of 4 numbers where EMBEDDINGS_DIMENSIONS asks for 8/);
    });

    it('refuses a call whose batches answer with vectors of different lengths', async () => {
      let calls = 0;
      const fetch = ((_url: string, init?: RequestInit) => {
        const { input } = JSON.parse(String(init?.body)) as { input: string[] };
        calls += 1;
        const length = calls === 1 ? 4 : 5;
        const data = input.map((_, index) => ({ index, embedding: Array.from({ length }, (_, d) => d + 1) }));
        return Promise.resolve(new Response(JSON.stringify({ data }), { status: 200 }));
      }) as typeof globalThis.fetch;
      const client = createEmbeddingsClient({ url: 'http://127.0.0.1:9/v1', model: 'm', batchSize: 2, concurrency: 1, fetch });
      const error = (await client.embed(['a', 'b', 'c']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('bad_response');
      expect(error.message).toMatch(/returned a vector of 5 numbers where others of the same call had 4/);
    });

    it('keeps at most `concurrency` requests in flight', async () => {
      fake.delayMs = 30;
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', batchSize: 1, concurrency: 3 });
      await client.embed(Array.from({ length: 12 }, (_, i) => `text ${i}`));
      expect(fake.requests).toHaveLength(12);
      expect(fake.maxInFlight).toBe(3);
    });

    it('sends `dimensions` when configured', async () => {
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', dimensions: 8 });
      const [vector] = await client.embed(['car']);
      expect(fake.requests[0]!.body.dimensions).toBe(8);
      expect(vector).toHaveLength(8);
    });

    it('retries 429 and 5xx answers with backoff, then succeeds: one request per attempt', async () => {
      fake.failNext(1, 429);
      fake.failNext(1, 502);
      const logger = recordingLogger();
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', backoffMs: 5, maxRetries: 3, logger });
      await client.embed(['car']);
      expect(fake.requests.map((r) => r.status)).toEqual([429, 502, 200]);
      expect(logger.lines.filter((l) => l.includes('retrying'))).toHaveLength(2);
    });

    it('gives up after maxRetries with an `unavailable` error naming the status', async () => {
      fake.failNext(10, 503);
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', backoffMs: 1, maxRetries: 2 });
      const error = await client.embed(['car']).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).code).toBe('unavailable');
      expect((error as ProviderError).message).toMatch(/answered 503 on 3 attempt/);
      expect(fake.requests).toHaveLength(3);
    });

    it('does not retry a 401 and says to check the key', async () => {
      fake.failNext(1, 401);
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', backoffMs: 1, maxRetries: 3 });
      const error = (await client.embed(['car']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('http_status');
      expect(error.message).toMatch(/401: check the API key/);
      expect(fake.requests).toHaveLength(1);
    });

    it('waits as long as Retry-After says before the next attempt, not the shorter backoff', async () => {
      fake.failNext(1, 429, '1');
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', backoffMs: 1, maxRetries: 1 });
      await client.embed(['car']);
      expect(fake.arrivals).toHaveLength(2);
      expect(fake.arrivals[1]! - fake.arrivals[0]!).toBeGreaterThanOrEqual(950);
    });

    it('reads an answer up to the size its batch can need, and aborts a larger one with `too_large`, unretried, logging the endpoint and cap', async () => {
      const logger = recordingLogger();
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', apiKey: API_KEY, dimensions: 8, batchSize: 2, backoffMs: 1, maxRetries: 3, logger });
      const cap = maxEmbeddingsAnswerBytes(2, 8);
      fake.padNext(cap - 2000);
      expect(await client.embed(['car', 'rain'])).toHaveLength(2);
      fake.padNext(cap);
      const error = (await client.embed(['car', 'rain']).catch((e: unknown) => e)) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect(error.code).toBe('too_large');
      expect(error.message).toMatch(new RegExp(`^POST http://127\\.0\\.0\\.1:\\d+/v1/embeddings answered more than ${cap} bytes`));
      expect(fake.requests).toHaveLength(2);
      const line = logger.lines.find((l) => l.includes('larger than its cap'));
      expect(JSON.parse(line!)).toMatchObject({ endpoint: `${fake.url}/embeddings`, max_bytes: cap, texts: 2 });
      expect(logger.lines.join('\n')).not.toContain(API_KEY);
    });

    it('refuses an answer whose Content-Length is past the cap without reading it', async () => {
      let pulls = 0;
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulls += 1;
          if (pulls > 64) controller.close();
          else controller.enqueue(new Uint8Array(1024 * 1024));
        },
        cancel() {
          cancelled = true;
        },
      });
      const fetch = (() => Promise.resolve(new Response(body, { status: 200, headers: { 'content-length': String(10 ** 9) } }))) as typeof globalThis.fetch;
      const client = createEmbeddingsClient({ url: 'http://127.0.0.1:9/v1', model: 'm', fetch });
      const error = (await client.embed(['a']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('too_large');
      expect(cancelled).toBe(true);
      // The stream fills its queue once when created; nothing more was asked of it.
      expect(pulls).toBeLessThanOrEqual(1);
    });

    it('scales the cap to the texts and the requested dimensions (the longest accepted when none is requested)', () => {
      expect(maxEmbeddingsAnswerBytes(1, undefined)).toBe(MAX_EMBEDDING_DIMENSIONS * BYTES_PER_JSON_NUMBER + 256 + 64 * 1024);
      expect(maxEmbeddingsAnswerBytes(64, 1536)).toBe(64 * (1536 * BYTES_PER_JSON_NUMBER + 256) + 64 * 1024);
      // The longest number a JSON writer prints, with its comma, newline and a pretty-printer's indent, fits.
      const vectorsDepth = JSON.stringify({ data: [{ embedding: [-2.2250738585072014e-308, 1] }] }, null, 2).split('\n')[4]!;
      expect(`${vectorsDepth}\n`.length).toBeLessThanOrEqual(BYTES_PER_JSON_NUMBER);
    });

    it('retries only on a Retry-After when told so, and only when the wait fits the call\'s budget', async () => {
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', backoffMs: 1 });
      const query = { timeoutMs: 5000, budgetMs: 5000, maxRetries: 2, retryOnlyWhenTold: true };
      fake.failNext(1, 503);
      expect(((await client.embed(['car'], query).catch((e: unknown) => e)) as ProviderError).code).toBe('unavailable');
      fake.failNext(1, 429, '0');
      expect(await client.embed(['car'], query)).toHaveLength(1);
      fake.failNext(1, 429, '5');
      const error = (await client.embed(['car'], query).catch((e: unknown) => e)) as ProviderError;
      expect([error.code, error.status]).toEqual(['unavailable', 429]);
      expect(error.message).toMatch(/not retried: waiting 5000 ms would leave nothing of the \d+ ms left of its 5000 ms budget/);
      expect(fake.requests.map((r) => r.status)).toEqual([503, 429, 200, 429]);
    });

    it('aborts an attempt that takes longer than the timeout, and reports `timeout`', async () => {
      fake.delayMs = 500;
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', timeoutMs: 50, maxRetries: 0 });
      const error = (await client.embed(['car']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('timeout');
      expect(error.message).toMatch(/within 50 ms/);
    });

    it('reports `network` when nothing listens', async () => {
      await fake.close();
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', maxRetries: 0 });
      const error = (await client.embed(['car']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('network');
      fake = await startFakeProviders();
    });

    it('never writes the API key into a log line or an error message', async () => {
      fake.failNext(2, 500);
      const logger = recordingLogger();
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', apiKey: API_KEY, backoffMs: 1, maxRetries: 1, logger });
      const error = (await client.embed(['car']).catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(ProviderError);
      expect(logger.lines.length).toBeGreaterThan(0);
      expect(logger.lines.join('\n')).not.toContain(API_KEY);
      expect(`${error.message} ${error.stack ?? ''}`).not.toContain(API_KEY);
    });
  });

  describe('a call with a batch that fails for good', () => {
    it('starts no further batch, stops the retries of those in flight, and rejects only when none is left running', async () => {
      fake.delayMs = 30;
      fake.failNext(1, 400);
      fake.failNext(2, 503);
      const client = createEmbeddingsClient({ url: fake.url, model: 'm', batchSize: 1, concurrency: 3, backoffMs: 200 });
      const error = (await client.embed(Array.from({ length: 12 }, (_, i) => `text ${i}`)).catch((e: unknown) => e)) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      expect([error.code, error.status]).toEqual(['http_status', 400]);
      const atRejection = fake.requests.length;
      // Nothing may start later: a retry left running would send its request one backoff (200 ms)
      // after its failure, so this waits out more than two backoffs. What does not happen has no
      // event to wait for.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(fake.requests).toHaveLength(atRejection);
      expect(atRejection).toBe(3);
      expect(fake.maxInFlight).toBeLessThanOrEqual(3);
    });
  });

  describe('endpoint names', () => {
    it('never writes a user name, password or query string of the URL into a log line or an error message', async () => {
      const logger = recordingLogger();
      const client = createEmbeddingsClient({ url: 'http://alice:S3CRET-PW@127.0.0.1:9/v1', model: 'm', backoffMs: 1, maxRetries: 1, logger });
      const error = (await client.embed(['car']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('network');
      expect(error.message).toContain('POST http://127.0.0.1:9/v1/embeddings');
      expect(logger.lines.length).toBeGreaterThan(0);
      for (const text of [error.message, ...logger.lines]) {
        expect(text).not.toContain('S3CRET-PW');
        expect(text).not.toContain('alice');
      }
      const queried = recordingLogger();
      fake.failNext(2, 503);
      const withQuery = createEmbeddingsClient({ url: `${fake.url}?key=QS-SECRET`, model: 'm', backoffMs: 1, maxRetries: 1, logger: queried });
      const failed = (await withQuery.embed(['car']).catch((e: unknown) => e)) as ProviderError;
      expect(failed.code).toBe('unavailable');
      for (const text of [failed.message, ...queried.lines]) expect(text).not.toContain('QS-SECRET');
    });
  });

  describe('options', () => {
    it.each([
      [{ batchSize: 0 }, /batchSize=0/],
      [{ concurrency: 65 }, /concurrency=65/],
    ])('refuses %o at creation', (bad, message) => {
      expect(() => createEmbeddingsClient({ url: fake.url, model: 'm', ...bad })).toThrow(message);
    });
  });
});

describe('normalise', () => {
  it('makes unit vectors of numbers beyond float32 range or whose squares overflow, never NaN or Infinity', () => {
    expect([...normalise([1e39, 0, 0, 0])]).toEqual([1, 0, 0, 0]);
    const huge = [...normalise([1e200, -1e200])];
    expect(huge[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(huge[1]).toBeCloseTo(-Math.SQRT1_2, 6);
    expect([...normalise([3, 4])].map((x) => Number(x.toFixed(6)))).toEqual([0.6, 0.8]);
  });

  it('leaves an all-zero vector zero: it has no direction', () => {
    expect([...normalise([0, 0, 0])]).toEqual([0, 0, 0]);
  });
});

describe('retryAfterMs', () => {
  it.each([
    ['2', 2000],
    ['0', 0],
    ['Wed, 21 Oct 2015 07:28:05 GMT', 5000],
    ['Wednesday, 21-Oct-15 07:28:10 GMT', 10_000],
    ['1.5', undefined],
    ['-1', undefined],
    ['soon', undefined],
    [null, undefined],
  ])('reads %s as %s ms', (header, expected) => {
    expect(retryAfterMs(header, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(expected);
  });
});
