import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKeys } from './keys.js';

describe('deriveKeys', () => {
  it('derives the same keys from the same secret, so restarts and replicas agree', () => {
    expect(deriveKeys('a'.repeat(40))).toEqual(deriveKeys('a'.repeat(40)));
    expect(deriveKeys('a'.repeat(40)).signing.d).not.toBe(deriveKeys('b'.repeat(40)).signing.d);
    expect(deriveKeys('a'.repeat(40)).cookieKeys).not.toEqual(deriveKeys('b'.repeat(40)).cookieKeys);
  });

  it('derives a working P-256 key pair whose public half carries no private part', () => {
    const { signing, verification } = deriveKeys('secret-secret-secret-secret-secret!');
    expect(verification).not.toHaveProperty('d');
    const signature = sign('sha256', Buffer.from('x'), createPrivateKey({ key: { ...signing }, format: 'jwk' }));
    expect(verify('sha256', Buffer.from('x'), createPublicKey({ key: { ...verification }, format: 'jwk' }), signature)).toBe(true);
  });

  it('refuses a secret shorter than 32 characters', () => {
    expect(() => deriveKeys('short')).toThrow(/at least 32/);
  });
});
