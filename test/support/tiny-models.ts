// A fresh MODELS_DIR holding the generated tiny models (scripts/tiny-models/), for tests that run
// local models: no weights can be downloaded where the tests run.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyModels } from '../../scripts/tiny-models/tiny-models.js';
import { writeCorpusFiles } from './sample-corpus.js';

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

/** Tiny models in a fresh MODELS_DIR, and LOCAL_FILES in a fresh corpus folder named from `prefix`. */
export async function tinyModelsAndLocalCorpus(prefix: string): Promise<{ modelsDir: string; corpusDir: string }> {
  const { modelsDir } = tinyModelsDir();
  const corpusDir = mkdtempSync(join(tmpdir(), prefix));
  await writeCorpusFiles(corpusDir, LOCAL_FILES);
  return { modelsDir, corpusDir };
}
