import { describe, expect, it } from 'vitest';
import { createAllowlist } from './allowlist.js';

describe('createAllowlist', () => {
  const decide = createAllowlist({ emails: ['Ada@Example.com'], emailDomains: ['@team.example'], githubOrgs: ['Acme'] });

  it.each([
    [{ verifiedEmails: ['ada@example.com'], githubOrgs: [] }, 'ada@example.com'],
    [{ verifiedEmails: ['bob@team.example'], githubOrgs: [] }, 'bob@team.example'],
    [{ verifiedEmails: ['me@personal.example', 'bob@team.example'], githubOrgs: [] }, 'bob@team.example'],
    [{ verifiedEmails: ['grace@personal.example'], githubOrgs: ['acme'] }, 'grace@personal.example'],
  ])('admits %j as %s', (identity, accountId) => {
    expect(decide(identity)).toMatchObject({ allowed: true, accountId });
  });

  it.each([
    [{ verifiedEmails: ['eve@sub.team.example'], githubOrgs: [] }, 'not on this server'],
    [{ verifiedEmails: ['eve@example.com'], githubOrgs: ['other'] }, 'not on this server'],
    [{ verifiedEmails: [], githubOrgs: ['acme'] }, 'no verified email'],
  ])('refuses %j', (identity, reason) => {
    const decision = decide(identity);
    expect(decision.allowed).toBe(false);
    expect(decision.allowed ? '' : decision.reason).toContain(reason);
  });

  it('admits anyone with a verified email under allowAny, and refuses an empty list otherwise', () => {
    expect(createAllowlist({ allowAny: true })({ verifiedEmails: ['x@y.example'], githubOrgs: [] }).allowed).toBe(true);
    expect(createAllowlist({ allowAny: true })({ verifiedEmails: [], githubOrgs: [] }).allowed).toBe(false);
    expect(() => createAllowlist({})).toThrow(/allowlist is empty/);
  });
});
