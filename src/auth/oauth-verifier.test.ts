import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer } from '../../test/helpers/authorization-server.js';
import type { TestAuthorizationServer } from '../../test/helpers/authorization-server.js';
import { AuthError } from './auth-error.js';
import { createOAuthVerifier } from './oauth-verifier.js';
import type { OAuthVerifierOptions } from './oauth-verifier.js';

const audience = 'https://corpus.example/mcp';
let as: TestAuthorizationServer;
let es: TestAuthorizationServer;

beforeAll(async () => {
  [as, es] = await Promise.all([
    startAuthorizationServer({ audience }),
    startAuthorizationServer({ audience, alg: 'ES256', metadata: 'openid' }),
  ]);
});
afterAll(async () => {
  await Promise.all([as.close(), es.close()]);
});

const verifierFor = (server: TestAuthorizationServer, options: Partial<OAuthVerifierOptions> = {}) =>
  createOAuthVerifier({ issuer: server.issuer, audience, ...options });

async function failure(promise: Promise<unknown>): Promise<AuthError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  return error as AuthError;
}

describe('createOAuthVerifier', () => {
  describe('verify', () => {
    it('accepts a token signed by the issuer for this resource and reports who holds it', async () => {
      const exp = Math.floor(Date.now() / 1000) + 600;
      const token = await as.mint({ sub: 'alice', client_id: 'claude', scope: 'docs:read docs:search', exp });
      expect(await verifierFor(as).verify(token)).toEqual({
        id: 'oauth:alice',
        kind: 'oauth',
        scopes: ['docs:read', 'docs:search'],
        clientId: 'claude',
        expiresAt: exp,
      });
    });

    it('discovers the JWKS through OpenID Connect metadata and accepts ES256 with scopes in an scp array', async () => {
      const token = await es.mint({ sub: 'bob', azp: 'cursor', scp: ['docs:read'] });
      expect(await verifierFor(es).verify(token)).toMatchObject({ id: 'oauth:bob', clientId: 'cursor', scopes: ['docs:read'] });
    });

    it('uses OAUTH_JWKS_URL without any discovery when given', async () => {
      const before = as.metadataRequests.length;
      const token = await as.mint({});
      await verifierFor(as, { jwksUrl: as.jwksUrl }).verify(token);
      expect(as.metadataRequests.length).toBe(before);
    });

    it('RFC 8707: refuses a token minted for another resource', async () => {
      const token = await as.mint({ aud: 'https://other.example/mcp' });
      const error = await failure(verifierFor(as).verify(token));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toContain(audience);
    });

    it('accepts a token whose audience list includes this resource', async () => {
      const token = await as.mint({ aud: ['https://other.example', audience] });
      await expect(verifierFor(as).verify(token)).resolves.toMatchObject({ kind: 'oauth' });
    });

    it('RFC 9068 §4: refuses a token from another issuer', async () => {
      const token = await as.mint({ iss: 'https://evil.example' });
      expect((await failure(verifierFor(as).verify(token))).code).toBe('invalid_token');
    });

    it('RFC 7519 §4.1.4: refuses an expired token', async () => {
      const token = await as.mint({ exp: Math.floor(Date.now() / 1000) - 3600 });
      const error = await failure(verifierFor(as).verify(token));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toMatch(/expired at \d{4}-/);
    });

    it('refuses a token without exp, which would never expire', async () => {
      const token = await as.mint({}, { omitExp: true });
      const error = await failure(verifierFor(as).verify(token));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toContain('"exp"');
    });

    it('refuses a token signed by a foreign key, whether it reuses the real kid or names an unknown one', async () => {
      const foreign = await as.foreignKey();
      for (const kid of ['key-1', 'stranger']) {
        const token = await as.mint({}, { key: foreign, kid });
        expect((await failure(verifierFor(as, { jwksCooldownMs: 0 }).verify(token))).code).toBe('invalid_token');
      }
    });

    it('RFC 8725 §3.1: refuses an unsigned token (alg none)', async () => {
      const error = await failure(verifierFor(as).verify(as.mintUnsigned({})));
      expect(error.code).toBe('invalid_token');
    });

    it('RFC 8725 §3.1: refuses an HS256 token keyed with the public key', async () => {
      const token = await as.mintWithPublicKeyAsHmacSecret({});
      const error = await failure(verifierFor(as).verify(token));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toContain('algorithm');
    });

    it('refuses garbage as invalid_token', async () => {
      expect((await failure(verifierFor(as).verify('not.a.jwt'))).code).toBe('invalid_token');
      expect((await failure(verifierFor(as).verify('opaque-token-0123456789'))).code).toBe('invalid_token');
    });

    it('RFC 6750 §3.1: refuses a valid token lacking a required scope as insufficient_scope, listing the scopes', async () => {
      const token = await as.mint({ scope: 'docs:read' });
      const error = await failure(verifierFor(as, { requiredScopes: ['docs:read', 'docs:search'] }).verify(token));
      expect(error.code).toBe('insufficient_scope');
      expect(error.requiredScopes).toEqual(['docs:read', 'docs:search']);
    });

    it('refuses a token that identifies nobody (no sub, no client id)', async () => {
      const token = await as.mint({ sub: undefined });
      expect((await failure(verifierFor(as).verify(token))).message).toContain('"sub"');
    });

    it('picks up a key rotated into the JWKS (a new kid) once the refetch cooldown has passed', async () => {
      const rotating = await startAuthorizationServer({ audience });
      try {
        const verifier = verifierFor(rotating, { jwksCooldownMs: 0 });
        await verifier.verify(await rotating.mint({}));
        const fetchesBefore = rotating.jwksRequests;
        const kid = await rotating.rotateKey();
        const token = await rotating.mint({ sub: 'after-rotation' });
        expect(kid).toBe('key-2');
        expect(await verifier.verify(token)).toMatchObject({ id: 'oauth:after-rotation' });
        expect(rotating.jwksRequests).toBe(fetchesBefore + 1);
      } finally {
        await rotating.close();
      }
    });

    it('reports an unreachable issuer as temporarily_unavailable, not as a bad token, and retries discovery later', async () => {
      const server = await startAuthorizationServer({ audience });
      const token = await server.mint({});
      const { issuer } = server;
      await server.close();
      const verifier = createOAuthVerifier({ issuer, audience, timeoutMs: 2000 });
      expect((await failure(verifier.verify(token))).code).toBe('temporarily_unavailable');
      expect((await failure(verifier.verify(token))).code).toBe('temporarily_unavailable');
    });

    it('never puts the token in an error message', async () => {
      const token = await as.mint({ aud: 'https://other.example' });
      const error = await failure(verifierFor(as).verify(token));
      expect(error.message).not.toContain(token.split('.')[2]!);
    });
  });

  describe('options', () => {
    it('fails at construction on an issuer that is not a URL', () => {
      expect(() => createOAuthVerifier({ issuer: 'auth0 tenant', audience })).toThrow(/"auth0 tenant" is not an absolute URL/);
    });
  });
});
