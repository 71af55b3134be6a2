// The built-in authorization server's settings: LOGIN_PROVIDER and its companions.
import { z } from 'zod';
import type { LoginConfig } from './config.js';
import { blankToUndefined, boolean, integer, text, url } from './env-kinds.js';
import { isLoopbackHost } from './loopback-host.js';
import { issueProblems } from './messages.js';
import { splitList } from './auth.js';

const LOGIN_PROVIDERS = ['oidc', 'github'] as const;
const MIN_AUTH_SECRET_CHARS = 32;
/** AUTH_DATA_DIR's default: the embedded store's folder, relative to the working directory. */
const DEFAULT_AUTH_DATA_DIR = './data';

/** AUTH_DATA_DIR alone, for the operator tool (`npm run auth`), which needs no other setting. */
export function loadAuthDataDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.AUTH_DATA_DIR?.trim() || DEFAULT_AUTH_DATA_DIR;
}

const loginSchema = z.object({
  LOGIN_PROVIDER: z.preprocess(
    (v) => (typeof blankToUndefined(v) === 'string' ? String(v).trim().toLowerCase() : undefined),
    z.enum(LOGIN_PROVIDERS, { error: `must be one of ${LOGIN_PROVIDERS.join(', ')}` }).optional(),
  ),
  LOGIN_OIDC_ISSUER: url,
  LOGIN_CLIENT_ID: text,
  LOGIN_GITHUB_URL: url,
  LOGIN_GITHUB_API_URL: url,
  ALLOWED_EMAILS: text,
  ALLOWED_EMAIL_DOMAINS: text,
  ALLOWED_GITHUB_ORGS: text,
  ALLOW_ANY_LOGIN: boolean,
  AUTH_DATA_DIR: text,
  ACCESS_TOKEN_TTL: integer(60, 86_400),
  REFRESH_TOKEN_TTL: integer(3600, 365 * 86_400),
  REFRESH_TOKEN_GRACE: integer(1, 3600),
});

/**
 * LOGIN_PROVIDER and its companions. Secrets (LOGIN_CLIENT_SECRET, AUTH_SECRET) are checked by hand so
 * that no message quotes them.
 */
