// The corpus watcher on real folders: what it watches, and that a link never leads it out of the corpus.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_FOLDER_DEPTH, walkCorpus } from '../corpus/walk-corpus.js';
import { silentLogger } from '../logger.js';
import { type CorpusWatcher, watchCorpus } from './corpus-watcher.js';

let dir: string;
let root: string;
let watcher: CorpusWatcher | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-watcher-'));
  root = join(dir, 'corpus');
  await mkdir(join(root, 'guides'), { recursive: true });
  await writeFile(join(root, 'a.md'), '# A\n');
  await writeFile(join(root, 'guides', 'b.md'), '# B\n');
});
afterEach(async () => {
  await watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true });
});

const watch = async (): Promise<CorpusWatcher> => {
  watcher = watchCorpus({ root, debounceMs: 10, onChange: () => undefined, logger: silentLogger });
  await watcher.ready;
  return watcher;
};

describe('watchCorpus', () => {
  it('does not descend a symbolic link to a big folder outside the corpus', async () => {
    const big = join(dir, 'big');
    for (let i = 0; i < 200; i += 1) await mkdir(join(big, `folder-${i}`, 'inner'), { recursive: true });
    await symlink(big, join(root, 'usr'));
    const { watchedFolders } = await watch();
    // The root, guides/, and the parent chokidar records for the root: not the 400 folders behind the link.
    expect(watchedFolders()).toBeLessThanOrEqual(4);
  });

  it('watches no deeper than the corpus walk reads', async () => {
    const deep = Array.from({ length: MAX_FOLDER_DEPTH + 5 }, (_, i) => `d${i}`);
    await mkdir(join(root, ...deep), { recursive: true });
    await writeFile(join(root, ...deep, 'deep.md'), '# Deep\n');
    const walked = await walkCorpus(root);
    expect(walked.skipped).toContainEqual(expect.objectContaining({ reason: `folder nested deeper than ${MAX_FOLDER_DEPTH} levels` }));
    const { watchedFolders } = await watch();
    // The root's parent, the root, guides/, one folder per level the walk reads, and the first level
    // it does not read, recorded without its entries: not the five levels below.
    expect(watchedFolders()).toBe(MAX_FOLDER_DEPTH + 4);
  });
});
