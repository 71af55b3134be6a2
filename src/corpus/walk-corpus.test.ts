// The walk hands files to a caller that looks at each once, and gives the event loop a turn inside a
// large folder: the snapshot check's thread walks while it waits for its job, and must take it in
// the middle of a folder of 100k files, not after it.
import { link, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileIdentities } from './file-identity.js';
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

  it('skips an excluded file by device and inode, under any name: a hard link, a link inside the root', async () => {
    const root = await mkdtemp(join(tmpdir(), 'corpus-mcp-walk-excluded-'));
    try {
      const secret = join(root, 'outside', 'tokens.txt');
      await mkdir(join(root, 'corpus', 'notes'), { recursive: true });
      await mkdir(join(root, 'outside'));
      await writeFile(secret, 'a-static-token-of-forty-characters-long\n');
      await link(secret, join(root, 'corpus', 'notes', 'tokens.txt'));
      await writeFile(join(root, 'corpus', 'real.txt'), 'a document');
      await symlink('notes/tokens.txt', join(root, 'corpus', 'alias.txt'));
      const walked = await walkCorpus(join(root, 'corpus'), undefined, { excluded: fileIdentities([secret]) });
      expect(walked.files.map((f) => f.source)).toEqual(['real.txt']);
      const reason = "the server's own secret (AUTH_TOKENS_FILE), never indexed";
      expect(walked.skipped).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'notes/tokens.txt', reason }), expect.objectContaining({ path: 'alias.txt', reason })]));
      expect((await walkCorpus(join(root, 'corpus'))).files.map((f) => f.source).sort()).toEqual(['alias.txt', 'notes/tokens.txt', 'real.txt']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
