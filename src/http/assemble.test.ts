import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
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

  it('attachMetrics gives a listener the write deadline: a client that never reads its answer is cut off', async () => {
    const config = loadConfig({ WRITE_TIMEOUT_MS: '1000', METRICS_PORT: '0' });
    const { attachMetrics, mcp } = assembleServer({ config, semantic: semanticServiceFromConfig(config.semantic, silentLogger), holder: new IndexHolder(), logger: createLogger({ level: 'silent' }) });
    // An answer far past what the kernel's socket buffers absorb (a few MB on loopback).
    const answer = Buffer.alloc(64 << 20, 'x');
    const server = createServer((_req, res) => res.end(answer));
    const closed = new Promise<void>((resolve) => server.once('request', (_req, res) => res.socket?.once('close', () => resolve())));
    attachMetrics(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      // Never read: no 'data' listener, so Node stops reading at 64 KiB and the unsent bytes stop moving.
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write('GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await closed;
      // Closed by the server: reading now, the client finds the answer cut off.
      let received = 0;
      socket.on('data', (chunk: Buffer) => (received += chunk.length));
      await new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(answer.length);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mcp.close();
    }
  });
});
