// The built-in authorization server's settings: LOGIN_PROVIDER and its companions. Read apart from
// the other variables so that its problems are listed even when other variables are bad. Secrets
// (LOGIN_CLIENT_SECRET, AUTH_SECRET) are checked by hand so that no message quotes them.
import type { LoginConfig } from './config.js';
import { parserOf, splitList } from './env-kinds.js';
import type { Env } from './env-kinds.js';
import { issueProblems } from './messages.js';
import { httpsOrLoopbackProblems, noEffectProblems } from './rules.js';
import { LOGIN_VARIABLES, MIN_AUTH_SECRET_CHARS } from './schema.js';

const loginParser = parserOf(LOGIN_VARIABLES);

/** AUTH_DATA_DIR alone, for the operator tool (`npm run auth`), which needs no other setting. */
export function loadAuthDataDir(env: Env = process.env): string {
  return env.AUTH_DATA_DIR?.trim() || LOGIN_VARIABLES.AUTH_DATA_DIR.default;
}

export function readLogin(env: Env): { login: LoginConfig | undefined; problems: string[] } {
  const parsed = loginParser.safeParse(env);
  if (!parsed.success) return { login: undefined, problems: issueProblems(parsed.error.issues, env) };
  const l = parsed.data;
  const provider = l.LOGIN_PROVIDER;
  if (provider === undefined) {
    const problems = noEffectProblems(env, 'LOGIN_PROVIDER', 'set LOGIN_PROVIDER=oidc or LOGIN_PROVIDER=github to turn on team sign-in', { shown: '=(set)', hintSecrets: true });
    return { login: undefined, problems };
  }
  const clientSecret = env.LOGIN_CLIENT_SECRET?.trim() || undefined;
  const secret = env.AUTH_SECRET?.trim() || undefined;
  const problems = httpsOrLoopbackProblems({ LOGIN_OIDC_ISSUER: l.LOGIN_OIDC_ISSUER, LOGIN_GITHUB_URL: l.LOGIN_GITHUB_URL, LOGIN_GITHUB_API_URL: l.LOGIN_GITHUB_API_URL });
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
  if (l.REQUIRE_HOSTED_DOMAIN && (provider !== 'oidc' || allowedEmailDomains.length === 0)) {
    problems.push('REQUIRE_HOSTED_DOMAIN="true": checks the `hd` claim of Google Workspace against ALLOWED_EMAIL_DOMAINS; it needs LOGIN_PROVIDER=oidc and ALLOWED_EMAIL_DOMAINS');
  }
  if (!l.ALLOW_ANY_LOGIN && allowedEmails.length + allowedEmailDomains.length + allowedGithubOrgs.length === 0) {
    problems.push(
      'ALLOWED_EMAILS="": say who may sign in with ALLOWED_EMAILS, ALLOWED_EMAIL_DOMAINS' +
        (provider === 'github' ? ' or ALLOWED_GITHUB_ORGS' : '') +
        '; or set ALLOW_ANY_LOGIN=true to admit anyone your identity provider signs in',
    );
  }
  if (problems.length > 0 || l.LOGIN_CLIENT_ID === undefined || clientSecret === undefined || secret === undefined) return { login: undefined, problems };
  const issuer = l.LOGIN_OIDC_ISSUER;
  const ofProvider = provider === 'github' ? { provider } : issuer === undefined ? undefined : { provider, oidcIssuer: issuer };
  if (ofProvider === undefined) return { login: undefined, problems }; // reported above
  return {
    problems,
    login: {
      ...ofProvider,
      clientId: l.LOGIN_CLIENT_ID,
      clientSecret,
      githubUrl: l.LOGIN_GITHUB_URL.replace(/\/+$/, ''),
      githubApiUrl: l.LOGIN_GITHUB_API_URL.replace(/\/+$/, ''),
      allowedEmails,
      allowedEmailDomains,
      allowedGithubOrgs,
      requireHostedDomain: l.REQUIRE_HOSTED_DOMAIN,
      allowAnyLogin: l.ALLOW_ANY_LOGIN,
      secret,
      dataDir: l.AUTH_DATA_DIR,
      accessTokenTtlSeconds: l.ACCESS_TOKEN_TTL,
      refreshTokenTtlSeconds: l.REFRESH_TOKEN_TTL,
      refreshGraceSeconds: l.REFRESH_TOKEN_GRACE,
    },
  };
}
