// What the read does when the file system changed after the walk: a path swapped for a FIFO, a device,
// a symbolic link, or a folder on the way swapped for a link out of the corpus.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXTRACTION_LIMITS, extractDocument } from './extract/extract-document.js';
import { loadCorpus } from './load-corpus.js';
import { readDocument } from './read-document.js';
import type { Extract } from './read-document.js';
import { walkCorpus } from './walk-corpus.js';

const extract: Extract = (format, input) => extractDocument(format, input, DEFAULT_EXTRACTION_LIMITS);
const isRoot = process.getuid?.() === 0;

let base: string;
let root: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'corpus-read-'));
  root = join(base, 'root');
  await mkdir(join(root, 'guides'), { recursive: true });
  await writeFile(join(root, 'guides', 'a.md'), '# A\n\nInside the corpus.\n');
  await writeFile(join(root, 'b.md'), '# B\n\nAlso inside.\n');
  await mkdir(join(base, 'outside'));
  await writeFile(join(base, 'outside', 'a.md'), '# Secret\n\nOUTSIDE-THE-CORPUS\n');
});
afterEach(async () => rm(base, { recursive: true, force: true }));

async function candidate(source: string) {
  const walked = await walkCorpus(root);
  const found = walked.files.find((f) => f.source === source);
  expect(found).toBeDefined();
  return found!;
}

describe('readDocument after the walk', () => {
  it('skips a file swapped for a FIFO without blocking', async () => {
    const file = await candidate('b.md');
    await unlink(join(root, 'b.md'));
    execFileSync('mkfifo', [join(root, 'b.md')]);
    const outcome = await readDocument(file, 1024 * 1024, extract);
    expect(outcome).toEqual({ kind: 'skipped', skipped: { path: 'b.md', reason: 'not a regular file (device, socket or pipe)' } });
  });

  it('skips a file swapped for a symbolic link, even one that stays inside the corpus', async () => {
    const file = await candidate('b.md');
    await unlink(join(root, 'b.md'));
    await symlink(join(root, 'guides', 'a.md'), join(root, 'b.md'));
    const outcome = await readDocument(file, 1024 * 1024, extract);
    expect(outcome).toMatchObject({ kind: 'skipped', skipped: { path: 'b.md', reason: expect.stringMatching(/^could not be read/) } });
  });

  it('skips a file whose folder was swapped for a link out of the corpus, reading nothing from outside', async () => {
    const file = await candidate('guides/a.md');
    await rename(join(root, 'guides'), join(root, 'guides-old'));
    await symlink(join(base, 'outside'), join(root, 'guides'));
    const outcome = await readDocument(file, 1024 * 1024, extract);
    expect(outcome).toEqual({ kind: 'skipped', skipped: { path: 'guides/a.md', reason: 'it was replaced by another file while loading' } });
    expect(JSON.stringify(outcome)).not.toContain('OUTSIDE-THE-CORPUS');
  });

  it('skips a file swapped for a character device (/dev/zero would never end) without reading it', async () => {
    const file = await candidate('b.md');
    const outcome = await readDocument({ ...file, absolutePath: '/dev/zero' }, 1024 * 1024, extract);
    expect(outcome).toEqual({ kind: 'skipped', skipped: { path: 'b.md', reason: 'not a regular file (device, socket or pipe)' } });
  });
});

describe('readDocument when the extractor fails', () => {
  it.each([
    ['a stack overflow', new RangeError('Maximum call stack size exceeded'), 'could not be read as MARKDOWN (Maximum call stack size exceeded)'],
    ['a value that is not an Error', 'boom', 'could not be read as MARKDOWN (boom)'],
  ])('skips only that file with its reason on %s', async (_name, thrown, reason) => {
    const failing: Extract = (format, input) => (input === '# B\n\nAlso inside.\n' ? Promise.reject(thrown) : extract(format, input));
    await expect(readDocument(await candidate('b.md'), 1024 * 1024, failing)).resolves.toEqual({ kind: 'skipped', skipped: { path: 'b.md', reason } });
    await expect(readDocument(await candidate('guides/a.md'), 1024 * 1024, failing)).resolves.toMatchObject({ kind: 'document' });
  });
});

describe('loadCorpus over special files', () => {
  it('skips a FIFO named like a document, without blocking', async () => {
    execFileSync('mkfifo', [join(root, 'pipe.md')]);
    const corpus = await loadCorpus(root);
    expect(corpus.skipped).toContainEqual({ path: 'pipe.md', reason: 'not a regular file (device, socket or pipe)', operatorOnly: true });
    expect(corpus.documents.map((d) => d.source)).toEqual(['b.md', 'guides/a.md']);
  });

  it.skipIf(!isRoot)('skips a device file named like a document (mknod needs root)', async () => {
    execFileSync('mknod', [join(root, 'zero.md'), 'c', '1', '5']);
    const corpus = await loadCorpus(root);
    expect(corpus.skipped).toContainEqual({ path: 'zero.md', reason: 'not a regular file (device, socket or pipe)', operatorOnly: true });
  });
});
