// AUTH_TOKENS_FILE is never indexed, whatever path leads to it, on the real process (src/main.ts) and
// the real SDK client: a CORPUS_DIR that is a symbolic link to the folder holding the file stops the
// boot (real paths compared), and a hard link of the file inside the corpus, which no path comparison
// sees, is skipped by the walk by device and inode, at a build and at a boot from the snapshot.
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_FILES, writeCorpusFiles } from './support/sample-corpus.js';
import { cleanUpSpawnedServers, spawnServer, stopServer } from './support/spawned-server.js';
import type { SpawnedServer } from './support/spawned-server.js';

// One word, so a search for it would find the file were it indexed.
const TOKEN = 'harbourmastersecrettokenwithfortyletters';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-tokens-file-'));
});
afterEach(cleanUpSpawnedServers);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function connect(server: SpawnedServer): Promise<Client> {
  const client = new Client({ name: 'tokens-file-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

/** The results of a search for the token (the answer echoes the query), and every other answer a signed-in client can get about the tokens file, as the text it reads. */
async function whatTheClientSees(client: Client, sources: string[]): Promise<{ results: unknown[]; text: string }> {
  const search = (await client.callTool({ name: 'search_documents', arguments: { query: TOKEN, mode: 'keyword' } })) as CallToolResult;
  const answers: CallToolResult[] = [];
  answers.push((await client.callTool({ name: 'list_documents', arguments: {} })) as CallToolResult);
  for (const source of sources) answers.push((await client.callTool({ name: 'get_document', arguments: { source } })) as CallToolResult);
  const resources = await client.listResources();
  return { results: (search.structuredContent as { results: unknown[] }).results, text: JSON.stringify({ answers, resources }) };
}

describe('AUTH_TOKENS_FILE, end to end', () => {
  it('refuses to start when CORPUS_DIR is a symbolic link to the folder that holds the tokens file', async () => {
    const real = join(dir, 'linked', 'real', 'docs');
    await writeCorpusFiles(real, SAMPLE_FILES);
    await writeFile(join(real, 'tokens.txt'), `${TOKEN}\n`);
    await symlink(real, join(dir, 'linked', 'docs'));
    const started = spawnServer({ AUTH_TOKENS_FILE: join(real, 'tokens.txt') }, { corpusDir: join(dir, 'linked', 'docs') });
    await expect(started).rejects.toThrow(/server exited with 2 before it was ready: .*AUTH_TOKENS_FILE=".*tokens\.txt": is inside CORPUS_DIR once symbolic links are resolved/s);
  });

  it('never serves a hard link of the tokens file inside the corpus, built or booted from the snapshot', async () => {
    const corpus = join(dir, 'hard', 'corpus');
    const tokensFile = join(dir, 'hard', 'secrets', 'tokens.txt');
    await writeCorpusFiles(corpus, SAMPLE_FILES);
    await mkdir(join(dir, 'hard', 'secrets'));
    await writeFile(tokensFile, `${TOKEN}\n`);
    await mkdir(join(corpus, 'secret-notes'));
    await link(tokensFile, join(corpus, 'secret-notes', 'tokens.txt'));
    await symlink('secret-notes/tokens.txt', join(corpus, 'alias.txt'));
    const env = { AUTH_TOKENS_FILE: tokensFile, INDEX_FILE: join(dir, 'hard', 'index.snapshot') };
    for (const origin of ['build', 'snapshot']) {
      const server = await spawnServer(env, { corpusDir: corpus });
      expect(server.lines.find((l) => l.msg === 'index built; ready')).toMatchObject({ origin });
      const client = await connect(server);
      const seen = await whatTheClientSees(client, ['secret-notes/tokens.txt', 'alias.txt']);
      expect(seen.results).toEqual([]);
      expect(seen.text).not.toContain(TOKEN);
      // The rest of the corpus is served as usual.
      const gardening = (await client.callTool({ name: 'search_documents', arguments: { query: 'tomatoes stake', mode: 'keyword' } })) as CallToolResult;
      expect(JSON.stringify(gardening.structuredContent)).toContain('guides/gardening.md');
      await client.close();
      await stopServer(server);
    }
  }, 120_000);
});
