import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer } from '../../test/support/authorization-server.js';
import type { TestAuthorizationServer } from '../../test/support/authorization-server.js';
import { AuthError } from './auth-error.js';
import { authorizationServerMetadataUrls, discoverJwksUri } from './authorization-server-metadata.js';
import { MAX_AUTH_DOCUMENT_BYTES } from './fetch-json.js';

describe('authorizationServerMetadataUrls', () => {
  it('RFC 8414 §3.1: for an issuer without a path, tries oauth-authorization-server then openid-configuration', () => {
    expect(authorizationServerMetadataUrls('https://as.example')).toEqual([
      'https://as.example/.well-known/oauth-authorization-server',
      'https://as.example/.well-known/openid-configuration',
    ]);
  });

  it('RFC 8414 §3.1: removes a terminating slash, so https://tenant.auth0.com/ has no path', () => {
    expect(authorizationServerMetadataUrls('https://tenant.auth0.com/')).toEqual([
      'https://tenant.auth0.com/.well-known/oauth-authorization-server',
      'https://tenant.auth0.com/.well-known/openid-configuration',
    ]);
  });

  it('MCP 2025-11-25 discovery: for an issuer with a path, inserts the well-known segment first, then appends for OpenID', () => {
    expect(authorizationServerMetadataUrls('https://kc.example/realms/corp/')).toEqual([
      'https://kc.example/.well-known/oauth-authorization-server/realms/corp',
      'https://kc.example/.well-known/openid-configuration/realms/corp',
      'https://kc.example/realms/corp/.well-known/openid-configuration',
    ]);
  });
});

describe('discoverJwksUri', () => {
  let oauth: TestAuthorizationServer;
  let openid: TestAuthorizationServer;
  let liar: TestAuthorizationServer;
  beforeAll(async () => {
    [oauth, openid, liar] = await Promise.all([
      startAuthorizationServer({ metadata: 'oauth', issuerPath: '/tenant1' }),
      startAuthorizationServer({ metadata: 'openid', issuerPath: '/realms/corp' }),
      startAuthorizationServer({ metadataIssuer: 'https://evil.example' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([oauth.close(), openid.close(), liar.close()]);
  });

  it('RFC 8414 §3: finds jwks_uri in authorization server metadata at the path-inserted URL', async () => {
    expect(await discoverJwksUri(oauth.issuer)).toBe(oauth.jwksUrl);
    expect(oauth.metadataRequests[0]).toBe('/.well-known/oauth-authorization-server/tenant1');
  });

  it('OpenID Connect Discovery §4: falls back to openid-configuration (Keycloak-style path appending)', async () => {
    expect(await discoverJwksUri(openid.issuer)).toBe(openid.jwksUrl);
    expect(openid.metadataRequests).toContain('/.well-known/openid-configuration/realms/corp');
  });

  it('RFC 8414 §3.3: refuses metadata whose issuer differs from the configured one', async () => {
    const error = await discoverJwksUri(liar.issuer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthError);
    expect((error as AuthError).code).toBe('temporarily_unavailable');
    expect((error as AuthError).message).toContain('"https://evil.example"');
  });

  it('names every URL tried when nothing answers, and suggests OAUTH_JWKS_URL', async () => {
    const error = (await discoverJwksUri('http://127.0.0.1:9/x', { timeoutMs: 2000 }).catch((e: unknown) => e)) as AuthError;
    expect(error.code).toBe('temporarily_unavailable');
    expect(error.message).toContain('http://127.0.0.1:9/.well-known/oauth-authorization-server/x');
    expect(error.message).toContain('http://127.0.0.1:9/x/.well-known/openid-configuration');
    expect(error.message).toContain('OAUTH_JWKS_URL');
  });

  describe('what it refuses to follow', () => {
    let as: TestAuthorizationServer;
    beforeAll(async () => {
      as = await startAuthorizationServer();
    });
    afterAll(async () => as.close());
    afterEach(() => as.misbehave({}));

    it('does not follow a redirect, even to a valid document', async () => {
      const target = await startAuthorizationServer();
      try {
        as.misbehave({ redirectMetadataTo: `${target.issuer}/.well-known/oauth-authorization-server` });
        const error = (await discoverJwksUri(as.issuer, { timeoutMs: 2000 }).catch((e: unknown) => e)) as AuthError;
        expect(error.code).toBe('temporarily_unavailable');
        expect(error.message).toContain('HTTP 302 (a redirect, which is not followed)');
        expect(target.metadataRequests).toEqual([]);
      } finally {
        await target.close();
      }
    });

    it(`refuses a document larger than ${MAX_AUTH_DOCUMENT_BYTES} bytes`, async () => {
      as.misbehave({ metadataPadding: MAX_AUTH_DOCUMENT_BYTES });
      const error = (await discoverJwksUri(as.issuer, { timeoutMs: 2000 }).catch((e: unknown) => e)) as AuthError;
      expect(error.code).toBe('temporarily_unavailable');
      expect(error.message).toContain(`more than the ${MAX_AUTH_DOCUMENT_BYTES}`);
    });

    it('accepts an http jwks_uri only for an http (loopback) issuer on its own host', async () => {
      as.misbehave({ jwksUri: 'http://keys.example/jwks' });
      const error = (await discoverJwksUri(as.issuer, { timeoutMs: 2000 }).catch((e: unknown) => e)) as AuthError;
      expect(error.message).toContain('its jwks_uri "http://keys.example/jwks" is not https');
    });

    it('RFC 8414 §2: refuses a plain-http jwks_uri discovered from an https issuer', async () => {
      // No TLS server here: the https issuer's metadata is answered in process.
      const issuer = 'https://as.example';
      const body = { issuer, jwks_uri: 'http://as.example/jwks' };
      const viaHttps = async () => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
      const error = (await discoverJwksUri(issuer, { fetch: viaHttps, timeoutMs: 2000 }).catch((e: unknown) => e)) as AuthError;
      expect(error.code).toBe('temporarily_unavailable');
      expect(error.message).toContain('its jwks_uri "http://as.example/jwks" is not https');
      body.jwks_uri = 'https://as.example/jwks';
      expect(await discoverJwksUri(issuer, { fetch: viaHttps, timeoutMs: 2000 })).toBe('https://as.example/jwks');
    });
  });
});
