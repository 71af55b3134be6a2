import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/store.js';
import { createAccounts } from './accounts.js';
import { createAllowlist } from './allowlist.js';
import type { GithubOrg, UpstreamIdentity } from './allowlist.js';
import { UpstreamLoginError } from './upstream-login.js';
import type { UpstreamLogin } from './upstream-login.js';

const ACME: GithubOrg = { id: 42, login: 'acme' };

const person = (subject: string, email: string, githubOrgs: GithubOrg[] = [ACME]): UpstreamIdentity => ({ subject, verifiedEmails: [email], githubOrgs });

/** A stub upstream whose `recheck` answers what `identities` maps each credential to. */
function upstreamStub(provider: UpstreamLogin['provider'], identities: Map<string, UpstreamIdentity | Error> = new Map()) {
  const recheck = vi.fn(async (credential: string) => {
    const answer = identities.get(credential);
    if (answer === undefined) throw new UpstreamLoginError('upstream_refused', `no such credential`);
    if (answer instanceof Error) throw answer;
    return answer;
  });
  const upstream: UpstreamLogin = {
    provider,
    start: () => Promise.reject(new Error('not used')),
    finish: () => Promise.reject(new Error('not used')),
    recheck,
  };
  return { upstream, recheck, identities };
}

describe('createAccounts', () => {
  let store: Store;
  const credentialKey = randomBytes(32);
  const allowlist = createAllowlist({ githubOrgs: ['acme'] });
  const accountsOn = (upstream: UpstreamLogin) => createAccounts({ store, allowlist, upstream, ttlSeconds: 3600, credentialKey });

  beforeEach(async () => {
    store = await openStore({ dataDir: undefined });
  });
  afterEach(async () => {
    await store.close();
  });

  it('refuses an account admitted through another provider than the one now configured', async () => {
    const emailAllowlist = createAllowlist({ emails: ['ada@example.com'] });
    const github = createAccounts({ store, allowlist: emailAllowlist, upstream: upstreamStub('github').upstream, ttlSeconds: 3600, credentialKey });
    expect(await github.admit({ identity: person('1', 'ada@example.com', []) })).toMatchObject({ allowed: true, accountId: 'ada@example.com' });
    expect(await github.standing('ada@example.com')).toMatchObject({ allowed: true });

    // Same store, same allowlist (the email is still listed), but the server now signs in through OIDC.
    const oidc = createAccounts({ store, allowlist: emailAllowlist, upstream: upstreamStub('oidc').upstream, ttlSeconds: 3600, credentialKey });
    const decision = await oidc.standing('ada@example.com');
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? '' : decision.reason).toContain('signed in through github, not oidc');
  });

  it('refuses on refresh a GitHub credential that now names another person, though that person is allowed', async () => {
    const { upstream, identities } = upstreamStub('github');
    const accounts = accountsOn(upstream);
    identities.set('gho_ada', person('1', 'ada@example.com'));
    expect(await accounts.admit({ identity: person('1', 'ada@example.com'), recheckCredential: 'gho_ada' })).toMatchObject({ allowed: true });
    expect(await accounts.standing('ada@example.com', { recheckUpstream: true })).toMatchObject({ allowed: true });

    identities.set('gho_ada', person('2', 'ada@example.com')); // another GitHub user, still a member of acme
    const decision = await accounts.standing('ada@example.com', { recheckUpstream: true });
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? '' : decision.reason).toContain('now names another person');
  });

  it("does not open a credential copied onto another account's record: the upstream is never asked with it", async () => {
    const { upstream, identities, recheck } = upstreamStub('github');
    const accounts = accountsOn(upstream);
    // Both are members when they sign in; Bob's credential answers for Bob whatever record it sits on.
    identities.set('gho_ada', person('1', 'ada@example.com'));
    identities.set('gho_bob', person('2', 'bob@example.com'));
    await accounts.admit({ identity: person('1', 'ada@example.com'), recheckCredential: 'gho_ada' });
    await accounts.admit({ identity: person('2', 'bob@example.com'), recheckCredential: 'gho_bob' });

    // Ada's record now carries Bob's sealed credential and subject (someone with write access to the store),
    // so only the credential's binding to its account stands between Ada and Bob's standing.
    const ada = (await store.get('Account', 'ada@example.com'))!;
    const bob = (await store.get('Account', 'bob@example.com'))!;
    await store.put('Account', 'ada@example.com', { ...ada.payload, subject: '2', credential: bob.payload.credential }, { accountId: 'ada@example.com', expiresAt: ada.expiresAt });

    const decision = await accounts.standing('ada@example.com', { recheckUpstream: true });
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? '' : decision.reason).toContain('could not be read again');
    expect(recheck).not.toHaveBeenCalled();
  });

  it('ends access on refresh for a person who left the organisation, and keeps that answer for later checks', async () => {
    const { upstream, identities } = upstreamStub('github');
    const accounts = accountsOn(upstream);
    identities.set('gho_ada', person('1', 'ada@example.com'));
    await accounts.admit({ identity: person('1', 'ada@example.com'), recheckCredential: 'gho_ada' });

    identities.set('gho_ada', person('1', 'ada@example.com', []));
    expect(await accounts.standing('ada@example.com')).toMatchObject({ allowed: true }); // not re-checked: what was kept
    expect(await accounts.standing('ada@example.com', { recheckUpstream: true })).toMatchObject({ allowed: false });
    expect(await accounts.standing('ada@example.com')).toMatchObject({ allowed: false });
  });

  it('refuses on refresh a credential the upstream no longer honours', async () => {
    const { upstream, identities } = upstreamStub('github');
    const accounts = accountsOn(upstream);
    identities.set('gho_ada', person('1', 'ada@example.com'));
    await accounts.admit({ identity: person('1', 'ada@example.com'), recheckCredential: 'gho_ada' });

    identities.set('gho_ada', new UpstreamLoginError('upstream_refused', 'Bad credentials'));
    const decision = await accounts.standing('ada@example.com', { recheckUpstream: true });
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? '' : decision.reason).toContain('Bad credentials');
  });

  it('passes on an unreachable upstream as upstream_unavailable instead of refusing the person', async () => {
    const { upstream, identities } = upstreamStub('github');
    const accounts = accountsOn(upstream);
    identities.set('gho_ada', person('1', 'ada@example.com'));
    await accounts.admit({ identity: person('1', 'ada@example.com'), recheckCredential: 'gho_ada' });

    identities.set('gho_ada', new UpstreamLoginError('upstream_unavailable', 'GitHub did not answer'));
    await expect(accounts.standing('ada@example.com', { recheckUpstream: true })).rejects.toMatchObject({ code: 'upstream_unavailable' });
  });

  it('keeps nothing for a person the allowlist refuses', async () => {
    const accounts = accountsOn(upstreamStub('github').upstream);
    expect(await accounts.admit({ identity: person('3', 'eve@example.com', [{ id: 7, login: 'other' }]), recheckCredential: 'gho_eve' })).toMatchObject({ allowed: false });
    expect(await store.get('Account', 'eve@example.com')).toBeUndefined();
  });

  it('admits by organisation id: a listed login re-registered by another organisation admits nobody once pinned', async () => {
    const accounts = accountsOn(upstreamStub('github').upstream);
    expect(await accounts.admit({ identity: person('1', 'ada@example.com') })).toMatchObject({ allowed: true }); // pins acme to 42
    expect(await accounts.admit({ identity: person('3', 'eve@example.com', [{ id: 999, login: 'acme' }]) })).toMatchObject({ allowed: false });
    // A fresh instance (another replica, a restart) reads the pin from the store.
    const again = accountsOn(upstreamStub('github').upstream);
    expect(await again.admit({ identity: person('3', 'eve@example.com', [{ id: 999, login: 'acme' }]) })).toMatchObject({ allowed: false });
    expect(await again.admit({ identity: person('4', 'grace@example.com', [{ id: 42, login: 'acme-renamed' }]) })).toMatchObject({ allowed: true });
  });
});
