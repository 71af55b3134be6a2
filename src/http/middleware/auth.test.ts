import { Hono } from 'hono';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { AuthError } from '../../auth/auth-error.js';
import { createVerifier } from '../../auth/verifier.js';
import type { Verifier } from '../../auth/verifier.js';
import { loadConfig } from '../../config/load-config.js';
import { silentLogger } from '../../logger.js';
import { createAuthentication } from '../authentication.js';
import { authErrorResponse, bearerAuth } from './auth.js';
import type { AuthVariables } from './auth.js';
import { requireMetricsToken } from './metrics-token.js';

const resource = 'https://docs.example.com/mcp';
const metadata = 'https://docs.example.com/.well-known/oauth-protected-resource/mcp';
const token = 'tok-0123456789abcdef0123456789abcdef';

describe('authErrorResponse', () => {
  it('RFC 6750 §3.1: missing credentials get 401 and a bare Bearer challenge with resource_metadata and no error', async () => {
    const response = authErrorResponse(new AuthError('missing_token', 'no token'), { resourceMetadataUrl: metadata });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}"`);
    expect(await response.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('MCP 2025-11-25: adds scope= to the bare challenge when scopes are required', () => {
    const response = authErrorResponse(new AuthError('missing_token', 'no token'), { resourceMetadataUrl: metadata, requiredScopes: ['a', 'b'] });
    expect(response.headers.get('www-authenticate')).toBe(`Bearer scope="a b", resource_metadata="${metadata}"`);
  });

  it('RFC 6750 §3: keeps error_description a valid quoted-string whatever the message holds', () => {
    const response = authErrorResponse(new AuthError('invalid_token', 'bad "aud" \\ é\n'), { resourceMetadataUrl: metadata });
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="bad 'aud' / ??", resource_metadata="${metadata}"`,
    );
  });

  it.each([
    ['invalid_request', 400],
    ['invalid_token', 401],
    ['insufficient_scope', 403],
  ] as const)('RFC 6750 §3.1: %s maps to %i with that error code', async (code, status) => {
    const response = authErrorResponse(new AuthError(code, 'why', { requiredScopes: ['docs:read'] }), { resourceMetadataUrl: metadata });
    expect(response.status).toBe(status);
    expect(response.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer error="${code}", error_description="why"`));
    expect(await response.json()).toEqual({ error: code, error_description: 'why' });
  });

  it('answers an unreachable authorization server with 503 and no challenge, so clients do not re-authorise', async () => {
    const response = authErrorResponse(new AuthError('temporarily_unavailable', 'internal detail'), { resourceMetadataUrl: metadata });
    expect(response.status).toBe(503);
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(response.headers.get('retry-after')).toBe('10');
    expect(JSON.stringify(await response.json())).not.toContain('internal detail');
  });
});

describe('bearerAuth', () => {
  const app = new Hono<{ Variables: AuthVariables }>();
  const refused: string[] = [];
  let ran = 0;
  app.use('/mcp', bearerAuth({ verifier: createVerifier({ staticTokens: [token] }), resource, onRefused: (r) => refused.push(r) }));
  app.post('/mcp', (c) => {
    ran += 1;
    return c.json({ principal: c.get('principal'), authInfo: c.get('authInfo') });
  });

  it('lets a valid token through with the principal and an AuthInfo that does not carry the token', async () => {
    const response = await app.request('/mcp', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { principal: { id: string }; authInfo: { token: string; clientId: string } };
    expect(body.authInfo.token).toBe('');
    expect(body.authInfo.clientId).toBe(body.principal.id);
    expect(JSON.stringify(body)).not.toContain(token);
  });

  it('RFC 6750 §2.3 not supported: a token in the query string counts as no credentials and the handler does not run', async () => {
    const before = ran;
    const response = await app.request(`/mcp?access_token=${token}`, { method: 'POST' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadata}"`);
    expect(ran).toBe(before);
    expect(refused.at(-1)).toBe('missing_token');
  });
});

describe('bearerAuth error log', () => {
  const unavailable: Verifier = {
    requiredScopes: [],
    verify: async () => {
      throw new AuthError('temporarily_unavailable', 'could not fetch the signing keys');
    },
  };
  function appLogging(errorLogIntervalMs: number) {
    const lines: Array<{ level: string; fields: Record<string, unknown> }> = [];
    const record = (level: string) => (fields: Record<string, unknown>) => lines.push({ level, fields });
    const logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
    const app = new Hono();
    app.use('/mcp', bearerAuth({ verifier: unavailable, resource, logger, errorLogIntervalMs }));
    app.post('/mcp', (c) => c.text('ran'));
    const errors = () => lines.filter((l) => l.level === 'error');
    return { app, errors };
  }

  it('writes at most one error line per interval while tokens cannot be checked, then says how many it left out', async () => {
    // The interval is read from Date: moved by hand, so a slow machine cannot stretch the burst past it.
    vi.useFakeTimers({ toFake: ['Date'] });
    onTestFinished(() => void vi.useRealTimers());
    const { app, errors } = appLogging(200);
    for (let i = 0; i < 20; i++) expect((await app.request('/mcp', { method: 'POST', headers: { authorization: `Bearer ${token}` } })).status).toBe(503);
    expect(errors()).toHaveLength(1);
    vi.advanceTimersByTime(199);
    await app.request('/mcp', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(errors()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await app.request('/mcp', { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(errors()).toHaveLength(2);
    expect(errors()[1]!.fields).toMatchObject({ code: 'temporarily_unavailable', suppressed: 20 });
  });
});

describe('createAuthentication', () => {
  it('warns at boot when OAUTH_AUDIENCE is not the resource URL, and not when it is', () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_fields: unknown, message?: string) => void warnings.push(message ?? '') };
    const env = { PUBLIC_URL: 'https://docs.example.com', OAUTH_ISSUER: 'https://as.example.com' };
    createAuthentication({ auth: loadConfig(env).auth, logger });
    expect(warnings).toEqual([]);
    createAuthentication({ auth: loadConfig({ ...env, OAUTH_AUDIENCE: 'api://corpus' }).auth, logger });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('OAUTH_AUDIENCE is not this server\'s resource URL https://docs.example.com/mcp');
  });
});

describe('requireMetricsToken', () => {
  const app = new Hono();
  app.use('/metrics', requireMetricsToken({ token }));
  app.get('/metrics', (c) => c.text('# metrics'));

  it('serves metrics to the METRICS_TOKEN bearer only', async () => {
    expect((await app.request('/metrics', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const wrong = await app.request('/metrics', { headers: { authorization: `Bearer ${token}x` } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer realm="metrics", error="invalid_token"/);
    const none = await app.request('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
  });

  it('fails at construction on a short token', () => {
    expect(() => requireMetricsToken({ token: 'short' })).toThrow(/METRICS_TOKEN entry 1 is 5 characters/);
  });
});
