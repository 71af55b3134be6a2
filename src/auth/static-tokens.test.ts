import { createHash } from 'node:crypto';
import type * as NodeCrypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createStaticTokens, principalIdForToken, StaticTokenConfigError } from './static-tokens.js';

// Counts the constant-time comparisons the matcher makes, to check it never exits early.
const comparisons = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof NodeCrypto>();
  return {
    ...crypto,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      comparisons.count += 1;
      return crypto.timingSafeEqual(a, b);
    },
  };
});

const alice = 'a'.repeat(24) + '0123456789abcdef';
const bob = 'b'.repeat(24) + 'fedcba9876543210';

describe('createStaticTokens', () => {
  describe('match', () => {
    it('returns a static principal for each configured token and nothing for any other', () => {
      const tokens = createStaticTokens([alice, bob]);
      expect(tokens.match(alice)).toEqual({ id: principalIdForToken(alice), kind: 'static', scopes: [] });
      expect(tokens.match(bob)?.id).toBe(principalIdForToken(bob));
      expect(tokens.match(alice + 'x')).toBeUndefined();
      expect(tokens.match(alice.slice(0, -1))).toBeUndefined();
      expect(tokens.match('')).toBeUndefined();
    });

    it('compares the presented token with every configured token, whether it matches the first, the last or none', () => {
      const many = Array.from({ length: 7 }, (_, i) => `${String(i).repeat(32)}-token`);
      const tokens = createStaticTokens(many);
      for (const presented of [many[0]!, many[6]!, 'x'.repeat(40)]) {
        comparisons.count = 0;
        tokens.match(presented);
        expect(comparisons.count).toBe(7);
      }
    });

    it('does not hand out a principal object that a caller could mutate for the next request', () => {
      const tokens = createStaticTokens([alice]);
      tokens.match(alice)!.scopes.push('admin');
      expect(tokens.match(alice)!.scopes).toEqual([]);
    });
  });

  describe('validation', () => {
    it('refuses short tokens at construction, naming the entry by position and never by value', () => {
      const short = 'too-short-secret';
      expect(() => createStaticTokens([alice, short], { label: 'AUTH_TOKENS' })).toThrow(StaticTokenConfigError);
      expect(() => createStaticTokens([alice, short], { label: 'AUTH_TOKENS' })).toThrow(
        expect.objectContaining({
          name: 'StaticTokenConfigError',
          code: 'invalid_static_token',
          message: expect.stringContaining('AUTH_TOKENS entry 2') as string,
        }),
      );
      expect(() => createStaticTokens([alice, short], { label: 'AUTH_TOKENS' })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(short) }));
    });

    it('refuses tokens with characters an Authorization header cannot carry', () => {
      expect(() => createStaticTokens([alice + ' space'])).toThrow(/entry 1 contains characters/);
    });
  });
});

describe('principalIdForToken', () => {
  it('is stable, short, and does not contain the token', () => {
    const id = principalIdForToken(alice);
    expect(id).toBe(principalIdForToken(alice));
    expect(id).toMatch(/^token:[0-9a-f]{12}$/);
    expect(id).not.toBe(principalIdForToken(bob));
    // A one-way, domain-separated digest: 48 bits of SHA-256 over a prefixed token, not of the token
    // itself (so it cannot be matched against other systems' unsalted hashes of the same token).
    const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);
    expect(id).toBe(`token:${digest(`corpus-mcp/principal-id\0${alice}`)}`);
    expect(id).not.toBe(`token:${digest(alice)}`);
  });
});
