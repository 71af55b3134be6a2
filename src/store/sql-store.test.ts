import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeStoreContract } from '../../test/support/store-contract.js';
import { openStore } from './open-store.js';

describeStoreContract('embedded store (SQLite, in memory)', (now) => openStore({ dataDir: undefined, now }));

describe('openStore', () => {
  it('keeps records across a close and a reopen of the same folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'corpus-store-'));
    try {
      const first = await openStore({ dataDir: dir });
      await first.put('RefreshToken', 'r1', { scope: 'offline_access' }, { grantId: 'g1', expiresAt: Date.now() + 60_000 });
      await first.close();
      const second = await openStore({ dataDir: dir });
      expect(await second.get('RefreshToken', 'r1')).toMatchObject({ payload: { scope: 'offline_access' }, grantId: 'g1' });
      await second.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('file modes', () => {
    const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);
    const files = (dir: string) => ['auth.sqlite', 'auth.sqlite-wal', 'auth.sqlite-shm'].map((f) => join(dir, f));

    it('creates the folder 0700 and the database with its -wal and -shm files 0600, whatever the umask', async () => {
      const parent = await mkdtemp(join(tmpdir(), 'corpus-store-'));
      const dir = join(parent, 'data');
      const umask = process.umask(0o022);
      try {
        const store = await openStore({ dataDir: dir });
        await store.put('RefreshToken', 'r1', {}, { expiresAt: Date.now() + 60_000 });
        expect(await mode(dir)).toBe('700');
        for (const file of files(dir)) expect([file, await mode(file)]).toEqual([file, '600']);
        await store.close();
      } finally {
        process.umask(umask);
        await rm(parent, { recursive: true, force: true });
      }
    });

    it('tightens a folder and files an older version left readable by others', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'corpus-store-'));
      try {
        const first = await openStore({ dataDir: dir });
        await first.put('Grant', 'g1', {});
        await first.close();
        await mkdir(dir, { recursive: true });
        await chmod(dir, 0o755);
        await chmod(join(dir, 'auth.sqlite'), 0o644);
        const second = await openStore({ dataDir: dir });
        await second.put('Grant', 'g2', {});
        expect(await mode(dir)).toBe('700');
        for (const file of files(dir)) expect([file, await mode(file)]).toEqual([file, '600']);
        await second.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  it('names the folder when it cannot be opened', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'corpus-store-'));
    const notAFolder = join(dir, 'file');
    await writeFile(notAFolder, 'x');
    try {
      await expect(openStore({ dataDir: join(notAFolder, 'data') })).rejects.toMatchObject({
        code: 'store_unavailable',
        message: expect.stringContaining(JSON.stringify(join(notAFolder, 'data'))),
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
