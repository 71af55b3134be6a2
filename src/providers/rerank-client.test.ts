import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProviders, type FakeProviders } from '../../test/helpers/fake-providers.js';
import { createRerankClient, maxRerankAnswerBytes } from './rerank-client.js';
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

    it('reads an answer that echoes every document, and aborts one larger than the documents can need with `too_large`', async () => {
      const documents = ['a huge car', 'the car', 'rain today'];
      const client = createRerankClient({ url: fake.url, model: 'rr', backoffMs: 1 });
      const request = JSON.stringify({ query: 'big automobile', documents, top_n: 3, return_documents: false, model: 'rr' });
      const cap = maxRerankAnswerBytes(documents.length, Buffer.byteLength(request));
      fake.padNext(cap - 1000);
      expect(await client.rerank('big automobile', documents)).toEqual([1, 0.5, 0]);
      fake.padNext(cap);
      const error = (await client.rerank('big automobile', documents).catch((e: unknown) => e)) as ProviderError;
      expect(error.code).toBe('too_large');
      expect(error.message).toContain(`answered more than ${cap} bytes`);
      expect(fake.requests).toHaveLength(2);
    });
  });
});
