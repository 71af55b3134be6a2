// The walk hands files to a caller that looks at each once, and gives the event loop a turn inside a
// large folder: the snapshot check's thread walks while it waits for its job, and must take it in
// the middle of a folder of 100k files, not after it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { walkCorpus } from './walk-corpus.js';
import type { FileCandidate } from './walk-corpus.js';

const FILES = 5000;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-walk-'));
  await Promise.all(Array.from({ length: FILES }, (_, i) => writeFile(join(dir, `doc-${String(i).padStart(5, '0')}.md`), '# x\n')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('walkCorpus', () => {
  it('hands each file to onFile, in source order within a folder, and returns none', async () => {
    const seen: FileCandidate[] = [];
    const { files } = await walkCorpus(dir, (file) => seen.push(file));
    expect(files).toEqual([]);
    expect(seen).toHaveLength(FILES);
    expect(seen.map((f) => f.source)).toEqual([...seen.map((f) => f.source)].sort());
    expect(seen[0]).toMatchObject({ source: 'doc-00000.md', format: 'markdown', size: 4 });
  });

  it('lets other work run while it is inside a large folder', async () => {
    let turned = false;
    let turnedBeforeLast = false;
    let count = 0;
    await walkCorpus(dir, () => {
      count += 1;
      if (count === 1) setImmediate(() => (turned = true));
      if (count === FILES) turnedBeforeLast = turned;
    });
    expect(turnedBeforeLast).toBe(true);
  });
});
