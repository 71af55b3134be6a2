// The git source in the real process (src/main.ts) against real git servers on loopback: `git
// http-backend` behind an HTTP server that demands the token, and a local-path remote. A push is
// served within one poll, or at once on a signed webhook; the last good commit serves through a
// remote that stops, a token that stops working, a vanished ref and a commit over the size limit; a
// force-push converges; a first boot the remote refuses stays up, not ready, and says why.
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from './support/eventually.js';
import { startGitHttpServer, testGitFixtures } from './support/git-repository.js';
import type { GitHttpServer } from './support/git-repository.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';
import { connectClient } from './support/test-server.js';

const TOKEN = 'tok-e2e-7c1a9d3f5b2e4c6a8d0f1b3e5a7c9d2f';
/** A bound on a hang, never a measure of speed. */
const WITHIN = { timeoutMs: 60_000, intervalMs: 100 };
/** Each test spawns the server and walks through several events: a hang guard, not a speed bound. */
const TEST_TIMEOUT_MS = 240_000;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await cleanUpSpawnedServers();
  for (const clean of cleanups.splice(0).reverse()) await clean();
});

const { repository, folder: corpusFolder } = testGitFixtures(cleanups, 'corpus-mcp-git-e2e-', 'working-copy');

async function client(server: SpawnedServer): Promise<Client> {
  const { client } = await connectClient(new URL(`${server.base}/mcp`));
  cleanups.push(() => client.close());
  return client;
}

interface Hit {
  source: string;
  url?: string;
}

async function search(c: Client, query: string): Promise<Hit[]> {
  const result = (await c.callTool({ name: 'search_documents', arguments: { query, mode: 'keyword' } })) as CallToolResult;
  if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
  return (result.structuredContent as { results: Hit[] }).results;
}

interface Readyz {
  status: string;
  reason?: string;
  git?: { commit: string | null; fetched_at: string | null; last_error: { code: string; message: string } | null };
}

async function readyz(server: SpawnedServer): Promise<{ status: number; body: Readyz }> {
  const response = await fetch(`${server.base}/readyz`);
  return { status: response.status, body: (await response.json()) as Readyz };
}

