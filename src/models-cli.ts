// `npm run models -- fetch [id…]` (or `node dist/src/models-cli.js fetch …`, as the Dockerfile does):
// downloads local models into MODELS_DIR ahead of use, for images and machines without a network. With no id, the configured ones (EMBEDDINGS_MODEL, RERANK_MODEL with a
// local provider), or both defaults. `npm run models -- list` shows what MODELS_DIR holds.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from './config/load-config.js';
import { DEFAULT_LOCAL_EMBEDDINGS_MODEL, DEFAULT_LOCAL_RERANK_MODEL } from './config/schema.js';
import { fetchModel } from './local-models/hub-download.js';
import { LocalModelError } from './local-models/local-model-error.js';
import { missingFiles } from './local-models/model-folder.js';

const [command = 'help', ...ids] = process.argv.slice(2);
const config = loadConfig().semantic.local!;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

if (command === 'fetch') {
  const wanted = ids.length > 0 ? ids : [config.embeddingsModel, config.rerankModel].filter((id): id is string => id !== undefined);
  const targets = wanted.length > 0 ? wanted : [DEFAULT_LOCAL_EMBEDDINGS_MODEL, DEFAULT_LOCAL_RERANK_MODEL];
  let failed = false;
  for (const id of targets) {
    try {
      if (missingFiles(config.modelsDir, id).length === 0) {
        console.log(`${id}: already in ${config.modelsDir}`);
        continue;
      }
      const bytes = await fetchModel(config.modelsDir, id, { hubUrl: config.hubUrl, onFile: (file, size) => console.log(`  ${id}/${file} ${mib(size)}`) });
      console.log(`${id}: ${mib(bytes)} written to ${config.modelsDir}`);
    } catch (error) {
      failed = true;
      console.error(`corpus-mcp models: ${error instanceof LocalModelError ? error.message : String(error)}`);
    }
  }
  process.exit(failed ? 1 : 0);
} else if (command === 'list') {
  let owners: string[] = [];
  try {
    owners = readdirSync(config.modelsDir);
  } catch {
    // no folder: nothing fetched yet
  }
  for (const owner of owners) {
    for (const name of readdirSync(join(config.modelsDir, owner))) {
      const id = `${owner}/${name}`;
      const missing = missingFiles(config.modelsDir, id);
      console.log(`${id}\t${mib(folderBytes(join(config.modelsDir, owner, name)))}\t${missing.length === 0 ? 'complete' : `missing ${missing.join(', ')}`}`);
    }
  }
} else {
  console.log('usage: npm run models -- fetch [owner/name …] | list   (MODELS_DIR, MODELS_URL as the server reads them)');
  process.exit(command === 'help' ? 0 : 2);
}
