// Hot reload of the real process (src/main.ts) with a real SDK client over HTTP: SIGHUP and file
// changes (CORPUS_WATCH) swap in a new index that searches see once the change settles,
// calls under a steady stream of requests never fail, a failed rebuild keeps the old index serving,
// old cursors are refused as stale, and sessions with a GET stream hear list_changed.
import { mkdtemp, readdir, rename, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLE_FILES, writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';
import { startSteadyCalls } from './support/steady-calls.js';
import { connectClient } from './support/test-server.js';
import { eventually } from './support/eventually.js';

/**
 * How long a test waits for a change to become visible before it fails: a bound on a hang, not a
 * measure of speed (a busy two-core machine takes far longer than a quiet one; how fast a reload is
 * belongs to a benchmark, not to a test).
 */
const VISIBLE_WITHIN_MS = 60_000;
const DEBOUNCE_MS = 200;

const dirs: string[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  await cleanUpSpawnedServers();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}): Promise<{ server: SpawnedServer; corpus: string; client: Client }> {
  const dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-reload-'));
  dirs.push(dir);
  const corpus = join(dir, 'corpus');
  await writeCorpusFiles(corpus, SAMPLE_FILES);
  const server = await spawnServer({ INDEX_FILE: join(dir, 'index.snapshot'), CORPUS_WATCH_DEBOUNCE_MS: String(DEBOUNCE_MS), ...env }, { corpusDir: corpus });
  const { client } = await connectClient(new URL(`${server.base}/mcp`));
  clients.push(client);
  return { server, corpus, client };
}

async function sourcesFor(client: Client, query: string): Promise<string[]> {
  const result = (await client.callTool({ name: 'search_documents', arguments: { query, mode: 'keyword' } })) as CallToolResult;
  if (result.isError) throw new Error(`search failed: ${JSON.stringify(result.content)}`);
  return ((result.structuredContent as { results: Array<{ source: string }> }).results ?? []).map((r) => r.source);
}

/** Resolves with the milliseconds it took, from now, until `check` holds (fails past the hang bound). */
async function visibleWithin(check: () => Promise<boolean>, step = ''): Promise<number> {
  const started = Date.now();
  await eventually(check, { timeoutMs: VISIBLE_WITHIN_MS + DEBOUNCE_MS, intervalMs: 50 }).catch((error: Error) => {
    throw new Error(`${step}: ${error.message}`);
  });
  return Date.now() - started;
}

