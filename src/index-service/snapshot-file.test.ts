import { closeSync, openSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readFile, rm, stat, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markdownDocument as doc } from '../../test/support/markdown-document.js';
import { encodeIndexSnapshot } from '../search/snapshot-encode.js';
import { SearchIndex } from '../search/search-index.js';
import { openSnapshotFile, readSnapshotFileUnverified, writeSnapshotFile, writeSnapshotFileInPieces } from './snapshot-file.js';
import { SnapshotInFile } from './snapshot-in-file.js';
import { snapshotExtents } from './snapshot-digest.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-snapshot-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BYTES = new TextEncoder().encode('snapshot bytes');

describe.each([
  ['writeSnapshotFile', (path: string) => Promise.resolve(writeSnapshotFile(path, BYTES))],
  ['writeSnapshotFileInPieces', (path: string) => writeSnapshotFileInPieces(path, [BYTES.subarray(0, 4), BYTES.subarray(4)])],
])('%s', (_name, write) => {
  it('does not follow a symbolic link planted at its temporary path: the link target is untouched', async () => {
    const path = join(dir, 'index.snapshot');
    const target = join(dir, 'victim');
    await writeFile(target, 'precious');
    await symlink(target, `${path}.${process.pid}-${threadId}.tmp`);
    await write(path);
    expect(await readFile(target, 'utf8')).toBe('precious');
    expect((await lstat(path)).isFile()).toBe(true);
    expect((await readFile(path)).subarray(0, BYTES.length)).toEqual(Buffer.from(BYTES));
  });

  it.each([['0000', 0o000], ['0022', 0o022], ['0277', 0o277]])('writes the file owner-only (0600) under umask %s, over a world-readable one', async (_label, mask) => {
    const path = join(dir, 'index.snapshot');
    await writeFile(path, 'an older snapshot');
    await chmod(path, 0o644);
    const saved = process.umask(mask);
    try {
      await write(path);
    } finally {
      process.umask(saved);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('replaces a leftover temporary file of its own process and thread', async () => {
    const path = join(dir, 'index.snapshot');
    await writeFile(`${path}.${process.pid}-${threadId}.tmp`, 'left over by a write that failed');
    await write(path);
    expect((await readFile(path)).subarray(0, BYTES.length)).toEqual(Buffer.from(BYTES));
  });
});

describe('openSnapshotFile', () => {
  /** A real snapshot file (one document, a `manifest` section) at `dir/index.snapshot`. */
  const writeSnapshot = (): { path: string; bytes: Uint8Array } => {
    const index = SearchIndex.build([doc('a.md', '# A\n\nAlpha harbour tomatoes.\n', 'A')], {});
    const bytes = encodeIndexSnapshot(index, { engine: 'test-engine', extra: { manifest: new TextEncoder().encode('manifest bytes') } });
    const path = join(dir, 'index.snapshot');
    writeSnapshotFile(path, bytes);
    return { path, bytes };
  };

  it('reads the header and a section first, then the resident part of the file as the plain read has it', async () => {
    const { path, bytes } = writeSnapshot();
    const fd = openSync(path, 'r');
    const reader = openSnapshotFile(path, fd);
    expect(reader.header.engine).toBe('test-engine');
    expect(new TextDecoder().decode(reader.section('manifest'))).toBe('manifest bytes');
    expect(reader.section('absent')).toBeUndefined();
    const read = await reader.readResident();
    const plain = readSnapshotFileUnverified(path);
    expect(read.fd).toBe(fd);
    expect(read.resident.buffer).toBeInstanceOf(SharedArrayBuffer);
    for (const extent of snapshotExtents(read.header).extents) {
      if ('at' in extent) expect(read.resident.subarray(extent.at, extent.at + extent.to - extent.from)).toEqual(bytes.subarray(extent.from, extent.to));
    }
    expect(read.digest).toEqual(new Uint8Array(plain.digest));
    const file = new SnapshotInFile(read);
    expect(await file.verify()).toBe(true);
    file.close();
  });

  it.each([
    ['missing', async (_path: string) => {}, 'missing'],
    ['cut short', async (path: string) => truncate(path, 100), 'truncated'],
    ['cut inside its header', async (path: string) => truncate(path, 30), 'truncated'],
    ['another file', async (path: string) => writeFile(path, '# not a snapshot\n'.repeat(20)), 'not_a_snapshot'],
  ])('refuses a file %s before reading the rest', async (name, damage, code) => {
    const { path } = name === 'missing' ? { path: join(dir, 'absent.snapshot') } : writeSnapshot();
    await damage(path);
    expect(() => openSnapshotFile(path)).toThrow(expect.objectContaining({ name: 'SnapshotRefusal', code }));
  });

  it('refuses a file cut short after it was opened, while it is read', async () => {
    const { path } = writeSnapshot();
    const fd = openSync(path, 'r');
    const reader = openSnapshotFile(path, fd);
    await truncate(path, 100);
    await expect(reader.readResident()).rejects.toMatchObject({ name: 'SnapshotRefusal', code: 'truncated' });
    closeSync(fd);
  });
});
