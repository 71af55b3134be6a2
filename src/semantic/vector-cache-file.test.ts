import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VectorCache } from '../search/vector-cache.js';
import { vectorCacheFile, vectorCachePath } from './vector-cache-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'corpus-mcp-vector-file-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sample = (): VectorCache => {
  const cache = new VectorCache('m@native', 2);
  cache.set(cache.key('a'), Float32Array.from([0.6, 0.8]));
  return cache;
};

describe('vectorCacheFile', () => {
  it('saves and loads a cache beside the snapshot', async () => {
    const path = vectorCachePath(join(dir, 'index.snapshot'));
    expect(path).toBe(join(dir, 'index.snapshot.vectors'));
    const refusals: string[] = [];
    const store = vectorCacheFile(path, (r) => refusals.push(r));
    expect(store.load()).toBeUndefined();
    expect(refusals).toEqual([]);
    await store.save(sample());
    const loaded = store.load()!;
    expect([...loaded.get(loaded.key('a'))!]).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  });

  it('saves the file owner-only (0600), even under a umask of 0', async () => {
    const path = vectorCachePath(join(dir, 'index.snapshot'));
    const saved = process.umask(0);
    try {
      await vectorCacheFile(path, () => undefined).save(sample());
    } finally {
      process.umask(saved);
    }
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('saves many vectors in pieces and reads every one back', async () => {
    const cache = new VectorCache('m@native', 3);
    for (let i = 0; i < 5000; i += 1) cache.set(cache.key(`passage ${i}`), Float32Array.from([i, -i, i / 2]));
    const store = vectorCacheFile(join(dir, 'index.snapshot.vectors'), (r) => {
      throw new Error(r);
    });
    await store.save(cache);
    const loaded = store.load()!;
    expect(loaded.size).toBe(5000);
    for (const i of [0, 1, 2047, 4999]) expect([...loaded.get(loaded.key(`passage ${i}`))!]).toEqual([i, -i, i / 2]);
  });

  it('removes the temporary files a save killed mid-way left behind, and only those', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid; // a process that has exited
    const path = join(dir, 'index.snapshot.vectors');
    const names = [
      `index.snapshot.vectors.${gone}-0.tmp`, // a dead writer's: removed
      `index.snapshot.vectors.${process.pid}-0.tmp`, // this process's own: kept
      `index.snapshot.${gone}-0.tmp`, // the index snapshot's, not this file's: kept
      'index.snapshot.vectors.notes.tmp',
    ];
    for (const name of names) await writeFile(join(dir, name), 'x');
    const leftovers: string[] = [];
    const store = vectorCacheFile(path, () => undefined, (file) => leftovers.push(file));
    expect(store.load()).toBeUndefined();
    expect(leftovers).toEqual([join(dir, names[0]!)]);
    expect((await readdir(dir)).sort()).toEqual(names.slice(1).sort());
  });

  it('refuses a file whose bytes were changed, saying why', async () => {
    const path = join(dir, 'index.snapshot.vectors');
    const refusals: string[] = [];
    const store = vectorCacheFile(path, (r) => refusals.push(r));
    await store.save(sample());
    const bytes = await readFile(path);
    bytes[30] = (bytes[30] ?? 0) ^ 0xff;
    await writeFile(path, bytes);
    expect(store.load()).toBeUndefined();
    expect(refusals).toEqual([expect.stringMatching(/fails its checksum/)]);
    await writeFile(path, bytes.subarray(0, 10));
    expect(store.load()).toBeUndefined();
    expect(refusals).toHaveLength(2);
  });
});
