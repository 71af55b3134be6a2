import type { LoginConfig } from '../../config/config.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import { createAccounts } from './accounts.js';
import { createAllowlist } from './allowlist.js';
import { createAuthorizationServer } from './authorization-server.js';
import type { AuthorizationServer, AuthorizationServerOptions } from './authorization-server.js';
import { createIssuedTokenVerifier } from './issued-token-verifier.js';
import { deriveKeys } from './keys.js';
import { UPSTREAM_CALLBACK_PATH } from './protocol.js';
import type { IssuedTokenVerifier } from './issued-token-verifier.js';
import { createGithubUpstream } from './upstream-github.js';
import { createOidcUpstream } from './upstream-oidc.js';


export interface SignIn {
  server: AuthorizationServer;
  verifier: IssuedTokenVerifier;
}

export interface SignInOptions {
  login: LoginConfig;
  /** PUBLIC_URL (the issuer) and PUBLIC_URL + '/mcp'. */
  issuer: string;
  resource: string;
  store: Store;
  logger?: Logger;
  onEvent?: AuthorizationServerOptions['onEvent'];
  /** Not configuration: tests serve client metadata documents, and lower the bound on sign-ins in progress. */
  tuning?: Pick<AuthorizationServerOptions, 'fetch' | 'maxPendingSignIns' | 'metadataFetchesPerMinute' | 'now'>;
}

/** The built-in authorization server and the verifier for its tokens, from LOGIN_* settings. */
export function createSignIn({ login, issuer, resource, store, logger, onEvent, tuning = {} }: SignInOptions): SignIn {
  const redirectUri = `${issuer}${UPSTREAM_CALLBACK_PATH}`;
  const loopbackHttp = (url: string) => new URL(url).protocol === 'http:';
  const upstream = login.provider === 'github'
    ? createGithubUpstream({
        clientId: login.clientId, clientSecret: login.clientSecret, redirectUri,
        webUrl: login.githubUrl, apiUrl: login.githubApiUrl, readOrgs: login.allowedGithubOrgs.length > 0,
      })
    : createOidcUpstream({
        issuer: login.oidcIssuer, clientId: login.clientId, clientSecret: login.clientSecret, redirectUri,
        allowHttp: loopbackHttp(login.oidcIssuer),
      });
  const allowlist = createAllowlist({
    emails: login.allowedEmails, emailDomains: login.allowedEmailDomains, requireHostedDomain: login.requireHostedDomain,
    githubOrgs: login.allowedGithubOrgs, allowAny: login.allowAnyLogin,
  });
  const keys = deriveKeys(login.secret);
  const accounts = createAccounts({
    store, allowlist, upstream, ttlSeconds: login.refreshTokenTtlSeconds, credentialKey: keys.upstreamCredentialKey, ...(logger ? { logger } : {}),
  });
  const server = createAuthorizationServer({
    issuer, resource, secret: login.secret, store, upstream, accounts,
    accessTokenTtlSeconds: login.accessTokenTtlSeconds, refreshTokenTtlSeconds: login.refreshTokenTtlSeconds,
    refreshGraceMs: login.refreshGraceSeconds * 1000,
    ...(logger ? { logger } : {}), ...(onEvent ? { onEvent } : {}), ...tuning,
  });
  const verifier = createIssuedTokenVerifier({
    issuer, audience: resource, key: server.keys.verification, store, accountAllowed: async (accountId) => (await accounts.standing(accountId)).allowed,
  });
  return { server, verifier };
}
