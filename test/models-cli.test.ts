// `npm run models -- fetch [id…]` and `list`, run as the command a person or the Dockerfile runs,
// against a hub stand-in on loopback.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHub } from './support/fake-hub.js';
import { TINY_EMBED_ID, TINY_RERANK_ID, tinyModelsDir } from './support/tiny-models.js';

const run = promisify(execFile);
const cli = new URL('../src/models-cli.ts', import.meta.url).pathname;

describe('models-cli', () => {
  const source = tinyModelsDir();
  let hub: Awaited<ReturnType<typeof startHub>>;
  beforeAll(async () => {
    hub = await startHub(source.modelsDir);
  });
  afterAll(async () => {
    await hub.close();
  });
  const models = (args: string[], env: Record<string, string>) =>
    run(process.execPath, ['--import', 'tsx', cli, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });

  it('fetches the named models into MODELS_DIR in their repository layout, then lists them complete, and fetches nothing twice', async () => {
    const target = mkdtempSync(join(tmpdir(), 'corpus-mcp-fetch-'));
    const env = { MODELS_DIR: target, MODELS_URL: hub.url };
    const fetched = await models(['fetch', TINY_EMBED_ID, TINY_RERANK_ID], env);
    expect(fetched.stdout).toContain(`${TINY_EMBED_ID}/onnx/model.onnx`);
    expect(fetched.stdout).toMatch(new RegExp(`${TINY_RERANK_ID}: [\\d.]+ MiB written to ${target}`));
    expect(readFileSync(join(target, TINY_EMBED_ID, 'tokenizer.json'), 'utf8')).toBe(readFileSync(join(source.embed, 'tokenizer.json'), 'utf8'));
    const listed = await models(['list'], env);
    expect(listed.stdout).toMatch(new RegExp(`${TINY_EMBED_ID}\\t[\\d.]+ MiB\\tcomplete`));
    const before = hub.requests.length;
    expect((await models(['fetch', TINY_EMBED_ID], env)).stdout).toContain(`${TINY_EMBED_ID}: already in ${target}`);
    expect(hub.requests.length).toBe(before);
  });

  it('exits 1 naming the model and what failed when the hub has no such model', async () => {
    const target = mkdtempSync(join(tmpdir(), 'corpus-mcp-fetch-'));
    const failed = models(['fetch', 'nobody/nothing'], { MODELS_DIR: target, MODELS_URL: hub.url });
    await expect(failed).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/downloading model nobody\/nothing failed: nobody\/nothing has no config\.json on http:\/\/127\.0\.0\.1:\d+/) });
  });
});
