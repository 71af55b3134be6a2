import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/store.js';
import { createStoreAdapter } from './store-adapter.js';

describe('createStoreAdapter', () => {
  let store: Store;
  const clock = { now: 1_700_000_000_000 };
  const now = () => clock.now;
  beforeEach(async () => {
    store = await openStore({ dataDir: undefined, now });
  });
  afterEach(async () => {
    await store.close();
  });

  describe('refresh tokens', () => {
    const Adapter = () => createStoreAdapter(store, { refreshGraceMs: 120_000, now });

    it('reports a consumed refresh token as unconsumed within the grace window, consumed after it', async () => {
      const tokens = new (Adapter())('RefreshToken');
      await tokens.upsert('rt', { grantId: 'g', accountId: 'ada@example.com' }, 3600);
      await tokens.consume('rt');
      clock.now += 119_000;
      expect(await tokens.find('rt')).not.toHaveProperty('consumed');
      // A second use inside the window does not move the first-use time.
      await tokens.consume('rt');
      clock.now += 2_000;
      expect(await tokens.find('rt')).toMatchObject({ consumed: expect.any(Number) });
    });

    it('gives no grace to other consumables: a used authorization code is consumed at once', async () => {
      const codes = new (Adapter())('AuthorizationCode');
      await codes.upsert('code', { grantId: 'g' }, 60);
      await codes.consume('code');
      expect(await codes.find('code')).toMatchObject({ consumed: expect.any(Number) });
    });

    it('revokeByGrantId removes every record of the grant', async () => {
      const A = Adapter();
      await new A('Grant').upsert('g', { accountId: 'ada@example.com' }, 3600);
      await new A('RefreshToken').upsert('rt', { grantId: 'g' }, 3600);
      await new A('RefreshToken').revokeByGrantId('g');
      expect(await new A('RefreshToken').find('rt')).toBeUndefined();
      expect(await new A('Grant').find('g')).toBeUndefined();
    });
  });

  describe('registrations', () => {
    it('expires a dynamically registered client that gets no grant after unusedClientTtlSeconds', async () => {
      const clients = new (createStoreAdapter(store, { refreshGraceMs: 120_000, unusedClientTtlSeconds: 86_400, now }))('Client');
      await clients.upsert('c1', { client_id: 'c1', redirect_uris: ['http://localhost:1/cb'] });
      expect(await clients.find('c1')).toMatchObject({ client_id: 'c1' });
      clock.now += 86_400_000;
      expect(await clients.find('c1')).toBeUndefined();
    });
  });

  it('finds sessions by uid', async () => {
    const sessions = new (createStoreAdapter(store, { refreshGraceMs: 120_000, now }))('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'ada@example.com' }, 3600);
    expect(await sessions.findByUid('u1')).toMatchObject({ accountId: 'ada@example.com' });
    expect(await sessions.findByUserCode()).toBeUndefined();
  });
});
