import { describe, expect, it } from 'vitest';
import type { Session, SessionEvent } from './session-registry.js';
import { SessionRegistry } from './session-registry.js';
import { listening } from '../../../test/support/listening.js';

function fakeSession(id: string, closes: string[]): Session {
  // Only what the registry touches: closing the server is how a session ends.
  const server = { close: async () => void closes.push(id) } as unknown as Session['server'];
  return { id, server, transport: {} as Session['transport'], owner: undefined, createdAt: 0 };
}

describe('SessionRegistry', () => {
  describe('constructor', () => {
    it.each([
      [{ maxSessions: 0, idleTtlMs: 1000 }, /maxSessions/],
      [{ maxSessions: 1.5, idleTtlMs: 1000 }, /maxSessions/],
      [{ maxSessions: 10, idleTtlMs: 0 }, /idleTtlMs/],
    ])('refuses %j', (options, message) => {
      expect(() => new SessionRegistry(options)).toThrow(message);
    });
  });

  describe('add', () => {
    it('evicts the least recently used session beyond maxSessions, closing it and reporting "evicted"', async () => {
      const closes: string[] = [];
      const events: string[] = [];
      const registry = new SessionRegistry({ maxSessions: 2, idleTtlMs: 60_000, events: listening('session', (e: SessionEvent) => void events.push(`${e.type}:${e.session.id}`)) });
      registry.add(fakeSession('a', closes));
      registry.add(fakeSession('b', closes));
      registry.get('a');
      registry.add(fakeSession('c', closes));
      await Promise.resolve();
      expect(registry.get('b')).toBeUndefined();
      expect(registry.get('a')?.id).toBe('a');
      expect(closes).toEqual(['b']);
      expect(events).toEqual(['created:a', 'created:b', 'evicted:b', 'created:c']);
    });
  });

  describe('peek', () => {
    it('returns the session without refreshing it, so a peeked session is still the first evicted', async () => {
      const closes: string[] = [];
      const registry = new SessionRegistry({ maxSessions: 2, idleTtlMs: 60_000 });
      registry.add(fakeSession('a', closes));
      registry.add(fakeSession('b', closes));
      expect(registry.peek('a')?.id).toBe('a');
      registry.add(fakeSession('c', closes));
      await Promise.resolve();
      expect(registry.peek('a')).toBeUndefined();
      expect(closes).toEqual(['a']);
    });
  });

  describe('delete', () => {
    it('closes the session once and reports "deleted"; deleting again is harmless', async () => {
      const closes: string[] = [];
      const events: string[] = [];
      const registry = new SessionRegistry({ maxSessions: 5, idleTtlMs: 60_000, events: listening('session', (e) => void events.push(e.type)) });
      registry.add(fakeSession('a', closes));
      registry.delete('a');
      registry.delete('a');
      await Promise.resolve();
      expect(closes).toEqual(['a']);
      expect(events).toEqual(['created', 'deleted']);
      expect(registry.size).toBe(0);
    });
  });

  describe('closeAll', () => {
    it('closes every session and reports "shutdown" for each', async () => {
      const closes: string[] = [];
      const events: string[] = [];
      const registry = new SessionRegistry({ maxSessions: 5, idleTtlMs: 60_000, events: listening('session', (e) => void events.push(e.type)) });
      registry.add(fakeSession('a', closes));
      registry.add(fakeSession('b', closes));
      await registry.closeAll();
      expect(new Set(closes)).toEqual(new Set(['a', 'b']));
      expect(events.filter((e) => e === 'shutdown')).toHaveLength(2);
      expect(registry.size).toBe(0);
    });
  });

  describe('events', () => {
    it('cannot break the registry by throwing', () => {
      const registry = new SessionRegistry({
        maxSessions: 1,
        idleTtlMs: 60_000,
        events: listening('session', () => {
          throw new Error('hook failed');
        }),
      });
      expect(() => registry.add(fakeSession('a', []))).not.toThrow();
      expect(registry.get('a')?.id).toBe('a');
    });
  });
});