const readyz = async (server: SpawnedServer) => {
  const response = await fetch(`${server.base}/readyz`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

const LEFT_TO_BUILD = 'index snapshot left to the build process to check';
const stopped = async (server: SpawnedServer) => {
  server.child.kill('SIGTERM');
  return server.exit;
};

describe('boot from the snapshot', { timeout: 180_000 }, () => {
  it('a restarted process serves the snapshot the first one wrote, also after every file was touched', async () => {
    const { server, corpus } = await start();
    const indexFile = join(corpus, '..', 'index.snapshot');
    expect((await readyz(server)).body).toMatchObject({ last_reload: { trigger: 'boot', origin: 'build' } });
    expect(await stopped(server)).toMatchObject({ code: 0 });

    // Checked in a worker thread, which reads no corpus file.
    const second = await spawnServer({ INDEX_FILE: indexFile }, { corpusDir: corpus });
    expect((await readyz(second)).body).toMatchObject({ last_reload: { trigger: 'boot', origin: 'snapshot' } });
    expect(second.lines.filter((line) => line.msg === LEFT_TO_BUILD)).toEqual([]);
    expect(await stopped(second)).toMatchObject({ code: 0 });

    // New times, same bytes (a copy without -p): the worker cannot tell, the build process reads the
    // files, finds them unchanged and serves the snapshot.
    const later = new Date(Date.now() + 60_000);
    for (const entry of await readdir(corpus, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) await utimes(join(entry.parentPath, entry.name), later, later);
    }
    const third = await spawnServer({ INDEX_FILE: indexFile }, { corpusDir: corpus });
    expect((await readyz(third)).body).toMatchObject({ last_reload: { trigger: 'boot', origin: 'snapshot' } });
    expect(third.lines.filter((line) => line.msg === LEFT_TO_BUILD)).toEqual([expect.objectContaining({ reason: expect.stringMatching(/has a new time or inode/) })]);
    const { client } = await connectClient(new URL(`${third.base}/mcp`));
    clients.push(client);
    expect(await sourcesFor(client, 'sourdough starter')).toContain('guides/baking.md');
  });
});

// Each test starts a process of its own, which takes half a minute on a busy machine.
describe('index reload', { timeout: 300_000 }, () => {
  it('on SIGHUP, swaps in an index that sees a new file, and tells the session the list changed', async () => {
    const { server, corpus, client } = await start();
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    expect(await sourcesFor(client, 'harbour tide tables')).toEqual([]);
    await writeFile(join(corpus, 'harbour.md'), '# Harbour\n\nThe harbour master keeps the tide tables.\n');
    server.child.kill('SIGHUP');
    await visibleWithin(async () => (await sourcesFor(client, 'harbour tide tables')).includes('harbour.md'));
    await eventually(async () => listChanged > 0, { timeoutMs: 60_000 });
    const { status, body } = await readyz(server);
    expect(status).toBe(200);
    expect(body).toMatchObject({ generation: 2, last_reload: { trigger: 'SIGHUP', outcome: 'ok' } });
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    expect(metrics).toMatch(/^corpus_mcp_index_generation 2$/m);
    expect(metrics).toMatch(/^corpus_mcp_index_reloads_total\{outcome="ok"\} 2$/m);
  });

  it('with CORPUS_WATCH, sees a file added, edited, deleted and renamed after each change', async () => {
    const { server, corpus, client } = await start({ CORPUS_WATCH: 'true' });
    // The watcher starts once the first index is served, and reports when its initial scan is done.
    await eventually(async () => server.lines.some((l) => l.msg === 'watching the corpus for changes'), { timeoutMs: 60_000 });
    const added = join(corpus, 'guides/harbour.md');
    await writeFile(added, '# Harbour\n\nThe harbour master keeps the tide tables.\n');
    await visibleWithin(async () => (await sourcesFor(client, 'tide tables')).includes('guides/harbour.md'), 'added');

    await writeFile(added, '# Harbour\n\nThe harbour master now rings the fog bell.\n');
    await visibleWithin(async () => (await sourcesFor(client, 'fog bell')).includes('guides/harbour.md'), 'edited');
    expect(await sourcesFor(client, 'tide tables')).not.toContain('guides/harbour.md');

    await rename(added, join(corpus, 'harbour-renamed.md'));
    await visibleWithin(async () => (await sourcesFor(client, 'fog bell')).includes('harbour-renamed.md'), 'renamed');
    expect(await sourcesFor(client, 'fog bell')).not.toContain('guides/harbour.md');

    await unlink(join(corpus, 'harbour-renamed.md'));
    await visibleWithin(async () => !(await sourcesFor(client, 'fog bell')).includes('harbour-renamed.md'), 'deleted');
  });

  it('answers every call of a steady stream while it reloads, and keeps chunk ids of unchanged documents', async () => {
    const { server, corpus, client } = await start();
    const before = await sourcesFor(client, 'sourdough starter');
    const stream = startSteadyCalls(async () => {
      const result = (await client.callTool({ name: 'search_documents', arguments: { query: 'lighthouse weather', mode: 'keyword' } })) as CallToolResult;
      if (result.isError) throw new Error(JSON.stringify(result.content));
    });
    for (let i = 0; i < 3; i += 1) {
      await writeFile(join(corpus, `extra-${i}.md`), `# Extra ${i}\n\nA note about the lighthouse weather, number ${i}.\n`);
      server.child.kill('SIGHUP');
      await eventually(async () => (await readyz(server)).body.generation === i + 2, { timeoutMs: 60_000 });
    }
    await stream.stop();
    expect(stream.failures).toEqual([]);
    expect(stream.calls).toBeGreaterThan(10);
    expect(await sourcesFor(client, 'sourdough starter')).toEqual(before);
    const chunk = (await client.callTool({ name: 'get_chunk', arguments: { chunk_id: 'guides/baking.md#0' } })) as CallToolResult;
    expect(chunk.isError).toBeFalsy();
  }, 240_000); // three reloads, each bounded by the hang bound

  it('keeps serving the old index when a rebuild fails, and says so on /readyz', async () => {
    const { server, corpus, client } = await start();
    await rm(corpus, { recursive: true, force: true });
    server.child.kill('SIGHUP');
    await eventually(async () => ((await readyz(server)).body.last_reload as { outcome?: string } | undefined)?.outcome === 'failed', { timeoutMs: 60_000 });
    const { status, body } = await readyz(server);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ready', generation: 1, last_reload: { trigger: 'SIGHUP', outcome: 'failed', error: 'not_found' } });
    expect(await sourcesFor(client, 'sourdough starter')).toContain('guides/baking.md');
    expect(server.lines.some((l) => l.msg === 'index reload failed; the previous index keeps serving' && l.code === 'not_found')).toBe(true);
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    expect(metrics).toMatch(/^corpus_mcp_index_reloads_total\{outcome="failed"\} 1$/m);
    expect(metrics).toMatch(/^corpus_mcp_index_last_reload_success 0$/m);
  });

  it('refuses a list_documents cursor issued before a reload as stale', async () => {
    const { server, corpus, client } = await start();
    const first = (await client.callTool({ name: 'list_documents', arguments: { limit: 1 } })) as CallToolResult;
    const cursor = (first.structuredContent as { next_cursor: string }).next_cursor;
    await writeFile(join(corpus, 'aaa.md'), '# First\n\nSorts first and moves every position.\n');
    server.child.kill('SIGHUP');
    await eventually(async () => (await readyz(server)).body.generation === 2, { timeoutMs: 60_000 });
    const stale = (await client.callTool({ name: 'list_documents', arguments: { limit: 1, cursor } })) as CallToolResult;
    expect(stale.isError).toBe(true);
    expect(JSON.stringify(stale.content)).toMatch(/stale: the corpus was reloaded since it was issued \(index generation 1, now 2\)/);
  });
});
