// The corpus manifest on real files: what counts as a change, and that checking one reads and hashes
// bytes but never runs an extractor (a PDF or DOCX parse at every boot would cost as much as the
// build it avoids, outside the extraction pool's time limit).
import { mkdtemp, readFile, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeCorpusFiles } from '../../test/support/sample-corpus.js';
import type * as ExtractDocumentModule from '../corpus/extract/extract-document.js';
import { readCandidateBytes } from '../corpus/read-document.js';
import { contentDigest, decodeManifest, encodeManifest, manifestDifference, manifestOf, walkForManifest } from './corpus-manifest.js';
import type { Manifest } from './corpus-manifest.js';

vi.mock('../corpus/extract/extract-document.js', async (original) => ({
  ...(await original<typeof ExtractDocumentModule>()),
  extractDocument: () => {
    throw new Error('the manifest check ran an extractor');
  },
}));

const MAX_BYTES = 1000;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-manifest-'));
  await writeCorpusFiles(dir, {
    'a.md': '# A\n\nAlpha tomatoes.\n',
    'b.html': '<html><body><p><b>Bravo</b> harbour</p></body></html>',
    'big.txt': 'x'.repeat(MAX_BYTES + 1),
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The manifest a build would store: every walked file, digested when the build could read it. */
async function manifestNow(): Promise<Manifest> {
  const walked = await walkForManifest(dir);
  const digests = new Map<string, string>();
  for (const file of walked?.files ?? []) {
    const bytes = readCandidateBytes(file, MAX_BYTES);
    if (typeof bytes !== 'string') digests.set(file.source, contentDigest(bytes));
  }
  return manifestOf(walked?.files ?? [], digests);
}

const touch = async (name: string) => {
  const later = new Date(Date.now() + 5000);
  await utimes(join(dir, name), later, later);
};

describe('manifestDifference', () => {
  it('matches an unchanged corpus', async () => {
    const manifest = await manifestNow();
    expect(manifest.map((e) => [e[0], e[5] === null])).toEqual([
      ['a.md', false],
      ['b.html', false],
      ['big.txt', true],
    ]);
    expect(await manifestDifference(manifest, dir, MAX_BYTES)).toBeUndefined();
  });

  it('matches when files were only touched: their bytes are hashed, not extracted', async () => {
    const manifest = await manifestNow();
    await touch('a.md');
    await touch('b.html');
    await touch('big.txt');
    expect(await manifestDifference(manifest, dir, MAX_BYTES)).toBeUndefined();
  });

  it('finds a same-size edit behind a new time, even one that leaves the extracted text alike', async () => {
    const manifest = await manifestNow();
    const path = join(dir, 'b.html');
    await writeFile(path, (await readFile(path, 'utf8')).replaceAll('<b>', '<i>').replaceAll('</b>', '</i>'));
    await touch('b.html');
    expect(await manifestDifference(manifest, dir, MAX_BYTES)).toBe('1 changed ("b.html")');
  });

  it('finds a same-size edit whose modification time was put back (as cp -p, rsync -t and tar do)', async () => {
    const path = join(dir, 'b.html');
    // A whole second, so that putting it back is exact (a Date holds no nanoseconds).
    const time = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await utimes(path, time, time);
    const manifest = await manifestNow();
    await writeFile(path, (await readFile(path, 'utf8')).replace('Bravo', 'Brava'));
    await utimes(path, time, time);
    expect((await stat(path)).mtimeMs).toBe(time.getTime());
    await expect(manifestDifference(manifest, dir, MAX_BYTES, { readTouched: false })).rejects.toMatchObject({ name: 'UnreadFileError', source: 'b.html' });
    expect(await manifestDifference(manifest, dir, MAX_BYTES)).toBe('1 changed ("b.html")');
  });

  it('reads no file when told not to, and says which file only its bytes could decide', async () => {
    const manifest = await manifestNow();
    expect(await manifestDifference(manifest, dir, MAX_BYTES, { readTouched: false })).toBeUndefined();
    await touch('b.html');
    await expect(manifestDifference(manifest, dir, MAX_BYTES, { readTouched: false })).rejects.toMatchObject({ name: 'UnreadFileError', source: 'b.html' });
  });

  it('names files added, resized and removed', async () => {
    const manifest = await manifestNow();
    await writeFile(join(dir, 'c.md'), '# C\n');
    await writeFile(join(dir, 'a.md'), '# A\n\nAlpha tomatoes, longer now.\n');
    await unlink(join(dir, 'big.txt'));
    expect(await manifestDifference(manifest, dir, MAX_BYTES)).toBe('1 added ("c.md"), 1 changed ("a.md"), 1 removed ("big.txt")');
  });
});

describe('decodeManifest', () => {
  it('reads back what encodeManifest stored', async () => {
    const manifest = await manifestNow();
    expect(decodeManifest(encodeManifest(manifest)).entries()).toEqual(manifest);
  });

  it.each([
    ['a manifest of the first format (a bare list without status-change times or inodes)', '[["a.md",3,1,"digest"]]', 'foreign'],
    ['a manifest of the second format (JSON entries)', '{"format":2,"files":[["a.md",3,1,2,7,null]]}', 'foreign'],
    ['a manifest of a later format', '{"format":99,"files":[]}', 'foreign'],
    ['bytes that are not JSON', '{', 'corrupt'],
    ['entries of the wrong shape', '{"format":2,"files":[["a.md",3,1,"digest"]]}', 'foreign'],
  ])('refuses %s', (_name, text, code) => {
    expect(() => decodeManifest(new TextEncoder().encode(text))).toThrow(expect.objectContaining({ name: 'ManifestFormatError', code }));
  });

  /** The stored form of the manifest now, damaged by `damage`. */
  const damaged = async (damage: (bytes: Uint8Array, view: DataView) => Uint8Array): Promise<Uint8Array> => {
    const bytes = encodeManifest(await manifestNow());
    return damage(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  };

  it.each([
    ['a binary manifest of a later format', (bytes: Uint8Array, view: DataView) => (view.setUint32(8, 99, true), bytes), 'foreign'],
    ['a binary manifest cut short', (bytes: Uint8Array) => bytes.subarray(0, 40), 'corrupt'],
    ['a binary manifest without its magic', (bytes: Uint8Array) => (bytes.fill(0, 0, 8), bytes), 'corrupt'],
    ['a binary manifest that lists more files than it names', (bytes: Uint8Array, view: DataView) => (view.setUint32(12, 4, true), bytes), 'corrupt'],
    ['a binary manifest whose sources are not UTF-8', (bytes: Uint8Array) => (bytes.fill(0xff, bytes.length - 3), bytes), 'corrupt'],
    ['a binary manifest with a source too many', (bytes: Uint8Array) => new Uint8Array([...bytes, 0, 0x7a]), 'corrupt'],
  ])('refuses %s', async (_name, damage, code) => {
    const bytes = await damaged(damage);
    expect(() => decodeManifest(bytes)).toThrow(expect.objectContaining({ name: 'ManifestFormatError', code }));
  });

  it('reads a manifest inside a larger buffer, on any byte boundary, and an empty one', async () => {
    const manifest = await manifestNow();
    const shifted = new Uint8Array(encodeManifest(manifest).length + 3);
    shifted.set(encodeManifest(manifest), 3);
    expect(decodeManifest(shifted.subarray(3)).entries()).toEqual(manifest);
    expect(decodeManifest(encodeManifest([])).entries()).toEqual([]);
    // A section of a file read into a Buffer, as the build process reads a snapshot.
    expect(decodeManifest(Buffer.concat([Buffer.alloc(16, 7), encodeManifest(manifest), Buffer.alloc(16, 7)]).subarray(16, -16)).entries()).toEqual(manifest);
  });
});
