// The behaviour every Store backend must show. Each backend's test calls `describeStoreContract`
// with a way to open a fresh, empty store whose clock the test controls.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.js';

export interface ContractClock {
  now: number;
}

export function describeStoreContract(name: string, open: (clock: () => number) => Promise<Store>): void {
  describe(`${name} (Store contract)`, () => {
    let store: Store;
    const clock: ContractClock = { now: 1_000_000 };
    beforeEach(async () => {
      clock.now = 1_000_000;
      store = await open(() => clock.now);
    });
    afterEach(async () => {
      await store.close();
    });

    describe('put / get', () => {
      it('returns what was stored, with its indexes', async () => {
        await store.put('Grant', 'g1', { accountId: 'ada@example.com', nested: { a: [1, 2] } }, {
          accountId: 'ada@example.com', expiresAt: 2_000_000,
        });
        expect(await store.get('Grant', 'g1')).toEqual({
          kind: 'Grant', id: 'g1', payload: { accountId: 'ada@example.com', nested: { a: [1, 2] } },
          grantId: undefined, uid: undefined, accountId: 'ada@example.com', expiresAt: 2_000_000, consumedAt: undefined,
        });
      });

      it('keeps kinds apart: the same id under another kind is another record', async () => {
        await store.put('Grant', 'x', { k: 'grant' });
        await store.put('Session', 'x', { k: 'session' });
        expect((await store.get('Grant', 'x'))?.payload).toEqual({ k: 'grant' });
        expect((await store.get('Session', 'x'))?.payload).toEqual({ k: 'session' });
        expect(await store.get('Client', 'x')).toBeUndefined();
      });

      it('replaces a record on a second put but keeps its consumption', async () => {
        await store.put('AuthorizationCode', 'c', { v: 1 });
        await store.consume('AuthorizationCode', 'c', 1_000_100);
        await store.put('AuthorizationCode', 'c', { v: 2 });
        expect(await store.get('AuthorizationCode', 'c')).toMatchObject({ payload: { v: 2 }, consumedAt: 1_000_100 });
      });

      it('never returns an expired record', async () => {
        await store.put('Interaction', 'i', { v: 1 }, { expiresAt: 1_000_500 });
        expect(await store.get('Interaction', 'i')).toBeDefined();
        clock.now = 1_000_500;
        expect(await store.get('Interaction', 'i')).toBeUndefined();
        expect(await store.consume('Interaction', 'i', clock.now)).toBeUndefined();
      });
    });

    describe('getByUid', () => {
      it('finds a live record of the kind by its uid', async () => {
        await store.put('Session', 's1', { n: 1 }, { uid: 'u-1' });
        await store.put('Session', 's2', { n: 2 }, { uid: 'u-2', expiresAt: 1_000_001 });
        expect((await store.getByUid('Session', 'u-1'))?.id).toBe('s1');
        clock.now = 1_000_002;
        expect(await store.getByUid('Session', 'u-2')).toBeUndefined();
        expect(await store.getByUid('Grant', 'u-1')).toBeUndefined();
      });
    });

    describe('consume', () => {
      it('returns the first consumption time to every caller, concurrent ones included', async () => {
        await store.put('RefreshToken', 'r', { v: 1 });
        const times = await Promise.all([1, 2, 3, 4, 5].map((i) => store.consume('RefreshToken', 'r', 1_000_000 + i)));
        const first = times[0]!;
        expect(times).toEqual([first, first, first, first, first]);
        expect(await store.consume('RefreshToken', 'r', 9_999_999)).toBe(first);
      });

      it('returns undefined for a record that does not exist', async () => {
        expect(await store.consume('RefreshToken', 'missing', 1)).toBeUndefined();
      });
    });

    describe('deleteGrant / deleteAccount / delete', () => {
      it('deleteGrant removes the grant and everything issued under it, nothing else', async () => {
        await store.put('Grant', 'g1', {}, { accountId: 'a' });
        await store.put('RefreshToken', 'r1', {}, { grantId: 'g1', accountId: 'a' });
        await store.put('AuthorizationCode', 'c1', {}, { grantId: 'g1', accountId: 'a' });
        await store.put('RefreshToken', 'r2', {}, { grantId: 'g2', accountId: 'a' });
        expect(await store.deleteGrant('g1')).toBe(3);
        expect(await store.get('Grant', 'g1')).toBeUndefined();
        expect(await store.get('RefreshToken', 'r1')).toBeUndefined();
        expect(await store.get('RefreshToken', 'r2')).toBeDefined();
      });

      it("deleteAccount removes one person's records only", async () => {
        await store.put('Grant', 'g1', {}, { accountId: 'ada@example.com' });
        await store.put('Session', 's1', {}, { accountId: 'ada@example.com' });
        await store.put('Grant', 'g2', {}, { accountId: 'bob@example.com' });
        expect(await store.deleteAccount('ada@example.com')).toBe(2);
        expect(await store.get('Grant', 'g1')).toBeUndefined();
        expect(await store.get('Grant', 'g2')).toBeDefined();
      });

      it('delete removes one record and ignores a missing one', async () => {
        await store.put('Client', 'c', {});
        await store.delete('Client', 'c');
        await store.delete('Client', 'c');
        expect(await store.get('Client', 'c')).toBeUndefined();
      });
    });

    describe('deleteOldest', () => {
      it('keeps the newest records of a uid group, removes the oldest, and leaves other groups and kinds alone', async () => {
        for (const [id, expiresAt] of [['c1', 1_000_100], ['c2', 1_000_300], ['c3', 1_000_200], ['c4', 1_000_400]] as const) {
          await store.put('Client', id, {}, { uid: 'unused', expiresAt });
        }
        await store.put('Client', 'used', {}, { expiresAt: 1_000_050 });
        await store.put('Session', 's', {}, { uid: 'unused', expiresAt: 1_000_050 });
        expect(await store.deleteOldest('Client', 'unused', 2)).toBe(2);
        for (const id of ['c1', 'c3']) expect(await store.get('Client', id)).toBeUndefined();
        for (const id of ['c2', 'c4', 'used']) expect(await store.get('Client', id)).toBeDefined();
        expect(await store.get('Session', 's')).toBeDefined();
        expect(await store.deleteOldest('Client', 'unused', 2)).toBe(0);
      });
    });

    describe('list / deleteExpired', () => {
      it('lists the live records of a kind and reclaims the expired ones', async () => {
        await store.put('Grant', 'a', {}, { expiresAt: 1_000_010 });
        await store.put('Grant', 'b', {}, { expiresAt: 3_000_000 });
        await store.put('Session', 's', {}, { expiresAt: 1_000_010 });
        clock.now = 1_000_020;
        expect((await store.list('Grant')).map((r) => r.id)).toEqual(['b']);
        expect(await store.deleteExpired(clock.now)).toBe(2);
        expect(await store.deleteExpired(clock.now)).toBe(0);
      });
    });
  });
}
