import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer } from '../../test/support/authorization-server.js';
import type { TestAuthorizationServer } from '../../test/support/authorization-server.js';
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
        id: 'oauth:sub:alice',
        kind: 'oauth',
        scopes: ['docs:read', 'docs:search'],
        clientId: 'claude',
        expiresAt: exp,
      });
    });

    it('discovers the JWKS through OpenID Connect metadata and accepts ES256 with scopes in an scp array', async () => {
      const token = await es.mint({ sub: 'bob', azp: 'cursor', scp: ['docs:read'] });
      expect(await verifierFor(es).verify(token)).toMatchObject({ id: 'oauth:sub:bob', clientId: 'cursor', scopes: ['docs:read'] });
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

    describe('judges what it can before any network I/O', () => {
      let fresh: TestAuthorizationServer;
      beforeAll(async () => {
        fresh = await startAuthorizationServer({ audience });
      });
      afterAll(async () => fresh.close());
      const requests = () => fresh.metadataRequests.length + fresh.jwksRequests;

      it.each([
        ['an opaque string', async () => 'opaque-token-0123456789', /not a signed JWT/],
        ['two parts', async () => 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0', /not a signed JWT/],
        ['a header that is not JSON', async () => 'bm90LWpzb24.eyJzdWIiOiJ4In0.c2ln', /not a signed JWT/],
        ['RFC 8725 §3.1: an unsigned token (alg none, empty signature)', async () => fresh.mintUnsigned({}), /not a signed JWT/],
        ['RFC 8725 §3.1: an HS256 token keyed with the public key', async () => fresh.mintWithPublicKeyAsHmacSecret({}), /signature algorithm is not accepted/],
      ])('refuses %s as invalid_token without asking the issuer anything', async (_name, token, message) => {
        const error = await failure(verifierFor(fresh).verify(await token()));
        expect(error.code).toBe('invalid_token');
        expect(error.message).toMatch(message);
        expect(requests()).toBe(0);
      });
    });

    it('RFC 8725 §3.1: refuses alg none even with a fake signature part', async () => {
      const unsigned = as.mintUnsigned({});
      const error = await failure(verifierFor(as).verify(`${unsigned}c2lnbmF0dXJl`));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toContain('signature algorithm is not accepted');
    });

    it('RFC 7519 §4.1.6, RFC 8725 §3.10: refuses a token issued in the future beyond the clock tolerance', async () => {
      const now = Math.floor(Date.now() / 1000);
      const error = await failure(verifierFor(as).verify(await as.mint({ iat: now + 120 })));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toContain('"iat" claim is in the future');
      await expect(verifierFor(as).verify(await as.mint({ iat: now + 20 }))).resolves.toMatchObject({ kind: 'oauth' });
    });

    it('RFC 7519 §4.1.5: refuses a token that is not valid yet (nbf in the future beyond the tolerance)', async () => {
      const now = Math.floor(Date.now() / 1000);
      const error = await failure(verifierFor(as).verify(await as.mint({ nbf: now + 120 })));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toContain('"nbf"');
      await expect(verifierFor(as).verify(await as.mint({ nbf: now + 20 }))).resolves.toMatchObject({ kind: 'oauth' });
    });

    it.each([
      ['exp', -25, true],
      ['exp', -35, false],
      ['nbf', 25, true],
      ['nbf', 35, false],
      ['iat', 25, true],
      ['iat', 35, false],
    ] as const)('clock tolerance of 30 s: %s at now%+d s is accepted: %s', async (claim, offset, accepted) => {
      const now = Math.floor(Date.now() / 1000);
      const token = await as.mint({ [claim]: now + offset, ...(claim === 'exp' ? {} : { exp: now + 600 }) });
      const outcome = verifierFor(as, { clockToleranceSeconds: 30 }).verify(token);
      if (accepted) await expect(outcome).resolves.toMatchObject({ kind: 'oauth' });
      else expect((await failure(outcome)).code).toBe('invalid_token');
    });

    it('RFC 7515 §4.1.11: refuses a token with a critical header extension it does not understand', async () => {
      const token = await as.mint({}, { header: { crit: ['urn:example:unknown'], 'urn:example:unknown': true }, crit: { 'urn:example:unknown': true } });
      const error = await failure(verifierFor(as).verify(token));
      expect(error.code).toBe('invalid_token');
      expect(error.message).toBe('the token\'s header marks an extension as critical ("crit") that this server does not understand');
    });

    it('RFC 8725 §3.10: never fetches keys from a jku or x5u header, nor trusts an embedded jwk', async () => {
      const attacker = await startAuthorizationServer({ audience });
      try {
        const foreign = await attacker.foreignKey();
        for (const header of [{ jku: attacker.jwksUrl }, { x5u: `${attacker.issuer}/x5u` }, { jwk: foreign.publicJwk }]) {
          const token = await as.mint({}, { key: foreign, kid: 'key-1', header });
          const error = await failure(verifierFor(as).verify(token));
          expect(error.code).toBe('invalid_token');
          expect(error.message).toBe('the token signature is invalid');
        }
        expect(attacker.jwksRequests + attacker.metadataRequests.length).toBe(0);
      } finally {
        await attacker.close();
      }
    });

    it("keeps subjects and client ids apart: a client whose id equals a user's sub is another principal", async () => {
      const user = await verifierFor(as).verify(await as.mint({ sub: 'claude', client_id: 'other-app' }));
      const client = await verifierFor(as).verify(await as.mint({ sub: undefined, client_id: 'claude' }));
      expect(user.id).toBe('oauth:sub:claude');
      expect(client.id).toBe('oauth:client:claude');
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
        expect(await verifier.verify(token)).toMatchObject({ id: 'oauth:sub:after-rotation' });
        expect(rotating.jwksRequests).toBe(fetchesBefore + 1);
      } finally {
        await rotating.close();
      }
    });

    it('reports an unreachable issuer as temporarily_unavailable, not as a bad token, and asks it again only after the backoff', async () => {
      const server = await startAuthorizationServer({ audience });
      try {
        const token = await server.mint({});
        server.misbehave({ down: true });
        let clock = 0;
        const verifier = verifierFor(server, { now: () => clock, random: () => 0.5 });
        expect((await failure(verifier.verify(token))).code).toBe('temporarily_unavailable');
        // Both metadata URLs of an issuer without a path were tried once.
        expect(server.metadataRequests).toEqual(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']);
        expect((await failure(verifier.verify(token))).code).toBe('temporarily_unavailable');
        expect(server.metadataRequests).toHaveLength(2);
        clock = 30_001;
        server.misbehave({});
        await expect(verifier.verify(token)).resolves.toMatchObject({ kind: 'oauth' });
        expect(server.metadataRequests).toHaveLength(3);
        expect(server.jwksRequests).toBe(1);
      } finally {
        await server.close();
      }
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
