// A fresh MODELS_DIR holding the generated tiny models (scripts/tiny-models/), for tests that run
// local models: no weights can be downloaded where the tests run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyModels } from '../../scripts/tiny-models/tiny-models.js';
import type { OpsServer } from '../metrics-server.js';

export { TINY_EMBED_ID, TINY_RERANK_ID, TINY_MAX_TOKENS } from '../../scripts/tiny-models/tiny-models.js';

export function tinyModelsDir(): { modelsDir: string; embed: string; rerank: string } {
  const modelsDir = mkdtempSync(join(tmpdir(), 'corpus-mcp-models-'));
  return { modelsDir, ...writeTinyModels(modelsDir) };
}

const FILLER = Array.from({ length: 70 }, (_, i) => `filler${i}`).join(' ');
/** A corpus whose passages the tiny models tell apart by meaning. */
export const LOCAL_FILES = {
  'fleet.md': '# Fleet care\n\nEvery automobile in the fleet gets new tyres before winter.\n',
  'parking.md': '# Parking\n\nThe car park opens at seven; bring your badge.\n',
  'weather.md': '# Weather\n\nHeavy rainfall is expected on Tuesday, so the market moves indoors.\n',
  'clinic.md': '# Clinic\n\nThe physician on duty answers pages within ten minutes.\n',
  // Its one meaningful word comes after 70 others: past the first window of 32 tokens.
  'harbour.md': `# Harbour\n\n${FILLER} and then the ocean.\n`,
};

export type SearchResult = { mode: string; results: Array<{ chunk_id: string; found_by: string[]; score: number }>; note?: string };

export async function callTool(server: OpsServer, name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; structured: unknown; text: string }> {
  const { client } = await server.connect();
  try {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> };
    return { isError: result.isError, structured: result.structuredContent, text: result.content[0]?.text ?? '' };
  } finally {
    await client.close();
  }
}

