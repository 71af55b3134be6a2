import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer } from '../../test/support/authorization-server.js';
import type { TestAuthorizationServer } from '../../test/support/authorization-server.js';
import { AuthError } from './auth-error.js';
import { principalIdForToken } from './static-tokens.js';
import { createVerifier } from './verifier.js';

const audience = 'https://corpus.example/mcp';
const ciToken = 'ci-0123456789abcdef0123456789abcdef';
let as: TestAuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer({ audience });
});
afterAll(async () => {
  await as.close();
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'ok',
    (e: unknown) => (e instanceof AuthError ? e.code : `unexpected ${String(e)}`),
  );
}

describe('createVerifier', () => {
  describe('verify', () => {
    it('accepts static tokens and OAuth tokens side by side', async () => {
      const verifier = createVerifier({ staticTokens: [ciToken], oauth: { issuer: as.issuer, audience } });
      expect(await verifier.verify(`Bearer ${ciToken}`)).toEqual({ id: principalIdForToken(ciToken), kind: 'static', scopes: [] });
      expect(await verifier.verify(`bearer ${await as.mint({ sub: 'carol' })}`)).toMatchObject({ id: 'oauth:sub:carol', kind: 'oauth' });
    });

    it('applies required scopes to OAuth tokens only: static tokens are full access', async () => {
      const verifier = createVerifier({ staticTokens: [ciToken], oauth: { issuer: as.issuer, audience, requiredScopes: ['docs:read'] } });
      expect(verifier.requiredScopes).toEqual(['docs:read']);
      expect(await codeOf(verifier.verify(`Bearer ${ciToken}`))).toBe('ok');
      expect(await codeOf(verifier.verify(`Bearer ${await as.mint({})}`))).toBe('insufficient_scope');
    });

    it('refuses an unknown token as invalid_token when only static tokens are configured', async () => {
      const verifier = createVerifier({ staticTokens: [ciToken] });
      expect(await codeOf(verifier.verify(`Bearer ${ciToken.replace('ci', 'cj')}`))).toBe('invalid_token');
      expect(await codeOf(verifier.verify(`Bearer ${await as.mint({})}`))).toBe('invalid_token');
    });

    it.each([
      [undefined, 'missing_token'],
      ['Basic Y2k6dG9rZW4=', 'missing_token'],
      ['Bearer', 'invalid_request'],
      ['Bearer a b', 'invalid_request'],
    ])('RFC 6750 §3.1: header %j is refused as %s', async (header, code) => {
      const verifier = createVerifier({ staticTokens: [ciToken] });
      expect(await codeOf(verifier.verify(header))).toBe(code);
    });
  });

  describe('options', () => {
    it('fails at construction when nothing is configured', () => {
      expect(() => createVerifier({})).toThrow(/at least one static token or an OAuth issuer/);
    });

    it('fails at construction on a short static token', () => {
      expect(() => createVerifier({ staticTokens: ['short'] })).toThrow(/AUTH_TOKENS entry 1 is 5 characters/);
    });
  });
});
