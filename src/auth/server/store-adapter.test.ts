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
    const Adapter = (options: { maxUnusedClients?: number } = {}) => createStoreAdapter(store, { refreshGraceMs: 120_000, unusedClientTtlSeconds: 86_400, now, ...options });

    it('expires a dynamically registered client that gets no grant after unusedClientTtlSeconds', async () => {
      const clients = new (Adapter())('Client');
      await clients.upsert('c1', { client_id: 'c1', redirect_uris: ['http://localhost:1/cb'] });
      expect(await clients.find('c1')).toMatchObject({ client_id: 'c1' });
      clock.now += 86_400_000;
      expect(await clients.find('c1')).toBeUndefined();
    });

    it('keeps at most maxUnusedClients registrations without a grant, removing the oldest first; a client with a grant stays', async () => {
      const A = Adapter({ maxUnusedClients: 3 });
      const clients = new A('Client');
      await clients.upsert('granted', { client_id: 'granted' });
      clock.now += 1000;
      await new A('Grant').upsert('g1', { clientId: 'granted', accountId: 'ada@example.com' }, 30 * 86_400);
      for (const id of ['c1', 'c2', 'c3', 'c4', 'c5']) {
        clock.now += 1000;
        await clients.upsert(id, { client_id: id });
      }
      const alive = [];
      for (const id of ['granted', 'c1', 'c2', 'c3', 'c4', 'c5']) if (await clients.find(id)) alive.push(id);
      expect(alive).toEqual(['granted', 'c3', 'c4', 'c5']);
    });

    it('keeps a client as long as its grant once a grant is saved for it', async () => {
      const A = Adapter();
      await new A('Client').upsert('c1', { client_id: 'c1' });
      await new A('Grant').upsert('g1', { clientId: 'c1', accountId: 'ada@example.com' }, 30 * 86_400);
      clock.now += 29 * 86_400_000;
      expect(await new A('Client').find('c1')).toMatchObject({ client_id: 'c1' });
      clock.now += 2 * 86_400_000;
      expect(await new A('Client').find('c1')).toBeUndefined();
    });
  });

  describe('sign-ins in progress', () => {
    const Adapter = (options: { maxPendingSignIns?: number } = {}) => createStoreAdapter(store, { refreshGraceMs: 120_000, now, ...options });

    it('keeps at most maxPendingSignIns Interaction records, removing the oldest first', async () => {
      const records = new (Adapter({ maxPendingSignIns: 3 }))('Interaction');
      for (let i = 0; i < 5; i++) {
        await records.upsert(`r${i}`, { jti: `r${i}` }, 600);
        clock.now += 1;
      }
      const kept = await Promise.all([0, 1, 2, 3, 4].map(async (i) => (await records.find(`r${i}`)) !== undefined));
      expect(kept).toEqual([false, false, true, true, true]);
    });

    it('counts each kind on its own, and leaves other kinds alone', async () => {
      const A = Adapter({ maxPendingSignIns: 1 });
      await new A('Interaction').upsert('i1', {}, 600);
      clock.now += 1;
      await new A('ReplayDetection').upsert('j1', {}, 600);
      await new A('Client').upsert('c1', { client_id: 'c1' });
      await new A('Session').upsert('s1', { uid: 'u1' }, 600);
      await new A('Session').upsert('s2', { uid: 'u2' }, 600);
      clock.now += 1;
      await new A('Interaction').upsert('i2', {}, 600);
      expect([await new A('Interaction').find('i1'), await new A('Interaction').find('i2')].map(Boolean)).toEqual([false, true]);
      expect(await new A('ReplayDetection').find('j1')).toBeDefined();
      expect(await new A('Client').find('c1')).toBeDefined();
      expect(await new A('Session').findByUid('u1')).toBeDefined();
      expect(await new A('Session').findByUid('u2')).toBeDefined();
    });

    it('finds no pending record by uid: its uid column names its group', async () => {
      const interactions = new (Adapter())('Interaction');
      await interactions.upsert('i1', { uid: 'i1' }, 600);
      expect(await interactions.findByUid('pending-sign-in')).toBeUndefined();
    });

    it.each([0, 1.5, -1])('refuses maxPendingSignIns %s at construction', (maxPendingSignIns) => {
      expect(() => Adapter({ maxPendingSignIns })).toThrow(RangeError);
    });
  });

  describe('lifetimes', () => {
    // Every model name oidc-provider 9 stores through an adapter; some upserts come without expiresIn.
    const KINDS = ['Session', 'AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'ClientCredentials', 'Client',
      'InitialAccessToken', 'RegistrationAccessToken', 'Interaction', 'ReplayDetection', 'PushedAuthorizationRequest', 'Grant',
      'BackchannelAuthenticationRequest'];

    it.each(KINDS)('gives a %s upserted without expiresIn an expiry, and the sweep removes it', async (kind) => {
      const A = createStoreAdapter(store, { refreshGraceMs: 0, unusedClientTtlSeconds: 3600, defaultTtlSeconds: 7200, now });
      await new A(kind).upsert('id-1', { clientId: 'c' });
      expect(await new A(kind).find('id-1')).toBeDefined();
      clock.now += 7200_000;
      expect(await store.deleteExpired(clock.now)).toBe(1);
      expect(await new A(kind).find('id-1')).toBeUndefined();
    });
  });

  describe('secrets at rest', () => {
    const A = () => createStoreAdapter(store, { refreshGraceMs: 0, now });
    const stored = async (kind: string) => JSON.stringify(await store.list(kind));

    it.each(['RefreshToken', 'AccessToken', 'AuthorizationCode', 'Session', 'Interaction', 'RegistrationAccessToken'])(
      'stores a %s under a hash of its id, without the id in the payload, and finds, consumes and destroys it by the id',
      async (kind) => {
        const secret = `secret-${kind}-value-0123456789`;
        const tokens = new (A())(kind);
        // An Interaction also carries its session's cookie value.
        const extra = kind === 'Interaction'
          ? { session: { accountId: 'ada@example.com', uid: 'u1', cookie: 'session-cookie-value' }, returnTo: `https://corpus.example/authorize/${secret}` }
          : {};
        await tokens.upsert(secret, { jti: secret, kind, grantId: 'g1', uid: 'u1', accountId: 'ada@example.com', ...extra }, 3600);
        expect(await stored(kind)).toContain('ada@example.com');
        expect(await stored(kind)).not.toContain(secret);
        expect(await stored(kind)).not.toContain('session-cookie-value');
        expect(await tokens.find(secret)).toMatchObject({ jti: secret, kind, grantId: 'g1', ...(kind === 'Interaction' ? { returnTo: `https://corpus.example/authorize/${secret}` } : {}) });
        await tokens.consume(secret);
        expect(await tokens.find(secret)).toMatchObject({ consumed: expect.any(Number) });
        await tokens.destroy(secret);
        expect(await tokens.find(secret)).toBeUndefined();
      },
    );

    it('moves a record stored under the issued value by an earlier version under its hash at first use, consumption kept', async () => {
      await store.put('RefreshToken', 'legacy-rt', { jti: 'legacy-rt', kind: 'RefreshToken', grantId: 'g1' }, { grantId: 'g1', expiresAt: clock.now + 3600_000 });
      await store.consume('RefreshToken', 'legacy-rt', clock.now - 1000);
      const tokens = new (A())('RefreshToken');
      expect(await tokens.find('legacy-rt')).toMatchObject({ jti: 'legacy-rt', grantId: 'g1', consumed: expect.any(Number) });
      expect(await store.get('RefreshToken', 'legacy-rt')).toBeUndefined();
      expect(await stored('RefreshToken')).not.toContain('legacy-rt');
      expect(await tokens.find('legacy-rt')).toMatchObject({ jti: 'legacy-rt', consumed: expect.any(Number) });
    });

    it('never returns a record whose stored id is the hash of another value', async () => {
      await store.put('RefreshToken', 'looks-like-a-token', { kind: 'RefreshToken' }, { expiresAt: clock.now + 3600_000 });
      expect(await new (A())('RefreshToken').find('looks-like-a-token')).toBeUndefined();
    });

    it('still finds a session by its uid and revokes tokens by grant id', async () => {
      const Adapter = A();
      await new Adapter('Session').upsert('session-cookie-value', { jti: 'session-cookie-value', uid: 'u1', accountId: 'ada@example.com' }, 3600);
      const byUid = await new Adapter('Session').findByUid('u1');
      expect(byUid).toMatchObject({ uid: 'u1', accountId: 'ada@example.com' });
      expect(byUid).not.toHaveProperty('jti');
      await new Adapter('RefreshToken').upsert('rt-value', { jti: 'rt-value', grantId: 'g1' }, 3600);
      await new Adapter('RefreshToken').revokeByGrantId('g1');
      expect(await new Adapter('RefreshToken').find('rt-value')).toBeUndefined();
    });

    it('keeps public ids as they are: a grant under its id (carried in access tokens), a client under its client_id', async () => {
      const Adapter = A();
      await new Adapter('Grant').upsert('g1', { jti: 'g1', accountId: 'ada@example.com', clientId: 'c1' }, 3600);
      await new Adapter('Client').upsert('c1', { client_id: 'c1' });
      expect(await store.get('Grant', 'g1')).toMatchObject({ payload: { jti: 'g1' } });
      expect(await store.get('Client', 'c1')).toBeDefined();
    });
  });

  it('finds sessions by uid', async () => {
    const sessions = new (createStoreAdapter(store, { refreshGraceMs: 120_000, now }))('Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'ada@example.com' }, 3600);
    expect(await sessions.findByUid('u1')).toMatchObject({ accountId: 'ada@example.com' });
    expect(await sessions.findByUserCode()).toBeUndefined();
  });
});
