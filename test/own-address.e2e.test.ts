// The real process (src/main.ts) as a newcomer starts it: with PORT=0 every URL the server derives
// from its own address names the port it is bound to, and the pid its log names is the one that
// reloads on SIGHUP, even behind a launcher (npm) whose own pid is another.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import { eventually } from './support/eventually.js';

afterEach(cleanUpSpawnedServers);

describe('PORT=0', () => {
  it('names the bound port in the log, the landing page, the /mcp page, the server card and the OAuth metadata', async () => {
    const server = await spawnServer({ OAUTH_ISSUER: 'https://issuer.example.com' }, { until: 'listening' });
    const mcpUrl = `http://127.0.0.1:${server.port}/mcp`;
    expect(server.port).toBeGreaterThan(0);
    expect(server.lines.find((l) => l.msg === 'listening')).toMatchObject({ port: server.port, mcp_url: mcpUrl });

    const landing = await (await fetch(`${server.base}/`)).text();
    expect(landing.split(mcpUrl).length - 1).toBeGreaterThanOrEqual(4);
    const page = await (await fetch(`${server.base}/mcp`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain(mcpUrl);
    const card = (await (await fetch(`${server.base}/.well-known/mcp/server-card.json`)).json()) as { remotes: Array<{ url: string }>; _meta: Record<string, { authorization: { protectedResourceMetadata: string } }> };
    expect(card.remotes[0]!.url).toBe(mcpUrl);
    expect(Object.values(card._meta)[0]!.authorization.protectedResourceMetadata).toBe(`http://127.0.0.1:${server.port}/.well-known/oauth-protected-resource/mcp`);
    const metadata = (await (await fetch(`${server.base}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string };
    expect(metadata.resource).toBe(mcpUrl);
    const challenge = (await fetch(`${server.base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).headers.get('www-authenticate');
    expect(challenge).toContain(`resource_metadata="http://127.0.0.1:${server.port}/`);

    for (const text of [JSON.stringify(server.lines), landing, page, JSON.stringify(card), JSON.stringify(metadata), challenge]) expect(text).not.toContain('127.0.0.1:0/');
  });
});

describe('kill -HUP <pid>, as the README says', () => {
  it('names in the README the pid of the listening log line', () => {
    expect(readFileSync('README.md', 'utf8')).toMatch(/`kill -HUP <pid>`[^.]*`pid` of the `listening` log line/);
  });

  it('reloads the index when sent to the pid the listening line names, under npm', async () => {
    const server = await spawnServer({}, { launcher: 'npm' });
    const pid = server.lines.find((l) => l.msg === 'listening')!.pid as number;
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(server.child.pid);
    try {
      process.kill(pid, 'SIGHUP');
      await eventually(async () => server.lines.some((l) => l.msg === 'index reloaded' && l.trigger === 'SIGHUP'), { timeoutMs: 60_000 });
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
    } finally {
      process.kill(pid, 'SIGTERM');
      await server.exit;
    }
  });
});
