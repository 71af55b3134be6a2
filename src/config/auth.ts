// Who may call /mcp and /metrics: static tokens, an external OAuth issuer, the metrics token.
import { z } from 'zod';
import { staticTokenProblems } from '../auth/static-tokens.js';
import type { AuthConfig } from './config.js';
import { boolean, text, url } from './env-kinds.js';
import { isLoopbackHost } from './loopback-host.js';
import { issueProblems } from './messages.js';

// Validated apart from envSchema so that its problems are listed even when other variables are bad.
// AUTH_TOKENS and METRICS_TOKEN are secrets: they are checked by hand so no message ever quotes them.
const authSchema = z.object({
  AUTH_TOKENS: text,
  AUTH_TOKENS_FILE: text,
  OAUTH_ISSUER: url,
  OAUTH_JWKS_URL: url,
  OAUTH_AUDIENCE: text,
  OAUTH_REQUIRED_SCOPES: text,
  ALLOW_UNAUTHENTICATED: boolean,
  ALLOW_HTTP_PUBLIC_URL: boolean,
  METRICS_TOKEN: text,
});

export const splitList = (value: string | undefined, separator: RegExp) =>
  (value ?? '').split(separator).map((item) => item.trim()).filter((item) => item !== '');

type ParsedAuth = Omit<AuthConfig, 'resource' | 'oauth' | 'login'> & { oauth: Omit<NonNullable<AuthConfig['oauth']>, 'audience'> & { audience: string | undefined } | undefined };

export function readAuth(env: Readonly<Record<string, string | undefined>>): { auth: ParsedAuth | undefined; problems: string[] } {
  const parsed = authSchema.safeParse(env);
  // Secrets first, from the raw values, so their problems are listed even when another variable is bad.
  const problems: string[] = [];
  const staticTokens = splitList(env.AUTH_TOKENS, /,/);
  problems.push(...staticTokenProblems(staticTokens, (i) => `AUTH_TOKENS entry ${i + 1}`));
  const metricsToken = env.METRICS_TOKEN?.trim() || undefined;
  if (metricsToken !== undefined) problems.push(...staticTokenProblems([metricsToken], () => 'METRICS_TOKEN'));
  if (!parsed.success) {
    problems.push(...issueProblems(parsed.error.issues, env));
    return { auth: undefined, problems };
  }
  const a = parsed.data;

  // RFC 8414 §2: the issuer is an https URL; plain http is tolerated on loopback for local IdPs.
  for (const name of ['OAUTH_ISSUER', 'OAUTH_JWKS_URL'] as const) {
    const value = a[name];
    if (value !== undefined && new URL(value).protocol !== 'https:' && !isLoopbackHost(new URL(value).hostname)) {
      problems.push(`${name}=${JSON.stringify(value)}: must be an https:// URL (http is accepted only for a loopback host)`);
    }
  }
  if (a.OAUTH_ISSUER === undefined) {
    for (const name of ['OAUTH_JWKS_URL', 'OAUTH_AUDIENCE', 'OAUTH_REQUIRED_SCOPES'] as const) {
      if (a[name] !== undefined) problems.push(`${name}=${JSON.stringify(env[name])}: has no effect without OAUTH_ISSUER; set OAUTH_ISSUER to your identity provider's issuer URL`);
    }
  }
  const enabled = staticTokens.length > 0 || a.AUTH_TOKENS_FILE !== undefined || a.OAUTH_ISSUER !== undefined;
  const allowUnauthenticated = a.ALLOW_UNAUTHENTICATED ?? false;
  if (enabled && allowUnauthenticated) {
    problems.push(
      'ALLOW_UNAUTHENTICATED="true": contradicts the configured authentication (AUTH_TOKENS, AUTH_TOKENS_FILE or OAUTH_ISSUER); remove one or the other',
    );
  }
  return {
    problems,
    auth: {
      enabled,
      staticTokens,
      tokensFile: a.AUTH_TOKENS_FILE?.trim(),
      oauth:
        a.OAUTH_ISSUER === undefined
          ? undefined
          : {
              issuer: a.OAUTH_ISSUER,
              jwksUrl: a.OAUTH_JWKS_URL,
              audience: a.OAUTH_AUDIENCE?.trim(),
              requiredScopes: [...new Set(splitList(a.OAUTH_REQUIRED_SCOPES, /[\s,]+/))],
            },
      allowUnauthenticated,
      allowHttpPublicUrl: a.ALLOW_HTTP_PUBLIC_URL ?? false,
      metricsToken,
    },
  };
}
