import { describe, expect, it } from 'vitest';
import { checkClientMetadataLimits, CLIENT_METADATA_LIMITS } from './client-metadata-limits.js';

const claude = { client_name: 'Claude', redirect_uris: ['https://claude.ai/api/mcp/auth_callback'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };

describe('checkClientMetadataLimits', () => {
  it('accepts a registration such as Claude sends', () => {
    expect(() => checkClientMetadataLimits(claude)).not.toThrow();
  });

  it.each([
    { name: 'a client_name over its limit', metadata: { ...claude, client_name: 'x'.repeat(CLIENT_METADATA_LIMITS.clientNameChars + 1) }, error: 'invalid_client_metadata', field: 'client_name' },
    { name: 'a localised client_name over its limit', metadata: { ...claude, 'client_name#fr': 'x'.repeat(CLIENT_METADATA_LIMITS.clientNameChars + 1) }, error: 'invalid_client_metadata', field: 'client_name#fr' },
    { name: 'too many redirect URIs', metadata: { ...claude, redirect_uris: Array.from({ length: CLIENT_METADATA_LIMITS.listEntries + 1 }, (_, i) => `https://a.example/${i}`) }, error: 'invalid_redirect_uri', field: 'redirect_uris' },
    { name: 'a long redirect URI', metadata: { ...claude, redirect_uris: [`https://a.example/${'x'.repeat(CLIENT_METADATA_LIMITS.stringChars)}`] }, error: 'invalid_redirect_uri', field: 'redirect_uris' },
    { name: 'a long URL field', metadata: { ...claude, tos_uri: `https://a.example/${'x'.repeat(CLIENT_METADATA_LIMITS.stringChars)}` }, error: 'invalid_client_metadata', field: 'tos_uri' },
    {
      name: 'metadata over the total size, every field within its own limit',
      metadata: { ...claude, ...Object.fromEntries(['client_uri', 'logo_uri', 'tos_uri', 'policy_uri', 'jwks_uri'].map((f) => [f, `https://a.example/${'x'.repeat(1900)}`])) },
      error: 'invalid_client_metadata', field: 'client metadata',
    },
  ])('refuses $name with $error, naming the field', ({ metadata, error, field }) => {
    let thrown: unknown;
    try {
      checkClientMetadataLimits(metadata);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ status: 400, message: error, error_description: expect.stringContaining(field) });
  });
});
