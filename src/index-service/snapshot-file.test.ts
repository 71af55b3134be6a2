import { lstat, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeSnapshotFile, writeSnapshotFileInPieces } from './snapshot-file.js';

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

  it('replaces a leftover temporary file of its own process and thread', async () => {
    const path = join(dir, 'index.snapshot');
    await writeFile(`${path}.${process.pid}-${threadId}.tmp`, 'left over by a write that failed');
    await write(path);
    expect((await readFile(path)).subarray(0, BYTES.length)).toEqual(Buffer.from(BYTES));
  });
});
