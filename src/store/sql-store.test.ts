import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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