const servedCommit = async (server: SpawnedServer) => (await readyz(server)).body.git?.commit;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('a git source over https with a token', () => {
  let http: GitHttpServer;

  it('serves the repository, a push within one poll, and the last good commit through a stopped remote, a force-push and a revoked token; the token is nowhere', async () => {
    const repo = repository();
    const first = repo.commit({ 'guide.md': '# Guide\n\nThe alpha guide.\n' });
    http = await startGitHttpServer(repo, TOKEN);
    cleanups.push(() => http.stop());
    const dir = corpusFolder();
    const server = await spawnServer({ CORPUS_GIT_URL: http.url, CORPUS_GIT_TOKEN: TOKEN, CORPUS_GIT_POLL: '1' }, { corpusDir: dir });
    const c = await client(server);

    let ready = await readyz(server);
    expect(ready.status).toBe(200);
    expect(ready.body.git).toMatchObject({ commit: first, last_error: null });
    expect(Date.parse(ready.body.git!.fetched_at!)).toBeGreaterThan(0);
    expect((await search(c, 'alpha')).map((h) => h.source)).toEqual(['guide.md']);
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    expect(metrics).toContain(`corpus_mcp_git_commit_info{commit="${first}"} 1`);
    expect(metrics).toMatch(/corpus_mcp_git_fetched_timestamp_seconds \d/);
    // Without CORPUS_GIT_WEBHOOK_SECRET the route does not exist.
    expect((await fetch(`${server.base}/hooks/git`, { method: 'POST', body: '{}' })).status).toBe(404);

    // A push, served within one poll (1 s here; the bound below is a hang guard).
    const second = repo.commit({ 'guide.md': '# Guide\n\nThe zebracorn guide.\n' });
    await eventually(async () => (await servedCommit(server)) === second, { ...WITHIN, what: 'the pushed commit served' });
    expect((await search(c, 'zebracorn')).map((h) => h.source)).toEqual(['guide.md']);

    // During a fetch, no process's arguments carry the token.
    const held = http.hold();
    await held;
    const commandLines = readdirSync('/proc').filter((n) => /^\d+$/.test(n)).map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      } catch {
        return '';
      }
    });
    http.release();
    expect(commandLines.some((l) => l.includes('git') && /fetch|remote-http/.test(l))).toBe(true);
    expect(commandLines.filter((l) => l.includes(TOKEN))).toEqual([]);

    // The remote stops: the last good commit keeps serving, /readyz says so, retries back off.
    await http.stop();
    await eventually(async () => (await readyz(server)).body.git?.last_error?.code === 'unreachable', { ...WITHIN, what: 'the fetch error shown' });
    ready = await readyz(server);
    expect(ready).toMatchObject({ status: 200, body: { status: 'degraded', git: { commit: second } } });
    expect(ready.body.reason).toContain('the last good commit keeps serving');
    expect((await search(c, 'zebracorn')).map((h) => h.source)).toEqual(['guide.md']);
    await eventually(() => server.lines.filter((l) => l.msg === 'git source: fetch failed; the last good commit keeps serving').length >= 2, { ...WITHIN, what: 'two failed fetches' });
    const waits = server.lines.filter((l) => l.msg === 'git source: fetch failed; the last good commit keeps serving').map((l) => l.retry_in_seconds);
    expect(waits.slice(0, 2)).toEqual([1, 2]);
    expect(await (await fetch(`${server.base}/metrics`)).text()).toContain('corpus_mcp_git_fetch_error{code="unreachable"} 1');
    await http.start();
    await eventually(async () => (await readyz(server)).body.git?.last_error === null, { ...WITHIN, what: 'the remote back' });
    expect((await readyz(server)).body.status).toBe('ready');

    // A force-push: the new head is served, the old history's text is gone.
    const rewritten = repo.rewrite({ 'other.md': '# Other\n\nThe quokka notes.\n' });
    await eventually(async () => (await servedCommit(server)) === rewritten, { ...WITHIN, what: 'the rewritten head served' });
    expect((await search(c, 'quokka')).map((h) => h.source)).toEqual(['other.md']);
    expect(await search(c, 'zebracorn')).toEqual([]);

    // The token stops working: keep serving, say so.
    http.setToken('a-new-token-the-server-was-not-given-00000');
    await eventually(async () => (await readyz(server)).body.git?.last_error?.code === 'auth_failed', { ...WITHIN, what: 'the refused token shown' });
    expect(await servedCommit(server)).toBe(rewritten);
    expect((await search(c, 'quokka')).map((h) => h.source)).toEqual(['other.md']);

    // The token is in no log line, no /readyz answer and no file of the working copy.
    expect(JSON.stringify(server.lines)).not.toContain(TOKEN);
    expect(JSON.stringify((await readyz(server)).body)).not.toContain(TOKEN);
    for (const file of filesUnder(dir)) if (statSync(file).size < 10_000_000) expect(readFileSync(file, 'latin1'), file).not.toContain(TOKEN);
  }, TEST_TIMEOUT_MS);

  it('at first boot with a wrong token: /healthz 200, /readyz 503 with the reason, no crash; served once the token works', async () => {
    const repo = repository();
    const first = repo.commit({ 'guide.md': '# Guide\n\nalpha\n' });
    http = await startGitHttpServer(repo, TOKEN);
    cleanups.push(() => http.stop());
    const wrong = 'tok-wrong-00000000000000000000000000000000';
    const server = await spawnServer({ CORPUS_GIT_URL: http.url, CORPUS_GIT_TOKEN: wrong, CORPUS_GIT_POLL: '1' }, { corpusDir: corpusFolder(), until: 'listening' });
    await eventually(() => server.lines.filter((l) => l.msg === 'git source: fetch failed; nothing served yet').length >= 2, { ...WITHIN, what: 'two refused fetches' });
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    const ready = await readyz(server);
    expect(ready.status).toBe(503);
    expect(ready.body.reason).toContain('the remote refused the credentials');
    expect(ready.body.git!.last_error!.code).toBe('auth_failed');
    expect(JSON.stringify(server.lines) + JSON.stringify(ready.body)).not.toContain(wrong);
    http.setToken(wrong);
    await eventually(async () => (await servedCommit(server)) === first, { ...WITHIN, what: 'the repository served' });
    expect((await readyz(server)).status).toBe(200);
  }, TEST_TIMEOUT_MS);
});

