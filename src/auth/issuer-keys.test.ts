// The key cache against a real local authorization server, with a hand-driven clock so that minutes
// and hours pass instantly. Every assertion on load counts the requests the issuer really received.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAuthorizationServer } from '../../test/support/authorization-server.js';
import type { TestAuthorizationServer } from '../../test/support/authorization-server.js';
import { AuthError } from './auth-error.js';
import { createOAuthVerifier } from './oauth-verifier.js';
import type { OAuthVerifierOptions } from './oauth-verifier.js';

const audience = 'https://corpus.example/mcp';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let as: TestAuthorizationServer;
let clock: number;
beforeEach(async () => {
  as = await startAuthorizationServer({ audience });
  clock = 1_000_000;
});
afterEach(async () => as.close());

const requests = () => as.metadataRequests.length + as.jwksRequests;
const verifier = (options: Partial<OAuthVerifierOptions> = {}) =>
  createOAuthVerifier({ issuer: as.issuer, audience, now: () => clock, random: () => 0.5, timeoutMs: 2000, ...options });

async function code(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(AuthError);
  return (error as AuthError).code;
}

describe('createIssuerKeys (through createOAuthVerifier)', () => {
  it('remembers a failed discovery for the backoff: tokens in the meantime cause no request to the issuer', async () => {
    const token = await as.mint({});
    as.misbehave({ down: true });
    const v = verifier();
    expect(await code(v.verify(token))).toBe('temporarily_unavailable');
    const afterFirst = requests();
    expect(afterFirst).toBeGreaterThan(0);
    for (const t of [1, 10_000, 29_999]) {
      clock = 1_000_000 + t;
      expect(await code(v.verify(token))).toBe('temporarily_unavailable');
    }
    expect(requests()).toBe(afterFirst);
    // 30 s ± 20 %: with random() = 0.5 the backoff is exactly 30 s.
    clock = 1_000_000 + 30_001;
    as.misbehave({});
    const jwksBefore = as.jwksRequests;
    await expect(v.verify(token)).resolves.toMatchObject({ kind: 'oauth' });
    // One discovery, answered by the first metadata URL, then one key set.
    expect(requests()).toBe(afterFirst + 2);
    expect(as.jwksRequests).toBe(jwksBefore + 1);
  });

  it.each([
    [0, 24_000],
    [0.999, 35_988],
  ])('jitters the backoff: with random() = %d the issuer is asked again after %i ms', async (random, backoff) => {
    const token = await as.mint({});
    as.misbehave({ down: true });
    const v = verifier({ random: () => random });
    await code(v.verify(token));
    const afterFirst = requests();
    clock += backoff - 1;
    await code(v.verify(token));
    expect(requests()).toBe(afterFirst);
    clock += 2;
    await code(v.verify(token));
    // One more attempt, asking what the first asked; its failure is remembered in turn, so further
    // tokens at the same moment reach the issuer no more.
    expect(requests()).toBe(2 * afterFirst);
    for (let i = 0; i < 3; i++) await code(v.verify(token));
    expect(requests()).toBe(2 * afterFirst);
  });

  it('keeps verifying with the last good key set for hours after refetching fails, asking the issuer once per backoff', async () => {
    const token = await as.mint({});
    const v = verifier({ jwksUrl: as.jwksUrl });
    await v.verify(token);
    expect(as.jwksRequests).toBe(1);
    as.misbehave({ down: true });

    clock += 11 * MINUTE; // past the 10-minute max age: a refetch is due, and fails
    await expect(v.verify(token)).resolves.toMatchObject({ kind: 'oauth' });
    expect(as.jwksRequests).toBe(2);
    clock += 10_000; // within the backoff: no request
    await expect(v.verify(token)).resolves.toMatchObject({ kind: 'oauth' });
    expect(as.jwksRequests).toBe(2);
    clock += 5 * HOUR; // still within 6 hours of the last good fetch
    await expect(v.verify(token)).resolves.toMatchObject({ kind: 'oauth' });
    expect(as.jwksRequests).toBe(3);

    clock = 1_000_000 + 6 * HOUR + 1; // too old to trust any longer
    expect(await code(v.verify(token))).toBe('temporarily_unavailable');
  });

  it('refetches for an unknown kid at most once per cooldown (30 s), however many such tokens arrive', async () => {
    const v = verifier({ jwksUrl: as.jwksUrl });
    await v.verify(await as.mint({}));
    expect(as.jwksRequests).toBe(1);
    const stranger = await as.mint({}, { key: await as.foreignKey(), kid: 'stranger' });
    clock += 1000;
    for (let i = 0; i < 5; i++) expect(await code(v.verify(stranger))).toBe('invalid_token');
    expect(as.jwksRequests).toBe(1);
    clock += 30_000;
    for (let i = 0; i < 5; i++) expect(await code(v.verify(stranger))).toBe('invalid_token');
    expect(as.jwksRequests).toBe(2);
  });

  it('picks up a rotated-in key once the cooldown has passed', async () => {
    const v = verifier({ jwksUrl: as.jwksUrl });
    await v.verify(await as.mint({}));
    await as.rotateKey();
    const rotated = await as.mint({ sub: 'rotated' });
    clock += 30_001;
    await expect(v.verify(rotated)).resolves.toMatchObject({ id: 'oauth:sub:rotated' });
    expect(as.jwksRequests).toBe(2);
  });
});
