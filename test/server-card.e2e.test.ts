// GET /.well-known/mcp/server-card.json on a real listening server: what Smithery and other directories
// read before they connect. It must name the endpoint, list exactly the tools tools/list returns, say
// what authorization /mcp needs, and be valid against the Server Card draft's schema (kept as a fixture,
// see test/fixtures/README.md).
import { readFileSync } from 'node:fs';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };
import { SERVER_CARD_MEDIA_TYPE, SERVER_CARD_PATH } from '../src/http/routes/server-card.js';
import { deploymentIdentity } from '../src/mcp/server-identity.js';
import { startProtectedServer } from './support/protected-server.js';
import type { ProtectedServer } from './support/protected-server.js';
import { modernRequest } from './support/modern-mcp.js';
import { connectClient, startTestServer } from './support/test-server.js';
import type { TestServer } from './support/test-server.js';

interface Card {
  name: string;
  title: string;
  version: string;
  description: string;
  remotes: Array<{ type: string; url: string; supportedProtocolVersions: string[]; headers?: Array<{ name: string; value?: string }> }>;
  _meta: Record<string, { authorization: { type: string; protectedResourceMetadata?: string }; tools: Array<Record<string, unknown>> }>;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const cardSchema = JSON.parse(readFileSync(new URL('./fixtures/server-card.schema.json', import.meta.url), 'utf8')) as object;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
ajv.addSchema(cardSchema, 'server-card');
const validateCard = ajv.getSchema('server-card#/$defs/ServerCard')!;

const getCard = (base: string, headers: Record<string, string> = {}) => fetch(`${base}${SERVER_CARD_PATH}`, { headers });
const cardOf = async (base: string) => (await (await getCard(base)).json()) as Card;
const extension = (card: Card) => card._meta[card.name]!;

describe('GET /.well-known/mcp/server-card.json', () => {
  let server: TestServer;
  let card: Card;
  let response: Response;

  beforeAll(async () => {
    server = await startTestServer({ serverInfo: { name: 'corpus-mcp', version: pkg.version } });
    response = await getCard(server.url);
    card = (await response.clone().json()) as Card;
  });
  afterAll(() => server?.close());

  it('is served publicly: 200, CORS for any origin, cacheable, with an ETag', () => {
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(response.headers.get('etag')).toBeTruthy();
  });

  it("is a valid card under the draft's schema, with the server's identity and version", () => {
    expect(validateCard(card), JSON.stringify(validateCard.errors)).toBe(true);
    expect(card).toMatchObject({ name: '127.0.0.1/corpus-mcp', title: 'Corpus at 127.0.0.1', description: deploymentIdentity(server.url).description, version: pkg.version });
  });

  it("describes the deployment, not server.json's placeholder namespace", async () => {
    expect(await (await getCard(server.url)).text()).not.toContain('change-me');
    expect(Object.keys(card._meta)).toEqual([card.name]);
  });

  it('names the MCP endpoint, where a real client then connects', async () => {
    expect(card.remotes).toHaveLength(1);
    expect(card.remotes[0]).toMatchObject({ type: 'streamable-http', url: server.mcpUrl.href });
    const { client } = await connectClient(new URL(card.remotes[0]!.url));
    try {
      expect(client.getServerVersion()?.version).toBe(card.version);
    } finally {
      await client.close();
    }
  });

  it('lists exactly the tools tools/list returns, with their titles, descriptions and annotations', async () => {
    const { client } = await connectClient(server.mcpUrl);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThan(0);
      expect(extension(card).tools).toEqual(tools.map(({ name, title, description, annotations }) => ({ name, title, description, annotations })));
    } finally {
      await client.close();
    }
  });

  it('lists the protocol versions served: what server/discover answers, then those initialize negotiates', async () => {
    const { message } = await modernRequest(server.mcpUrl, { method: 'server/discover' });
    const modern = message!.result!.supportedVersions as string[];
    expect(card.remotes[0]!.supportedProtocolVersions).toEqual([...modern, ...SUPPORTED_PROTOCOL_VERSIONS]);
  });

  it('says no authorization is needed when /mcp needs none', () => {
    expect(extension(card).authorization).toEqual({ type: 'none' });
    expect(card.remotes[0]!.headers).toBeUndefined();
  });

  it('answers 304 to If-None-Match with its ETag, keeping the CORS header', async () => {
    const again = await getCard(server.url, { 'if-none-match': response.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("answers in the draft's media type to a client that asks for it, and to a CORS preflight", async () => {
    const typed = await getCard(server.url, { accept: SERVER_CARD_MEDIA_TYPE });
    expect(typed.headers.get('content-type')).toBe(SERVER_CARD_MEDIA_TYPE);
    const preflight = await fetch(`${server.url}${SERVER_CARD_PATH}`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('If-None-Match');
  });
});

describe('the server card of a deployment', () => {
  it('is named and titled after PUBLIC_URL, and valid under the schema', async () => {
    const deployed = await startProtectedServer({ AUTH_TOKENS: 'card-test-token-'.padEnd(40, 'y'), HOST: '0.0.0.0', PUBLIC_URL: 'https://docs.example.com', SESSION_SECRET: 's'.repeat(32) });
    try {
      const card = await cardOf(deployed.url);
      expect(card).toMatchObject({ name: 'com.example.docs/corpus-mcp', title: 'Corpus at docs.example.com' });
      expect(card.remotes[0]!.url).toBe('https://docs.example.com/mcp');
      expect(validateCard(card), JSON.stringify(validateCard.errors)).toBe(true);
    } finally {
      await deployed.close();
    }
  });

  it.each([
    ['https://docs.example.com/', 'com.example.docs/corpus-mcp'],
    ['https://corpus-mcp-team.fly.dev', 'dev.fly.corpus-mcp-team/corpus-mcp'],
    ['http://localhost:8080', 'localhost/corpus-mcp'],
    ['http://[::1]:8080', '--1/corpus-mcp'],
  ])('derives from %s the name %s', (publicUrl, name) => {
    expect(deploymentIdentity(publicUrl).name).toBe(name);
    expect(name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  });
});

describe('the server card with authentication on', () => {
  const TOKEN = 'card-test-token-'.padEnd(40, 'x');
  let staticTokens: ProtectedServer;
  let oauth: ProtectedServer;

  beforeAll(async () => {
    staticTokens = await startProtectedServer({ AUTH_TOKENS: TOKEN });
    // The issuer is never contacted: no token is presented.
    oauth = await startProtectedServer({ OAUTH_ISSUER: 'http://127.0.0.1:9/realms/corp' });
  });
  afterAll(async () => {
    await staticTokens?.close();
    await oauth?.close();
  });

  it('is served without a token, and says a bearer token from the operator goes in the Authorization header', async () => {
    const response = await getCard(staticTokens.url);
    expect(response.status).toBe(200);
    const card = (await response.json()) as Card;
    expect(extension(card).authorization).toEqual({ type: 'bearer' });
    expect(card.remotes[0]!.headers).toEqual([expect.objectContaining({ name: 'Authorization', value: 'Bearer {token}' })]);
    expect(validateCard(card), JSON.stringify(validateCard.errors)).toBe(true);
  });

  it("points an OAuth client at the protected resource metadata the 401's challenge names", async () => {
    const card = await cardOf(oauth.url);
    const challenge = (await fetch(oauth.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate') ?? '';
    const named = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(named).toMatch(/^http:\/\/.*\/.well-known\/oauth-protected-resource\/mcp$/);
    expect(extension(card).authorization).toEqual({ type: 'oauth2', protectedResourceMetadata: named });
    expect((await fetch(`${oauth.url}${new URL(named!).pathname}`)).status).toBe(200); // served here; PUBLIC_URL is the default
    expect(card.remotes[0]!.headers).toBeUndefined();
  });
});