export function readLogin(env: Readonly<Record<string, string | undefined>>): { login: LoginConfig | undefined; problems: string[] } {
  const problems: string[] = [];
  const parsed = loginSchema.safeParse(env);
  if (!parsed.success) return { login: undefined, problems: issueProblems(parsed.error.issues, env) };
  const l = parsed.data;
  const clientSecret = env.LOGIN_CLIENT_SECRET?.trim() || undefined;
  const secret = env.AUTH_SECRET?.trim() || undefined;
  if (l.LOGIN_PROVIDER === undefined) {
    for (const name of Object.keys(loginSchema.shape).concat('LOGIN_CLIENT_SECRET', 'AUTH_SECRET')) {
      // AUTH_DATA_DIR is a deployment default (the image and fly.toml set it) and harmless unused.
      if (name === 'LOGIN_PROVIDER' || name === 'AUTH_DATA_DIR' || env[name]?.trim() === undefined || env[name]?.trim() === '') continue;
      const shown = name === 'LOGIN_CLIENT_SECRET' || name === 'AUTH_SECRET' ? '(set)' : JSON.stringify(env[name]);
      problems.push(`${name}=${shown}: has no effect without LOGIN_PROVIDER; set LOGIN_PROVIDER=oidc or LOGIN_PROVIDER=github to turn on team sign-in`);
    }
    return { login: undefined, problems };
  }
  const provider = l.LOGIN_PROVIDER;
  const https = (name: 'LOGIN_OIDC_ISSUER' | 'LOGIN_GITHUB_URL' | 'LOGIN_GITHUB_API_URL') => {
    const value = l[name];
    if (value !== undefined && new URL(value).protocol !== 'https:' && !isLoopbackHost(new URL(value).hostname)) {
      problems.push(`${name}=${JSON.stringify(value)}: must be an https:// URL (http is accepted only for a loopback host)`);
    }
  };
  https('LOGIN_OIDC_ISSUER');
  https('LOGIN_GITHUB_URL');
  https('LOGIN_GITHUB_API_URL');
  if (provider === 'oidc' && l.LOGIN_OIDC_ISSUER === undefined) {
    problems.push('LOGIN_OIDC_ISSUER="": required with LOGIN_PROVIDER=oidc: the issuer URL of your identity provider, e.g. https://accounts.google.com');
  }
  if (provider === 'oidc' && l.ALLOWED_GITHUB_ORGS !== undefined) {
    problems.push(`ALLOWED_GITHUB_ORGS=${JSON.stringify(env.ALLOWED_GITHUB_ORGS)}: only works with LOGIN_PROVIDER=github; use ALLOWED_EMAILS or ALLOWED_EMAIL_DOMAINS`);
  }
  if (l.LOGIN_CLIENT_ID === undefined) {
    problems.push('LOGIN_CLIENT_ID="": required with LOGIN_PROVIDER: the client id of the app you registered with your identity provider');
  }
  if (clientSecret === undefined) {
    problems.push('LOGIN_CLIENT_SECRET (unset): required with LOGIN_PROVIDER: the client secret of the app you registered with your identity provider');
  }
  if (secret === undefined || secret.length < MIN_AUTH_SECRET_CHARS) {
    problems.push(
      `AUTH_SECRET ${secret === undefined ? '(unset)' : `(${secret.length} characters)`}: required with LOGIN_PROVIDER, at least ${MIN_AUTH_SECRET_CHARS} characters; ` +
        'signing keys derive from it, e.g. AUTH_SECRET=$(openssl rand -hex 32)',
    );
  }
  const allowedEmails = splitList(l.ALLOWED_EMAILS, /,/).map((e) => e.toLowerCase());
  const allowedEmailDomains = splitList(l.ALLOWED_EMAIL_DOMAINS, /,/).map((d) => d.toLowerCase().replace(/^@/, ''));
  const allowedGithubOrgs = splitList(l.ALLOWED_GITHUB_ORGS, /,/).map((o) => o.toLowerCase());
  for (const email of allowedEmails) {
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) problems.push(`ALLOWED_EMAILS entry ${JSON.stringify(email)}: is not an email address`);
  }
  const allowAnyLogin = l.ALLOW_ANY_LOGIN ?? false;
  if (!allowAnyLogin && allowedEmails.length + allowedEmailDomains.length + allowedGithubOrgs.length === 0) {
    problems.push(
      'ALLOWED_EMAILS="": say who may sign in with ALLOWED_EMAILS, ALLOWED_EMAIL_DOMAINS' +
        (provider === 'github' ? ' or ALLOWED_GITHUB_ORGS' : '') +
        '; or set ALLOW_ANY_LOGIN=true to admit anyone your identity provider signs in',
    );
  }
  if (problems.length > 0) return { login: undefined, problems };
  return {
    problems,
    login: {
      provider,
      oidcIssuer: l.LOGIN_OIDC_ISSUER,
      clientId: l.LOGIN_CLIENT_ID!,
      clientSecret: clientSecret!,
      githubUrl: (l.LOGIN_GITHUB_URL ?? 'https://github.com').replace(/\/+$/, ''),
      githubApiUrl: (l.LOGIN_GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
      allowedEmails,
      allowedEmailDomains,
      allowedGithubOrgs,
      allowAnyLogin,
      secret: secret!,
      dataDir: l.AUTH_DATA_DIR ?? DEFAULT_AUTH_DATA_DIR,
      accessTokenTtlSeconds: l.ACCESS_TOKEN_TTL ?? 3600,
      refreshTokenTtlSeconds: l.REFRESH_TOKEN_TTL ?? 30 * 86_400,
      refreshGraceSeconds: l.REFRESH_TOKEN_GRACE ?? 120,
    },
  };
}
