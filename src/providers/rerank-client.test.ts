import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProviders, type FakeProviders } from '../../test/support/fake-providers.js';
import { createRerankClient } from './rerank-client.js';
import type { ProviderError } from './provider-error.js';

let fake: FakeProviders;
beforeEach(async () => {
  fake = await startFakeProviders();
});
afterEach(async () => {
  await fake.close();
});

describe('createRerankClient', () => {
  describe('rerank', () => {
    it('returns one score per document in input order, from a Cohere-style answer sorted by score', async () => {
      const client = createRerankClient({ url: fake.url, model: 'rr', apiKey: 'k'.repeat(40) });
      const scores = await client.rerank('big automobile', ['rain today', 'a huge car', 'the car']);
      expect(scores).toEqual([0, 1, 0.5]);
      expect(fake.requests[0]!.body).toMatchObject({ model: 'rr', query: 'big automobile', documents: ['rain today', 'a huge car', 'the car'] });
    });

    it('reads a bare array of { index, score } (Text Embeddings Inference)', async () => {
      const client = createRerankClient({
        url: 'http://tei.invalid',
        fetch: async () => new Response(JSON.stringify([{ index: 1, score: 0.9 }, { index: 0, score: 0.1 }]), { status: 200 }),
      });
      expect(await client.rerank('q', ['a', 'b'])).toEqual([0.1, 0.9]);
    });

    it('refuses an answer that leaves a document unscored', async () => {
      const client = createRerankClient({
        url: 'http://partial.invalid',
        fetch: async () => new Response(JSON.stringify({ results: [{ index: 0, relevance_score: 0.3 }] }), { status: 200 }),
      });
      const error = (await client.rerank('q', ['a', 'b']).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('bad_response');
      expect(error.message).toMatch(/scored 1 of 2/);
    });
  });
});
