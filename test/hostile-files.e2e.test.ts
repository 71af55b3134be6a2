// A corpus that holds hostile files, served by the real process (src/main.ts) to the real SDK client:
// a Markdown and a reStructuredText file with a 4 MB line of '-', a DOCX whose zip directory lies
// about its size, and, with CORPUS_WATCH, a link to /usr. The server boots, serves the good files,
// lists the bad one with its reason, and stays responsive while it watches.
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLyingDocx } from './support/docx-fixtures.js';
import { SAMPLE_FILES, writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';
import { eventually } from './support/eventually.js';
import { connectClient } from './support/test-server.js';

const DASHES = '-'.repeat(4 * 1024 * 1024);

async function ok<T>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return result.structuredContent as T;
}

describe('a corpus with hostile files, end to end', () => {
  let dir: string;
  let server: SpawnedServer;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-hostile-'));
    const corpus = join(dir, 'corpus');
    await writeCorpusFiles(corpus, {
      ...SAMPLE_FILES,
      'hostile/dashes.md': `# Breakwater\n\nThe breakwater shelters the inner basin.\n\n${DASHES}\n`,
      'hostile/dashes.rst': `Jetty\n${DASHES}\n\nThe jetty lamp burns green.\n`,
      // Declares 100 bytes; inflates to 160 MB, past the 100 MB limit.
      'hostile/lying.docx': Buffer.from(await makeLyingDocx(160 * 1024 * 1024)),
    });
    await symlink('/usr', join(corpus, 'usr'));
    server = await spawnServer({ CORPUS_WATCH: 'true', INDEX_FILE: join(dir, 'index.snapshot') }, { corpusDir: corpus, readyWithinMs: 120_000 });
    ({ client } = await connectClient(new URL(`${server.base}/mcp`)));
  }, 180_000);
  afterAll(async () => {
    await client?.close();
    await cleanUpSpawnedServers();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves its good files, the 4 MB-line ones included', async () => {
    const search = async (query: string) =>
      (await ok<{ results: Array<{ source: string }> }>(client, 'search_documents', { query, mode: 'keyword' })).results.map((r) => r.source);
    expect((await search('tomatoes stake'))[0]).toBe('guides/gardening.md');
    expect((await search('breakwater inner basin'))[0]).toBe('hostile/dashes.md');
    expect((await search('jetty lamp green'))[0]).toBe('hostile/dashes.rst');
  });

  it('lists the lying DOCX as skipped, with its reason', async () => {
    const list = await ok<{ skipped: Array<{ path: string; reason: string }> }>(client, 'list_documents', {});
    expect(list.skipped).toContainEqual({
      path: 'hostile/lying.docx',
      reason: 'unpacks to more than the 100 MB limit, though its zip directory declares less (a zip bomb?)',
    });
  });

  it('watches the corpus without descending the link to /usr, and answers /healthz', async () => {
    await eventually(async () => server.lines.some((l) => l.msg === 'watching the corpus for changes'), { what: 'the watcher to be ready', timeoutMs: 60_000 });
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    // The server's peak resident memory (VmHWM, kB): crawling /usr took it to 2.7 GB. (The build ran
    // in its own process; the lying DOCX's reason above shows the count stopped its inflate.)
    const peakKb = Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${server.child.pid}/status`, 'utf8'))?.[1]);
    expect(peakKb).toBeLessThan(1024 * 1024);
  });
});
