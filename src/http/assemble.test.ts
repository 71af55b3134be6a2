import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { createLogger, silentLogger } from '../logger.js';
import { semanticServiceFromConfig } from '../semantic/semantic-from-config.js';
import { IndexHolder } from '../mcp/index-holder.js';
import { assembleServer } from './assemble.js';

describe('assembleServer', () => {
  it("serves operations' and authentication's open routes side by side, leaving operations' own router as operations built it", async () => {
    // With an authorization server, so that authentication has open routes (the metadata) to mount.
    const config = loadConfig({ AUTH_TOKENS: 't'.repeat(40), OAUTH_ISSUER: 'https://idp.example.com' });
    const { app, mcp, ops } = assembleServer({ config, semantic: semanticServiceFromConfig(config.semantic, silentLogger), holder: new IndexHolder(), logger: createLogger({ level: 'silent' }) });
    const metadata = '/.well-known/oauth-protected-resource/mcp';
    // As a real client sends it: every route checks the Host (http/app.ts).
    const host = { headers: { host: '127.0.0.1:8080' } };
    const served = await app.request(metadata, host);
    expect(served.status).toBe(200);
    expect(await served.json()).toMatchObject({ resource: 'http://127.0.0.1:8080/mcp' });
    expect((await app.request('/', host)).status).toBe(200);
    // Operations' router holds the landing page and /metrics only: nobody else mounts onto it.
    expect((await ops.routes.request(metadata)).status).toBe(404);
    expect((await ops.routes.request('/')).status).toBe(200);
    await mcp.close();
  });
});
