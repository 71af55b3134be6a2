// What MCP directories (Smithery, the Claude connector directory) check before they list a server, on
// real listening servers: every tool is titled and declared read-only and non-destructive, in both
// protocol eras; and /mcp without valid credentials answers 401 (so a scanner starts the OAuth flow or
// asks for a token), never 403, whichever authentication is configured.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTools } from '../src/mcp/tools/create-tools.js';
import { DEFAULT_TOOL_LIMITS } from '../src/mcp/tools/tool-limits.js';
import { startAuthorizationServer } from './helpers/authorization-server.js';
import type { TestAuthorizationServer } from './helpers/authorization-server.js';
import { startProtectedServer } from './helpers/protected-server.js';
import type { ProtectedServer } from './helpers/protected-server.js';
import { freePort, startSignInServer } from './helpers/sign-in.js';
import type { SignInServer } from './helpers/sign-in.js';
import { envelope, MODERN_VERSION, modernRequest } from './support/modern-mcp.js';
import { initializeBody } from './support/raw-mcp.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';

const DIRECTORY_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false };

describe('every tool is titled, read-only and not destructive', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.close());

  it('in tools/list of the 2025 era (SDK 1.x client)', async () => {
    const { client } = await connectClient(server.mcpUrl);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      for (const tool of tools) {
        expect(tool.title, tool.name).toMatch(/\S/);
        expect(tool.annotations, tool.name).toMatchObject(DIRECTORY_ANNOTATIONS);
      }
    } finally {
      await client.close();
    }
  });

  it('in tools/list of the 2026-07-28 era', async () => {
    const { message } = await modernRequest(server.mcpUrl, { method: 'tools/list' });
    const tools = message!.result!.tools as Array<{ name: string; title?: string; annotations?: Record<string, unknown> }>;
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/\S/);
      expect(tool.annotations, tool.name).toMatchObject(DIRECTORY_ANNOTATIONS);
    }
  });

  it.each([false, true])('in the tool table whether or not semantic search is on (semanticSearch %s)', (semanticSearch) => {
    for (const { listing } of createTools(DEFAULT_TOOL_LIMITS, { semanticSearch })) {
      expect(listing.title, listing.name).toMatch(/\S/);
      expect(listing.annotations, listing.name).toMatchObject(DIRECTORY_ANNOTATIONS);
    }
  });
});

/** Every way to reach /mcp without valid credentials, with the credentials given. */
function unauthenticatedRequests(mcpUrl: URL): Array<[string, () => Promise<Response>]> {
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = (body: unknown, headers: Record<string, string> = {}) => fetch(mcpUrl, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
  const modern = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } };
  const modernHeaders = { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' };
  return [
    ['a 2025 initialize without credentials', () => post(initializeBody())],
    ['a 2026-07-28 tools/list without credentials', () => post(modern, modernHeaders)],
    ['a GET stream without credentials', () => fetch(mcpUrl, { headers: { accept: 'text/event-stream' } })],
    ['a DELETE without credentials', () => fetch(mcpUrl, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } })],
    ['an unknown bearer token', () => post(initializeBody(), { authorization: `Bearer ${randomBytes(32).toString('hex')}` })],
    ['a JWT-shaped bearer token no issuer signed', () => post(modern, { ...modernHeaders, authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' })],
    ['another scheme (Basic)', () => post(initializeBody(), { authorization: `Basic ${Buffer.from('user:pass').toString('base64')}` })],
  ];
}

async function expectAll401(mcpUrl: URL): Promise<void> {
  for (const [what, send] of unauthenticatedRequests(mcpUrl)) {
    const response = await send();
    await response.body?.cancel();
    expect(response.status, what).toBe(401);
    expect(response.headers.get('www-authenticate'), what).toMatch(/^Bearer\b/);
  }
}

describe('unauthenticated /mcp answers 401, never 403', () => {
  let staticTokens: ProtectedServer;
  let as: TestAuthorizationServer;
  let oauth: ProtectedServer;
  let signIn: SignInServer;
  let dataDir: string;

  beforeAll(async () => {
    staticTokens = await startProtectedServer({ AUTH_TOKENS: randomBytes(32).toString('hex') });
    as = await startAuthorizationServer({ audience: 'https://docs.example.com/mcp' });
    oauth = await startProtectedServer({ PUBLIC_URL: 'https://docs.example.com', OAUTH_ISSUER: as.issuer, OAUTH_REQUIRED_SCOPES: 'docs:read' });
    dataDir = await mkdtemp(join(tmpdir(), 'corpus-directory-rules-'));
    // The upstream identity provider is contacted only when someone signs in, which nobody does here.
    signIn = await startSignInServer(
      {
        LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'http://127.0.0.1:9', LOGIN_CLIENT_ID: 'directory-rules', LOGIN_CLIENT_SECRET: randomBytes(16).toString('hex'),
        ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: randomBytes(32).toString('hex'),
      },
      { port: await freePort(), dataDir },
    );
  });
  afterAll(async () => {
    await staticTokens?.close();
    await oauth?.close();
    await as?.close();
    await signIn?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('with static tokens (AUTH_TOKENS)', () => expectAll401(staticTokens.mcpUrl));

  it('with an external OAuth authorization server (OAUTH_ISSUER), expired and foreign-audience tokens included', async () => {
    await expectAll401(oauth.mcpUrl);
    const now = Math.floor(Date.now() / 1000);
    // The setup accepts a good token, and keeps 403 for the one case RFC 6750 gives it: a valid token
    // that lacks the scope (the caller is known, and signing in again would not help).
    for (const [what, claims, status] of [
      ['a valid token', { scope: 'docs:read' }, 200],
      ['a valid token without the scope', { scope: 'profile' }, 403],
      ['an expired token', { scope: 'docs:read', iat: now - 7200, exp: now - 3600 }, 401],
      ['a token for another resource', { scope: 'docs:read', aud: 'https://other.example.com/mcp' }, 401],
    ] as const) {
      const token = await as.mint(claims);
      const response = await fetch(oauth.mcpUrl, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify(initializeBody()),
      });
      await response.body?.cancel();
      expect(response.status, what).toBe(status);
    }
  });

  it('with the built-in sign-in (LOGIN_PROVIDER)', () => expectAll401(signIn.mcpUrl));
});