describe('a git source from a local path, with a webhook', () => {
  const SECRET = 'webhook-secret-for-the-test-0123456789';
  const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  const hook = (server: SpawnedServer, body: string, headers: Record<string, string>) =>
    fetch(`${server.base}/hooks/git`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('serves a folder of one branch, a signed push at once, refuses unsigned ones, and keeps serving when the branch vanishes', async () => {
    const repo = repository();
    repo.commit({ 'README.md': '# Not served\n\noutside words\n' });
    const first = repo.commit(
      { 'handbook/guide.md': '# Guide\n\nalpha\n', 'handbook/sub/page.md': '# Page\n\nbeta\n', 'handbook/own.md': '---\nurl: https://handbook.example.com/own\n---\n# Own\n\nwombat\n' },
      'docs',
      { branch: 'docs' },
    );
    const server = await spawnServer(
      {
        CORPUS_GIT_URL: repo.remote,
        CORPUS_GIT_REF: 'docs',
        CORPUS_GIT_PATH: 'handbook',
        CORPUS_GIT_POLL: '3600',
        CORPUS_GIT_WEBHOOK_SECRET: SECRET,
        SOURCE_URL_TEMPLATE: 'https://git.example.com/acme/docs/blob/{commit}/{path}#L{line}',
      },
      { corpusDir: corpusFolder() },
    );
    const c = await client(server);
    expect(await servedCommit(server)).toBe(first);
    expect((await search(c, 'beta')).map((h) => h.source)).toEqual(['sub/page.md']);
    expect(await search(c, 'outside')).toEqual([]);
    // Links back: the template with the commit, the repository's path and the passage's line; front matter wins.
    expect((await search(c, 'beta'))[0]!.url).toBe(`https://git.example.com/acme/docs/blob/${first}/handbook/sub/page.md#L1`);
    expect((await search(c, 'wombat'))[0]!.url).toBe('https://handbook.example.com/own');

    const second = repo.commit({ 'handbook/guide.md': '# Guide\n\ngamma\n' }, 'change', { branch: 'docs' });
    const body = JSON.stringify({ ref: 'refs/heads/docs', after: second });
    expect((await hook(server, body, {})).status).toBe(401);
    expect((await hook(server, body, { 'x-hub-signature-256': sign(body, 'not-the-secret') })).status).toBe(401);
    expect((await hook(server, body, { 'x-hub-signature-256': sign(`${body} `) })).status).toBe(401);
    expect(await servedCommit(server)).toBe(first);
    const accepted = await hook(server, body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-1', 'x-github-event': 'push' });
    expect(accepted.status).toBe(202);
    await eventually(async () => (await servedCommit(server)) === second, { ...WITHIN, what: 'the pushed commit served after the webhook' });
    expect((await search(c, 'gamma')).map((h) => h.source)).toEqual(['guide.md']);
    expect((await search(c, 'gamma'))[0]!.url).toBe(`https://git.example.com/acme/docs/blob/${second}/handbook/guide.md#L1`);
    const chunk = (await c.callTool({ name: 'get_chunk', arguments: { chunk_id: 'guide.md#0' } })) as CallToolResult;
    expect((chunk.content[0] as { text: string }).text).toContain(`"url":"https://git.example.com/acme/docs/blob/${second}/handbook/guide.md#L1"`);
    const listed = (await c.callTool({ name: 'list_documents', arguments: {} })) as CallToolResult;
    expect((listed.structuredContent as { documents: Hit[] }).documents.map((d) => d.url)).toEqual([
      `https://git.example.com/acme/docs/blob/${second}/handbook/guide.md#L1`,
      'https://handbook.example.com/own',
      `https://git.example.com/acme/docs/blob/${second}/handbook/sub/page.md#L1`,
    ]);
    const replay = await hook(server, body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-1', 'x-github-event': 'push' });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toMatchObject({ accepted: false });

    repo.deleteBranch('docs');
    expect((await hook(server, body, { 'x-hub-signature-256': sign(body), 'x-github-delivery': 'd-2' })).status).toBe(202);
    await eventually(async () => (await readyz(server)).body.git?.last_error?.code === 'ref_not_found', { ...WITHIN, what: 'the vanished ref shown' });
    expect(await servedCommit(server)).toBe(second);
    expect((await search(c, 'gamma')).map((h) => h.source)).toEqual(['guide.md']);
  }, TEST_TIMEOUT_MS);

  it('refuses a repository over CORPUS_GIT_MAX_MB with its size at first boot, and stays up', async () => {
    const repo = repository();
    repo.commit({ 'guide.md': '# Guide\n\nalpha\n', 'data.txt': Buffer.alloc(1536 * 1024, 0x61) });
    const server = await spawnServer({ CORPUS_GIT_URL: repo.remote, CORPUS_GIT_MAX_MB: '1', CORPUS_GIT_POLL: '1' }, { corpusDir: corpusFolder(), until: 'listening' });
    await eventually(async () => (await readyz(server)).body.git?.last_error?.code === 'too_large', { ...WITHIN, what: 'the size refusal' });
    const ready = await readyz(server);
    expect(ready.status).toBe(503);
    expect(ready.body.reason).toMatch(/holds 1\.5 MB of files, over CORPUS_GIT_MAX_MB \(1 MB\)/);
    expect(server.child.exitCode).toBeNull();
  }, TEST_TIMEOUT_MS);
});
