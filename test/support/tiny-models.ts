// A fresh MODELS_DIR holding the generated tiny models (scripts/tiny-models/), for tests that run
// local models: no weights can be downloaded where the tests run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyModels } from '../../scripts/tiny-models/tiny-models.js';

export { TINY_EMBED_ID, TINY_RERANK_ID, TINY_MAX_TOKENS } from '../../scripts/tiny-models/tiny-models.js';

export function tinyModelsDir(): { modelsDir: string; embed: string; rerank: string } {
  const modelsDir = mkdtempSync(join(tmpdir(), 'corpus-mcp-models-'));
  return { modelsDir, ...writeTinyModels(modelsDir) };
}
