import { importJWK, SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/store.js';
import { createIssuedTokenVerifier } from './issued-token-verifier.js';
import { deriveKeys } from './keys.js';

const ISSUER = 'https://corpus.example';
const AUDIENCE = `${ISSUER}/mcp`;
const keys = deriveKeys('issued-token-verifier-test-secret-0123456789');
const other = deriveKeys('another-server-entirely-secret-0123456789abc');

interface Mint {
  typ?: string;
  iss?: string;
  aud?: string;
  /** `null`: the token names no grant. */
  gid?: string | null;
  sub?: string;
  expiresIn?: number;
  signing?: typeof keys.signing;
}

async function mint({ typ = 'at+jwt', iss = ISSUER, aud = AUDIENCE, gid = 'grant-1', sub = 'ada@example.com', expiresIn = 300, signing = keys.signing }: Mint = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'mcp', client_id: 'client-1', ...(gid === null ? {} : { gid }) })
    .setProtectedHeader({ alg: 'ES256', typ, kid: signing.kid })
    .setIssuer(iss).setAudience(aud).setSubject(sub).setIssuedAt(now).setExpirationTime(now + expiresIn)
    .sign(await importJWK(signing, 'ES256'));
}

describe('createIssuedTokenVerifier', () => {
  let store: Store;
  let allowed: Set<string>;
  const verifier = () => createIssuedTokenVerifier({
    issuer: ISSUER, audience: AUDIENCE, key: keys.verification, store, accountAllowed: async (accountId) => allowed.has(accountId), clockToleranceSeconds: 0,
  });

  beforeEach(async () => {
    store = await openStore({ dataDir: undefined });
    await store.put('Grant', 'grant-1', { accountId: 'ada@example.com' });
    allowed = new Set(['ada@example.com']);
  });
  afterEach(async () => {
    await store.close();
  });

  it("accepts this server's access token for this resource, of a live grant and an allowed account", async () => {
    expect(await verifier().verify(await mint())).toMatchObject({ id: 'login:ada@example.com', kind: 'oauth', scopes: ['mcp'], clientId: 'client-1' });
  });

  it.each([
    ['a JWT of another type signed by the same key (an ID token)', { typ: 'JWT' }],
    ['a token for another resource', { aud: `${ISSUER}/other` }],
    ['a token of another issuer', { iss: 'https://elsewhere.example' }],
    ['a token signed by another key', { signing: other.signing }],
    ['an expired token', { expiresIn: -60 }],
  ] as const)('refuses %s as invalid_token', async (_name, options: Mint) => {
    await expect(verifier().verify(await mint(options))).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses a token whose grant is gone (revoked or replayed), and one that names no grant', async () => {
    const token = await mint();
    await store.delete('Grant', 'grant-1');
    await expect(verifier().verify(token)).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringContaining('revoked') });
    await store.put('Grant', 'grant-1', { accountId: 'ada@example.com' });
    await expect(verifier().verify(await mint({ gid: null }))).rejects.toMatchObject({ code: 'invalid_token' });
  });

  it('refuses at once a token whose account the running allowlist no longer admits', async () => {
    const token = await mint();
    allowed.delete('ada@example.com');
    await expect(verifier().verify(token)).rejects.toMatchObject({ code: 'invalid_token', message: expect.stringContaining('no longer allowed') });
  });
});
