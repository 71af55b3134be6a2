import { EncryptJWT } from 'jose';
import { hkdfSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSessionTokens, SessionTokenError } from './session-token.js';

const SECRET = 'a-session-secret-of-at-least-32-characters!';
const DAY = 86_400;
const CLAIMS = { principal: 'static:alice', protocolVersion: '2025-06-18', clientInfo: { name: 'claude', version: '1.2.3' }, capabilities: { roots: { listChanged: true } } };

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SessionTokenError) return error.code;
    throw error;
  }
  return 'opened';
}

describe('createSessionTokens', () => {
  it('refuses a secret shorter than 32 characters and a max age below one second', () => {
    expect(() => createSessionTokens({ secret: 'x'.repeat(31), maxAgeSeconds: DAY })).toThrow(/at least 32 characters, got 31/);
    expect(() => createSessionTokens({ secret: SECRET, maxAgeSeconds: 0 })).toThrow(/maxAgeSeconds/);
  });

  describe('issue and open', () => {
    it('gives back what the session needs, with issue and expiry times', async () => {
      let clock = 1_800_000_000_000;
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: 3600, now: () => clock });
      const id = (await tokens.issue(CLAIMS)).id;
      clock += 10_000;
      expect(await tokens.open(id)).toEqual({ ...CLAIMS, issuedAt: 1_800_000_000, expiresAt: 1_800_003_600 });
    });

    it('is opened by another instance holding the same secret (another replica)', async () => {
      const id = (await createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY }).issue(CLAIMS)).id;
      expect((await createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY }).open(id)).principal).toBe('static:alice');
    });

    it('keeps no principal when authentication is off', async () => {
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY });
      expect((await tokens.open((await tokens.issue({ ...CLAIMS, principal: undefined })).id)).principal).toBeUndefined();
    });

    it('makes a different id for every session, even with identical claims in the same second', async () => {
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY, now: () => 1_800_000_000_000 });
      expect((await tokens.issue(CLAIMS)).id).not.toBe((await tokens.issue(CLAIMS)).id);
    });

    it('uses only characters allowed in Mcp-Session-Id (visible ASCII) and does not show the principal', async () => {
      const id = (await createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY }).issue(CLAIMS)).id;
      expect(id).toMatch(/^[\x21-\x7e]+$/);
      expect(Buffer.from(id.split('.').join(''), 'base64url').toString('latin1')).not.toContain('alice');
    });

    it('keeps only the essentials of oversized client info and capabilities, so the id stays small', async () => {
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY });
      const big = 'data:image/png;base64,' + 'A'.repeat(20_000);
      const { id } = await tokens.issue({
        ...CLAIMS,
        clientInfo: { name: 'c', version: '1', title: 'Client', icons: [{ src: big }] } as typeof CLAIMS.clientInfo,
        capabilities: { experimental: { blob: { data: big } }, sampling: {} },
      });
      expect(id.length).toBeLessThan(1000);
      const claims = await tokens.open(id);
      expect(claims.clientInfo).toEqual({ name: 'c', version: '1', title: 'Client' });
      expect(claims.capabilities).toEqual({ experimental: {}, sampling: {} });
    });
  });

  describe('open refuses', () => {
    it('an id made with another secret (forged)', async () => {
      const forged = (await createSessionTokens({ secret: 'another-secret-of-at-least-32-characters', maxAgeSeconds: DAY }).issue(CLAIMS)).id;
      expect(await failure(createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY }).open(forged))).toBe('invalid');
    });

    it.each([1, 2, 3, 4])('an id with part %i altered (tampered)', async (part) => {
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY });
      const parts = ((await tokens.issue(CLAIMS)).id).split('.');
      if (part === 1) parts[0] = Buffer.from('{"alg":"dir","enc":"A256GCM","typ":"mcp-session+jwt","x":1}').toString('base64url');
      else {
        const bytes = Buffer.from(parts[part]!, 'base64url');
        bytes[0] = bytes[0]! ^ 1;
        parts[part] = bytes.toString('base64url');
      }
      expect(await failure(tokens.open(parts.join('.')))).toBe('invalid');
    });

    it('an id past its expiry', async () => {
      let clock = 1_800_000_000_000;
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: 60, now: () => clock });
      const id = (await tokens.issue(CLAIMS)).id;
      clock += 59_000;
      expect(await failure(tokens.open(id))).toBe('opened');
      clock += 1_000;
      expect(await failure(tokens.open(id))).toBe('expired');
    });

    it('an id that claims a longer life than this server grants', async () => {
      let clock = 1_800_000_000_000;
      const id = (await createSessionTokens({ secret: SECRET, maxAgeSeconds: 86_400, now: () => clock }).issue(CLAIMS)).id;
      clock += 120_000;
      expect(await failure(createSessionTokens({ secret: SECRET, maxAgeSeconds: 60, now: () => clock }).open(id))).toBe('expired');
    });

    it('an id that is not a token at all, or absurdly long', async () => {
      const tokens = createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY });
      expect(await failure(tokens.open('3f2a1c9e-7b1d-4a57-9f0e-6f3a2b1c0d9e'))).toBe('malformed');
      expect(await failure(tokens.open(`a..b.c.${'d'.repeat(10_000)}`))).toBe('malformed');
    });

    it('a well-encrypted token of another kind under the same key (wrong typ)', async () => {
      const key = new Uint8Array(hkdfSync('sha256', SECRET, 'corpus-mcp', 'mcp session id v1', 32));
      const other = await new EncryptJWT({ pv: '2025-06-18', ci: {}, cc: {} }).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).setIssuedAt().setExpirationTime('1h').encrypt(key);
      expect(await failure(createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY }).open(other))).toBe('invalid');
    });

    it('a token without the claims a session needs', async () => {
      const key = new Uint8Array(hkdfSync('sha256', SECRET, 'corpus-mcp', 'mcp session id v1', 32));
      const other = await new EncryptJWT({ ci: {}, cc: {} }).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'mcp-session+jwt' }).setIssuedAt().setExpirationTime('1h').encrypt(key);
      expect(await failure(createSessionTokens({ secret: SECRET, maxAgeSeconds: DAY }).open(other))).toBe('invalid');
    });
  });
});
