// Who may call /mcp and /metrics: static tokens, an external OAuth issuer, the metrics token. Read
// apart from the other variables so that its problems are listed even when other variables are bad.
// AUTH_TOKENS and METRICS_TOKEN are secrets: checked by hand so that no message ever quotes them.
import { staticTokenProblems } from '../auth/static-tokens.js';
import type { AuthConfig } from './config.js';
import { parserOf, splitList } from './env-kinds.js';
import type { Env } from './env-kinds.js';
import { issueProblems } from './messages.js';
import { httpsOrLoopbackProblems, noEffectProblems } from './rules.js';
import { AUTH_VARIABLES } from './schema.js';

const authParser = parserOf(AUTH_VARIABLES);

/** Before PUBLIC_URL is known: the audience's default, the resource URL, is filled in by loadConfig. */
export type ParsedAuth = Omit<AuthConfig, 'resource' | 'oauth' | 'login'> & {
  oauth: (Omit<NonNullable<AuthConfig['oauth']>, 'audience'> & { audience: string | undefined }) | undefined;
};

export function readAuth(env: Env): { auth: ParsedAuth | undefined; problems: string[] } {
  const parsed = authParser.safeParse(env);
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
  problems.push(...httpsOrLoopbackProblems({ OAUTH_ISSUER: a.OAUTH_ISSUER, OAUTH_JWKS_URL: a.OAUTH_JWKS_URL }));
  problems.push(...noEffectProblems(env, 'OAUTH_ISSUER', "set OAUTH_ISSUER to your identity provider's issuer URL", { shown: '=(set)', hintSecrets: true }));
  const enabled = staticTokens.length > 0 || a.AUTH_TOKENS_FILE !== undefined || a.OAUTH_ISSUER !== undefined;
  if (enabled && a.ALLOW_UNAUTHENTICATED) {
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
      allowUnauthenticated: a.ALLOW_UNAUTHENTICATED,
      allowHttpPublicUrl: a.ALLOW_HTTP_PUBLIC_URL,
      metricsToken,
    },
  };
}
