// Writes the tiny test models (scripts/tiny-models/tiny-models.ts) into a folder, to try the local
// providers by hand: `npx tsx scripts/make-tiny-models.ts ./models`, then
// `EMBEDDINGS_PROVIDER=local EMBEDDINGS_MODEL=corpus-mcp/tiny-embed MODELS_DIR=./models npm run dev`.
import { resolve } from 'node:path';
import { writeTinyModels } from './tiny-models/tiny-models.js';

const target = resolve(process.argv[2] ?? 'models');
const written = writeTinyModels(target);
console.log(`tiny models written: ${written.embed}, ${written.rerank}`);
