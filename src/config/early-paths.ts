// The two paths main.ts needs before it loads the configuration's schema (a few hundred milliseconds
// of loading on a small machine): the snapshot file and the corpus folder, read from the environment
// the way the schema reads them, to start checking the snapshot at once. The configuration's job
// decides in the end (produce-index.ts uses a check only for a job with these very paths), so a
// reading that differs costs a second start, never a wrong answer. Loads nothing.
import { resolve } from 'node:path';

/** The corpus folder when CORPUS_DIR is unset (schema.ts takes it from here). */
export const DEFAULT_CORPUS_DIR = './corpus';

/**
 * INDEX_FILE and CORPUS_DIR as absolute paths, and AUTH_TOKENS_FILE as given (the walk skips that
 * file), or undefined without INDEX_FILE.
 */
export function snapshotPathsFromEnvironment(env: NodeJS.ProcessEnv = process.env): { corpusRoot: string; indexFile: string; tokensFile?: string } | undefined {
  const indexFile = env.INDEX_FILE?.trim();
  if (!indexFile) return undefined;
  const tokensFile = env.AUTH_TOKENS_FILE?.trim();
  return { corpusRoot: resolve(env.CORPUS_DIR?.trim() || DEFAULT_CORPUS_DIR), indexFile: resolve(indexFile), ...(tokensFile ? { tokensFile } : {}) };
}
