// Over Node's HTTP stack with supertest, which sends the Host header as written (fetch replaces it).
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/load-config.js';
import { hostCheck } from './host-check.js';

function appWithHostCheck() {
  const reached: string[] = [];
  const app = new Hono();
  app.use('/mcp', hostCheck({ publicUrl: 'https://docs.example.com' }));
  app.post('/mcp', (c) => {
    reached.push(c.req.header('host') ?? '');
    return c.json({ ok: true });
  });
  return { app, listener: getRequestListener(app.fetch), reached };
}

describe('hostCheck', () => {
  it.each([
    'evil@localhost',
    'evil.example@127.0.0.1:8080',
    'user:pass@docs.example.com',
    'localhost/evil',
    'localhost?x',
    'localhost#x',
    'localhost%2eevil.example',
    'evil.example\\@localhost',
    'localhost.evil.example',
  ])('compares the raw authority: Host %j gets 403 and the handler does not run', async (host) => {
    // At the app: whatever adapter is in front of it.
    const { app, listener, reached } = appWithHostCheck();
    const direct = await app.request('/mcp', { method: 'POST', headers: { host }, body: '{}' });
    expect(direct.status).toBe(403);
    expect(direct.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await direct.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('Host header') } });
    // Over Node's HTTP stack, @hono/node-server refuses some of these with 400 before the app runs.
    const response = await request(listener).post('/mcp').set('Host', host).send({});
    expect([400, 403]).toContain(response.status);
    expect(reached).toEqual([]);
  });

  it.each(['localhost', 'localhost:8080', '127.0.0.1:1', '[::1]:8080', 'DOCS.example.com', 'docs.example.com:443'])(
    'lets Host %j through',
    async (host) => {
      const { listener, reached } = appWithHostCheck();
      const response = await request(listener).post('/mcp').set('Host', host).send({});
      expect(response.status).toBe(200);
      expect(reached).toEqual([host]);
    },
  );

  it.each(['http://evil@localhost', 'https://docs.example.com/path', 'null', 'file://localhost', 'http://localhost.evil.example'])(
    'refuses Origin %j with 403 and the handler does not run',
    async (origin) => {
      const { listener, reached } = appWithHostCheck();
      const response = await request(listener).post('/mcp').set('Host', 'localhost').set('Origin', origin).send({});
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ error: { message: expect.stringContaining('Origin') } });
      expect(reached).toEqual([]);
    },
  );

  it.each(['https://docs.example.com', 'http://localhost:3000', 'http://[::1]:8080'])('lets Origin %j through', async (origin) => {
    const { listener, reached } = appWithHostCheck();
    const response = await request(listener).post('/mcp').set('Host', 'localhost').set('Origin', origin).send({});
    expect(response.status).toBe(200);
    expect(reached).toHaveLength(1);
  });

  it.each(['127.0.0.2', '127.0.0.2:8080', '127.1.2.3'])(
    'lets through Host %j, a loopback address HOST may bind as config accepts it',
    async (host) => {
      // HOST=127.0.0.2 passes config as loopback; its clients then send Host: 127.0.0.2 even when
      // PUBLIC_URL names the machine otherwise.
      const config = loadConfig({ HOST: '127.0.0.2', PUBLIC_URL: 'http://localhost:8080' });
      const app = new Hono();
      app.use('/mcp', hostCheck({ publicUrl: config.publicUrl }));
      app.post('/mcp', (c) => c.json({ ok: true }));
      const response = await request(getRequestListener(app.fetch)).post('/mcp').set('Host', host).set('Origin', `http://${host}`).send({});
      expect(response.status).toBe(200);
    },
  );
});
