// main.ts starts the snapshot check from these paths before the configuration loads: they must read
// the environment as the configuration does, or every boot would start the check twice.
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { snapshotPathsFromEnvironment } from './early-paths.js';
import { loadConfig } from './load-config.js';

describe('snapshotPathsFromEnvironment', () => {
  const cases: Array<Record<string, string>> = [
    { INDEX_FILE: 'index.snapshot' },
    { INDEX_FILE: '/srv/index.snapshot', CORPUS_DIR: '/srv/docs' },
    { INDEX_FILE: 'data/index.snapshot', CORPUS_DIR: 'docs/' },
    { INDEX_FILE: 'index.snapshot', CORPUS_DIR: '' },
  ];
  for (const env of cases) {
    it(`reads ${JSON.stringify(env)} as the configuration does`, () => {
      const config = loadConfig(env);
      expect(snapshotPathsFromEnvironment(env)).toEqual({ corpusRoot: resolve(config.corpusDir), indexFile: resolve(config.indexFile as string) });
    });
  }

  it('has no paths without INDEX_FILE, as the configuration has no snapshot', () => {
    for (const env of [{}, { INDEX_FILE: '' }, { INDEX_FILE: '  ' }, { CORPUS_DIR: 'docs' }]) {
      expect(loadConfig(env).indexFile).toBeUndefined();
      expect(snapshotPathsFromEnvironment(env)).toBeUndefined();
    }
  });
});
