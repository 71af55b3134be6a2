// Client ID metadata documents from outside, over a real listening sign-in server: an anonymous
// /authorize naming a document on an internal address is refused with invalid_client and opens no TCP
// connection to it (counted on a real listener), and documents are fetched at a bounded rate.
import { afterEach, describe, expect, it } from 'vitest';
import { countingListener } from './support/counting-listener.js';
import { authorizeUrl, pkcePair, startSignInWithOidcUpstream } from './support/sign-in.js';
import type { SignInServer, SignInWithUpstream } from './support/sign-in.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const UPSTREAM_CLIENT = { id: 'corpus-upstream', secret: 'upstream-secret' };

const listener = countingListener();

let started: SignInWithUpstream | undefined;
async function start(tuning?: Parameters<typeof startSignInWithOidcUpstream>[2]['tuning']): Promise<SignInServer> {
  started = await startSignInWithOidcUpstream(UPSTREAM_CLIENT, SECRET, { tmpPrefix: 'corpus-cimd-fetch-', ...(tuning ? { tuning } : {}) });
  return started.server;
}
afterEach(async () => {
  await started?.close();
  started = undefined;
});

/** An anonymous /authorize naming `clientId`: its status and page. */
async function authorize(server: SignInServer, clientId: string): Promise<{ status: number; text: string }> {
  const response = await fetch(authorizeUrl(server, clientId, pkcePair().challenge), { redirect: 'manual' });
  return { status: response.status, text: await response.text() };
}

describe('client ID metadata documents, from outside', () => {
  it.each([
    ['an IPv4 loopback literal', 'https://127.0.0.1:PORT/c.json'],
    ['an IPv4-mapped loopback literal', 'https://[::ffff:127.0.0.1]:PORT/c.json'],
    ['localhost', 'https://localhost:PORT/c.json'],
  ])('refuses a document on %s with invalid_client, and opens no connection to it', async (_label, template) => {
    const server = await start();
    const before = listener.connections;
    const { status, text } = await authorize(server, template.replace('PORT', String(listener.port)));
    expect(status).toBe(400);
    expect(text).toContain('<code>invalid_client</code>');
    expect(listener.connections).toBe(before);
  });

  it('fetches at most metadataFetchesPerMinute documents a minute, then answers invalid_client without fetching', async () => {
    const fetched: string[] = [];
    const server = await start({
      metadataFetchesPerMinute: 2,
      fetch: async (url) => {
        fetched.push(String(url));
        return new Response('not found', { status: 404 });
      },
    });
    const answers = [];
    for (const n of [1, 2, 3, 4]) answers.push(await authorize(server, `https://client-${n}.example/c.json`));
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    // oidc-provider looks a client up twice in a request, and a document that failed is not cached.
    expect(fetched).toHaveLength(2);
    for (const answer of answers.slice(1)) expect(answer.text).toMatch(/<code>invalid_client<\/code>: client_id metadata document not fetched: this server fetches only so many a minute/);
  });
});
