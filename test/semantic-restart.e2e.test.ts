// The chunk-vector cache across restarts of the real process (src/main.ts), with INDEX_FILE set and a
// local embeddings server started by the test (test/support/fake-providers.ts: deterministic vectors
// from a synonym table; it tests the integration, not a model). A second boot over an unchanged
// corpus makes no embedding call; after one file changes, only that file's chunks are embedded.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProviders, type FakeProviders } from './support/fake-providers.js';
import { SAMPLE_FILES, writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer, type SpawnedServer } from './support/spawned-server.js';
import { eventually } from './support/eventually.js';

const KEY = 'sk-restart-e2e-5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b';

describe('chunk vectors across restarts (INDEX_FILE)', () => {
  let fake: FakeProviders;
  let dir: string;
  let corpusDir: string;
  let indexFile: string;

  beforeAll(async () => {
    fake = await startFakeProviders();
    dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-vectors-'));
    corpusDir = join(dir, 'corpus');
    await writeCorpusFiles(corpusDir, SAMPLE_FILES);
    indexFile = join(dir, 'index.snapshot');
  });
  afterAll(async () => {
    await cleanUpSpawnedServers();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  const boot = async (): Promise<{ server: SpawnedServer; ready: Record<string, unknown> }> => {
    const server = await spawnServer(
      { INDEX_FILE: indexFile, EMBEDDINGS_URL: fake.url, EMBEDDINGS_MODEL: 'fake-embed', EMBEDDINGS_API_KEY: KEY },
      { corpusDir },
    );
    await eventually(async () => server.lines.some((l) => l.msg === 'chunk vectors ready; semantic and hybrid search on'), { timeoutMs: 20_000 });
    const ready = server.lines.find((l) => l.msg === 'chunk vectors ready; semantic and hybrid search on')!;
    return { server, ready };
  };
  const stop = async (server: SpawnedServer): Promise<void> => {
    server.child.kill('SIGTERM');
    await server.exit;
  };

  it('embeds every chunk at the first boot and keeps the vectors beside the snapshot', async () => {
    const { server, ready } = await boot();
    expect(ready.embedded).toBe(ready.chunks);
    expect(fake.embeddedTexts()).toHaveLength(ready.chunks as number);
    await eventually(async () => server.lines.some((l) => l.msg === 'chunk vector cache saved'), { timeoutMs: 5000 });
    expect(await readdir(dir)).toContain('index.snapshot.vectors');
    await stop(server);
    expect(server.lines.map((l) => JSON.stringify(l)).join('\n')).not.toContain(KEY);
  });

  it('makes zero embedding calls at a second boot over the unchanged corpus', async () => {
    const calls = fake.embeddingCalls();
    const { server, ready } = await boot();
    expect(server.lines.some((l) => l.msg === 'chunk vector cache loaded')).toBe(true);
    expect(ready).toMatchObject({ embedded: 0 });
    expect(ready.reused).toBe(ready.chunks);
    expect(fake.embeddingCalls()).toBe(calls);
    await stop(server);
  });

  it('embeds only the chunks of a changed file at the next boot', async () => {
    const [name, text] = Object.entries(SAMPLE_FILES)[0]!;
    await writeFile(join(corpusDir, name), `${String(text)}\n\nA closing paragraph added after the first boot.\n`);
    const before = fake.embeddedTexts().length;
    const { server, ready } = await boot();
    const fresh = fake.embeddedTexts().slice(before);
    expect(fresh.length).toBe(ready.embedded);
    expect(ready.embedded as number).toBeGreaterThan(0);
    expect(ready.embedded as number).toBeLessThan(ready.chunks as number);
    expect(ready.reused).toBe((ready.chunks as number) - (ready.embedded as number));
    await stop(server);
  });
});
