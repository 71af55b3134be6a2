import { errors } from 'oidc-provider';
import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_PARAMETER_LIMITS, authorizationParameterLimits, checkAuthorizationParameters } from './authorization-request-limits.js';

const { stateChars, urlChars, idTokenHintChars, otherChars, totalChars } = AUTHORIZATION_PARAMETER_LIMITS;
const claude = {
  response_type: 'code', client_id: 'Vq3kR8mX2pL9nT4wYz6bC', redirect_uri: 'https://claude.ai/api/mcp/auth_callback', scope: 'mcp offline_access',
  state: 'x'.repeat(43), code_challenge: 'y'.repeat(43), code_challenge_method: 'S256', resource: 'https://docs.example.com/mcp',
};
const refusal = (params: Record<string, unknown>) => {
  try {
    checkAuthorizationParameters(params);
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('checkAuthorizationParameters', () => {
  it('accepts the parameters MCP clients send', () => {
    expect(refusal(claude)).toBeUndefined();
  });

  it.each([
    { name: 'state', limit: stateChars },
    { name: 'nonce', limit: otherChars },
    { name: 'login_hint', limit: otherChars },
    { name: 'scope', limit: otherChars },
    { name: 'prompt', limit: otherChars },
    { name: 'acr_values', limit: otherChars },
    { name: 'ui_locales', limit: otherChars },
    { name: 'claims_locales', limit: otherChars },
    { name: 'code_challenge', limit: otherChars },
    { name: 'id_token_hint', limit: idTokenHintChars },
    { name: 'redirect_uri', limit: urlChars },
    { name: 'client_id', limit: urlChars },
  ])('accepts $name of $limit characters and refuses one more with invalid_request naming it', ({ name, limit }) => {
    expect(refusal({ ...claude, [name]: 'a'.repeat(limit) })).toBeUndefined();
    const error = refusal({ ...claude, [name]: 'a'.repeat(limit + 1) });
    expect(error).toBeInstanceOf(errors.InvalidRequest);
    expect(error).toMatchObject({ error: 'invalid_request', statusCode: 400, error_description: `${name} has ${limit + 1} characters; at most ${limit} are accepted` });
  });

  it('counts each resource indicator (a list) on its own', () => {
    expect(refusal({ ...claude, resource: ['https://a.example/mcp', 'r'.repeat(urlChars + 1)] })).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses parameters that are each within their limits but too many together', () => {
    const many = Object.fromEntries(['nonce', 'login_hint', 'acr_values', 'ui_locales', 'claims_locales', 'display', 'max_age', 'prompt'].map((n) => [n, 'a'.repeat(otherChars)]));
    const params = { ...claude, ...many, state: 'a'.repeat(stateChars), id_token_hint: 'a'.repeat(idTokenHintChars) };
    const error = refusal(params) as { error_description?: string } | undefined;
    expect(error).toMatchObject({ error: 'invalid_request' });
    expect(error?.error_description).toContain(`at most ${totalChars} are accepted`);
  });

  it('ignores parameters without a value', () => {
    expect(refusal({ ...claude, nonce: undefined, login_hint: undefined })).toBeUndefined();
  });
});

describe('authorizationParameterLimits', () => {
  it('is registered under an authorization parameter oidc-provider already accepts, and checks every parameter of the request', async () => {
    expect(Object.keys(authorizationParameterLimits)).toEqual(['state']);
    const params = { ...claude, login_hint: 'a'.repeat(otherChars + 1), toPlainObject() { return { ...claude, login_hint: this.login_hint }; } };
    let thrown: unknown;
    try {
      authorizationParameterLimits.state({ oidc: { params } });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining(`login_hint has ${otherChars + 1} characters`) });
  });
});
