import { describe, expect, it } from 'vitest';
import { loadAuthDataDir } from '../src/config/login.js';
import { loadConfig } from '../src/config/load-config.js';
import { problemsOf } from './support/config-problems.js';

const SECRET = 's'.repeat(32);
const GOOGLE = {
  LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'https://accounts.google.com', LOGIN_CLIENT_ID: 'id.apps.googleusercontent.com',
  LOGIN_CLIENT_SECRET: 'GOCSPX-secret-value', ALLOWED_EMAIL_DOMAINS: 'example.com', AUTH_SECRET: SECRET,
  PUBLIC_URL: 'https://docs.example.com', HOST: '0.0.0.0',
};


describe('loadConfig > team sign-in (LOGIN_PROVIDER)', () => {
  it('turns the built-in server on with its defaults', () => {
    const { auth } = loadConfig(GOOGLE);
    expect(auth.enabled).toBe(true);
    expect(auth.login).toMatchObject({
      provider: 'oidc', oidcIssuer: 'https://accounts.google.com', allowedEmailDomains: ['example.com'], allowAnyLogin: false,
      dataDir: './data', accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 2_592_000, refreshGraceSeconds: 120,
      githubUrl: 'https://github.com', githubApiUrl: 'https://api.github.com',
    });
  });

  it('lists every bad value in one error, never quoting a secret', () => {
    const problems = problemsOf({
      LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'http://idp.example.com', AUTH_SECRET: 'too-short-secret', LOGIN_CLIENT_SECRET: '',
      ALLOWED_GITHUB_ORGS: 'acme', ACCESS_TOKEN_TTL: '5', PUBLIC_URL: 'https://docs.example.com', HOST: '0.0.0.0',
    });
    const joined = problems.join('\n');
    expect(joined).toContain('ACCESS_TOKEN_TTL="5": must be at least 60');
    expect(problems.join('\n')).not.toContain('too-short-secret');
    // The ttl problem stops the schema; fix it to see the rest at once.
    const rest = problemsOf({
      LOGIN_PROVIDER: 'oidc', LOGIN_OIDC_ISSUER: 'http://idp.example.com', AUTH_SECRET: 'too-short-secret',
      ALLOWED_GITHUB_ORGS: 'acme', PUBLIC_URL: 'https://docs.example.com', HOST: '0.0.0.0',
    }).join('\n');
    expect(rest).toContain('LOGIN_OIDC_ISSUER="http://idp.example.com": must be an https:// URL');
    expect(rest).toContain('ALLOWED_GITHUB_ORGS="acme": only works with LOGIN_PROVIDER=github');
    expect(rest).toContain('LOGIN_CLIENT_ID');
    expect(rest).toContain('LOGIN_CLIENT_SECRET (unset)');
    expect(rest).toContain('AUTH_SECRET (16 characters)');
    expect(rest).not.toContain('too-short-secret');
  });

  it('refuses to start without an allowlist unless ALLOW_ANY_LOGIN=true', () => {
    const { ALLOWED_EMAIL_DOMAINS: _unused, ...open } = GOOGLE;
    expect(problemsOf(open).join('\n')).toContain('say who may sign in');
    expect(loadConfig({ ...open, ALLOW_ANY_LOGIN: 'true' }).auth.login?.allowAnyLogin).toBe(true);
  });

  it('reads REQUIRE_HOSTED_DOMAIN (Google Workspace `hd`), off by default, and refuses it without oidc and ALLOWED_EMAIL_DOMAINS', () => {
    expect(loadConfig(GOOGLE).auth.login?.requireHostedDomain).toBe(false);
    expect(loadConfig({ ...GOOGLE, REQUIRE_HOSTED_DOMAIN: 'true' }).auth.login?.requireHostedDomain).toBe(true);
    const { ALLOWED_EMAIL_DOMAINS: _unused, ...noDomains } = GOOGLE;
    expect(problemsOf({ ...noDomains, ALLOWED_EMAILS: 'ada@example.com', REQUIRE_HOSTED_DOMAIN: 'true' }).join('\n')).toContain(
      'REQUIRE_HOSTED_DOMAIN="true": checks the `hd` claim of Google Workspace against ALLOWED_EMAIL_DOMAINS; it needs LOGIN_PROVIDER=oidc and ALLOWED_EMAIL_DOMAINS',
    );
    expect(problemsOf({ ...GOOGLE, LOGIN_PROVIDER: 'github', LOGIN_OIDC_ISSUER: '', REQUIRE_HOSTED_DOMAIN: 'true' }).join('\n')).toContain('REQUIRE_HOSTED_DOMAIN="true"');
  });

  it('reads REFRESH_TOKEN_GRACE in seconds (every replica must agree on it)', () => {
    expect(loadConfig({ ...GOOGLE, REFRESH_TOKEN_GRACE: '5' }).auth.login?.refreshGraceSeconds).toBe(5);
  });

  it('accepts plain http for a loopback upstream issuer (tests, local IdPs)', () => {
    expect(loadConfig({ ...GOOGLE, LOGIN_OIDC_ISSUER: 'http://127.0.0.1:9000' }).auth.login).toMatchObject({ oidcIssuer: 'http://127.0.0.1:9000' });
  });

  it.each([
    [{ PUBLIC_URL: 'http://docs.example.com' }, 'must be https with LOGIN_PROVIDER'],
    [{ PUBLIC_URL: 'https://docs.example.com/corpus' }, 'must be a bare origin'],
    [{ OAUTH_ISSUER: 'https://idp.example.com' }, 'cannot be combined with OAUTH_ISSUER'],
    [{ LOGIN_PROVIDER: 'saml' }, 'LOGIN_PROVIDER="saml": must be one of oidc, github'],
    [{ REFRESH_TOKEN_TTL: '60' }, 'REFRESH_TOKEN_TTL="60": must be at least 3600'],
    [{ REFRESH_TOKEN_GRACE: '0' }, 'REFRESH_TOKEN_GRACE="0": must be at least 1'],
    [{ REFRESH_TOKEN_GRACE: '3601' }, 'REFRESH_TOKEN_GRACE="3601": must be at most 3600'],
  ])('refuses %j', (override, message) => {
    expect(problemsOf({ ...GOOGLE, ...override }).join('\n')).toContain(message);
  });

  it('says a LOGIN_* setting has no effect without LOGIN_PROVIDER', () => {
    expect(problemsOf({ ALLOWED_EMAILS: 'ada@example.com', AUTH_SECRET: SECRET }).join('\n')).toMatch(
      /ALLOWED_EMAILS="ada@example.com": has no effect without LOGIN_PROVIDER[\s\S]*AUTH_SECRET=\(set\): has no effect/,
    );
  });

  it('reads GitHub Enterprise URLs and organisations for github', () => {
    const { auth } = loadConfig({
      LOGIN_PROVIDER: 'github', LOGIN_CLIENT_ID: 'Iv1.abc', LOGIN_CLIENT_SECRET: 'x', AUTH_SECRET: SECRET, ALLOWED_GITHUB_ORGS: 'Acme, Umbrella',
      LOGIN_GITHUB_URL: 'https://git.corp.example/', LOGIN_GITHUB_API_URL: 'https://git.corp.example/api/v3',
    });
    expect(auth.login).toMatchObject({ provider: 'github', allowedGithubOrgs: ['acme', 'umbrella'], githubUrl: 'https://git.corp.example', githubApiUrl: 'https://git.corp.example/api/v3' });
  });

  it('loadAuthDataDir reads AUTH_DATA_DIR alone, defaulting to ./data', () => {
    expect(loadAuthDataDir({})).toBe('./data');
    expect(loadAuthDataDir({ AUTH_DATA_DIR: '/data' })).toBe('/data');
  });
});
