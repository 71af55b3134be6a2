// The index job the configuration asks for: corpus folder, index options, snapshot file and the
// engine version. main.ts (the server) and index-cli.ts (`npm run index`) both build it here, so a
// snapshot written ahead of time matches what the server would build.
import { join, resolve } from 'node:path';
import pkg from '../package.json' with { type: 'json' };
import type { Config } from './config/config.js';
import { fileIdentities } from './corpus/file-identity.js';
import { engineVersion } from './index-service/engine-version.js';
import type { IndexJob } from './index-service/index-job-spec.js';
import type { SearchIndexOptions } from './search/search-index.js';

export async function indexJobOf(config: Config, indexFile = config.indexFile): Promise<IndexJob> {
  const options: SearchIndexOptions = {};
  if (config.chunkWords !== undefined) options.chunkWords = config.chunkWords;
  if (config.chunkOverlapWords !== undefined) options.overlapWords = config.chunkOverlapWords;
  if (config.bm25K1 !== undefined) options.k1 = config.bm25K1;
  if (config.bm25B !== undefined) options.b = config.bm25B;
  return {
    // With a git source the folder is the working copy, and CORPUS_GIT_PATH the part of it served.
    corpusRoot: config.git === undefined || config.git.path === '' ? resolve(config.corpusDir) : join(resolve(config.corpusDir), config.git.path),
    options,
    engine: await engineVersion(pkg.version),
    // The tokens file is never indexed, whatever path leads to it (the boot refuses one inside CORPUS_DIR).
    excludedFiles: fileIdentities([config.auth.tokensFile]),
    ...(indexFile === undefined ? {} : { indexFile: resolve(indexFile) }),
  };
}
