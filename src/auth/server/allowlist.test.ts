import { describe, expect, it } from 'vitest';
import { createAllowlist } from './allowlist.js';
import type { UpstreamIdentity } from './allowlist.js';

const person = (verifiedEmails: string[], githubOrgs: UpstreamIdentity['githubOrgs'] = [], hostedDomain?: string): UpstreamIdentity =>
  ({ subject: 's', verifiedEmails, githubOrgs, ...(hostedDomain ? { hostedDomain } : {}) });

describe('createAllowlist', () => {
  const decide = createAllowlist({ emails: ['Ada@Example.com'], emailDomains: ['@team.example'], githubOrgs: ['Acme'] });
  const pins = new Map([['acme', 42]]);

  it.each([
    [person(['ada@example.com']), 'ada@example.com'],
    [person(['bob@team.example']), 'bob@team.example'],
    [person(['me@personal.example', 'bob@team.example']), 'bob@team.example'],
    [person(['grace@personal.example'], [{ id: 42, login: 'acme' }]), 'grace@personal.example'],
    // Renamed since it was pinned: still the same organisation.
    [person(['grace@personal.example'], [{ id: 42, login: 'acme-inc' }]), 'grace@personal.example'],
  ])('admits %j as %s', (identity, accountId) => {
    expect(decide(identity, pins)).toMatchObject({ allowed: true, accountId });
  });

  it.each([
    [person(['eve@sub.team.example']), 'not on this server'],
    [person(['eve@example.com'], [{ id: 7, login: 'other' }]), 'not on this server'],
    // The login re-registered by someone else: another id.
    [person(['eve@example.com'], [{ id: 999, login: 'acme' }]), 'not on this server'],
    [person([], [{ id: 42, login: 'acme' }]), 'no verified email'],
  ])('refuses %j', (identity, reason) => {
    const decision = decide(identity, pins);
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? '' : decision.reason).toContain(reason);
  });

  it('admits nobody by an organisation whose id is not pinned yet', () => {
    expect(decide(person(['grace@personal.example'], [{ id: 42, login: 'acme' }])).allowed).toBe(false);
  });

  it('admits anyone with a verified email under allowAny, and refuses an empty list otherwise', () => {
    expect(createAllowlist({ allowAny: true })(person(['x@y.example'])).allowed).toBe(true);
    expect(createAllowlist({ allowAny: true })(person([])).allowed).toBe(false);
    expect(() => createAllowlist({})).toThrow(/allowlist is empty/);
  });

  describe('with requireHostedDomain (Google Workspace `hd`)', () => {
    const workspace = createAllowlist({ emails: ['guest@elsewhere.example'], emailDomains: ['team.example', 'team-two.example'], requireHostedDomain: true });

    it.each([
      [person(['bob@team.example'], [], 'team.example'), true],
      [person(['bob@team.example'], [], 'TEAM-TWO.example'), true],
      [person(['bob@team.example']), false],
      [person(['bob@team.example'], [], 'other.example'), false],
      // An exact address is not a domain admission: no `hd` needed.
      [person(['guest@elsewhere.example']), true],
    ])('decides %j: allowed %s', (identity, allowed) => {
      const decision = workspace(identity);
      expect(decision.allowed).toBe(allowed);
      if (!decision.allowed) expect(decision.reason).toMatch(/not managed by it \(hd (absent|other\.example)\)/);
    });

    it('is refused without ALLOWED_EMAIL_DOMAINS', () => {
      expect(() => createAllowlist({ emails: ['a@b.example'], requireHostedDomain: true })).toThrow(/needs ALLOWED_EMAIL_DOMAINS/);
    });
  });
});
