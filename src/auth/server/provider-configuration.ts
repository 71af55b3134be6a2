// How oidc-provider is configured for MCP clients: dynamic registration and client ID metadata
// documents, PKCE S256 required, RFC 8707 resource indicators with one resource, RFC 9207 `iss`,
// rotating refresh tokens with a grace window, the redirect URI policy, token lifetimes, and the
// account check on every code exchange, refresh and sign-in session. The interaction handlers that
// drive sign-in and consent are authorization-server.ts's.
import type { Configuration } from 'oidc-provider';
import { errors, interactionPolicy } from 'oidc-provider';
import { isLoopbackHost } from '../../config/loopback-host.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { Accounts } from './accounts.js';
import { authorizationParameterLimits } from './authorization-request-limits.js';
import { checkClientMetadataLimits } from './client-metadata-limits.js';
import { PAGE_HEADERS } from './consent-page.js';
import { providerErrorPage } from './error-pages.js';
import type { DerivedKeys } from './keys.js';
import { createMetadataFetch } from './metadata-fetch.js';
import { PENDING_SIGN_IN_TTL_SECONDS } from './pending-records.js';
import { RESOURCE_SCOPE } from './protocol.js';
import type { SignInEvent } from './protocol.js';
import { createStoreAdapter } from './store-adapter.js';
import { UpstreamLoginError } from './upstream-login.js';

/** The client metadata key whose validator enforces the redirect URI policy (never set by clients). */
const REDIRECT_POLICY = 'urn:corpus-mcp:redirect-uri-policy';
/** How long a registration that never obtained a grant is kept, seconds. */
const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;
/**
 * How many registrations that never obtained a grant are kept (oldest removed first). With metadata of
 * at most 8 KiB each, anonymous registration can hold about 110 MB of SQLite at most; a person's
 * registration is evicted before its sign-in ends only if 10000 others arrive in between. No limit per
 * address: Claude registers on every connection, from a handful of addresses shared by whole teams.
 */
const MAX_UNUSED_CLIENTS = 10_000;
/**
 * How long a browser's sign-in here lasts, seconds from the upstream sign-in (absolute: using it does
 * not extend it). Past it, the next authorization asks the upstream again, so someone signed out
 * there, or another person at the same browser, is not taken for the last one. Hours, not the weeks
 * a refresh token lives.
 */
const SIGN_IN_SESSION_TTL_SECONDS = 8 * 3600;

/** https anywhere, or plain http on a loopback host; nothing else (no private-use schemes). */
const isAcceptedRedirectUri = (uri: string) => {
  const url = URL.parse(uri);
  return url !== null && (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)));
};

/**
 * oidc-provider's login and consent prompts, and one more login check: a sign-in session whose account
 * `findAccount` no longer returns (removed from the allowlist, left the organisation) is sent to the
 * upstream again instead of being taken as that person. The session's login is forgotten there and
 * then, so the upstream sign-in that follows starts a new one rather than an account switch (which
 * oidc-provider would answer with a logout form).
 */
function interactionPolicyOf() {
  const { base, Check } = interactionPolicy;
  const policy = base();
  policy.get('login')!.checks.add(
    new Check('account_refused', 'the signed-in account may no longer use this server', (ctx) => {
      const session = ctx.oidc.session;
      if (session?.accountId === undefined || ctx.oidc.account !== undefined) return Check.NO_NEED_TO_PROMPT;
      for (const key of ['accountId', 'loginTs', 'amr', 'acr', 'authorizations'] as const) Reflect.deleteProperty(session, key);
      session.resetIdentifier();
      return Check.REQUEST_PROMPT;
    }),
  );
  return policy;
}

export interface ProviderConfigurationOptions {
  /** PUBLIC_URL + '/mcp': the only resource tokens are issued for (RFC 8707). */
  resource: string;
  keys: DerivedKeys;
  store: Store;
  /** Who may still use the server. */
  accounts: Accounts;
  /** ACCESS_TOKEN_TTL, seconds. */
  accessTokenTtlSeconds: number;
  /** REFRESH_TOKEN_TTL, seconds, absolute from the sign-in. */
  refreshTokenTtlSeconds: number;
  /** Grace window of a rotated refresh token, ms (REFRESH_TOKEN_GRACE). */
  refreshGraceMs: number;
  /** The host shown on this server's error pages. */
  serverName: string;
  logger: Logger;
  /** Hears of denials. Must not throw. */
  onEvent: (event: SignInEvent) => void;
  /** Fetch for client ID metadata documents (see AuthorizationServerOptions). Default `createMetadataFetch()`. */
  fetch?: ((url: URL | string, init?: RequestInit) => Promise<Response>) | undefined;
  /** How many metadata documents may still be fetched (metadata-fetch.ts). */
  metadataFetches: { take(): boolean };
  /** Records of each kind a sign-in in progress leaves that are kept (pending-records.ts). */
  maxPendingSignIns: number;
  /** The grace window's clock (see AuthorizationServerOptions). Default `Date.now`. */
  now?: () => number;
}

export function providerConfiguration(options: ProviderConfigurationOptions): Configuration {
  const {
    resource, keys, store, accounts, accessTokenTtlSeconds, refreshTokenTtlSeconds, refreshGraceMs, serverName, logger, onEvent, fetch: fetchImpl, maxPendingSignIns,
    metadataFetches, now,
  } = options;
  return {
    adapter: createStoreAdapter(store, { unusedClientTtlSeconds: UNUSED_CLIENT_TTL_SECONDS, maxUnusedClients: MAX_UNUSED_CLIENTS, maxPendingSignIns, refreshGraceMs, ...(now ? { now } : {}) }),
    // Size limits on /authorize's parameters, checked before a sign-in's Interaction is stored.
    extraParams: authorizationParameterLimits,
    jwks: { keys: [keys.signing] },
    cookies: { keys: keys.cookieKeys },
    // Every code exchange, refresh and authorization with a sign-in session asks whether the account may
    // still use the server, by the running allowlist; a refresh also asks GitHub for the person's
    // organisations again. An account refused here is "not found": a refresh or code exchange gets
    // invalid_grant, and a sign-in session is sent upstream again (the `account_refused` login check).
    async findAccount(ctx, id) {
      const refresh = ctx.oidc?.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token';
      let decision;
      try {
        decision = await accounts.standing(id, { recheckUpstream: refresh });
      } catch (error) {
        if (!(error instanceof UpstreamLoginError)) throw error;
        logger.warn({ err: error, account: id }, 'account could not be re-checked upstream');
        throw Object.assign(new errors.TemporarilyUnavailable('the sign-in provider could not be reached to re-check this account; try again later'), { status: 503, statusCode: 503 });
      }
      if (!decision.allowed) {
        logger.warn({ account: id, reason: decision.reason, route: ctx.oidc?.route }, 'account no longer allowed');
        onEvent('denied');
        return undefined;
      }
      return { accountId: id, claims: async () => ({ sub: id, email: id, email_verified: true }) };
    },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    scopes: ['openid', 'email', 'offline_access', RESOURCE_SCOPE],
    responseTypes: ['code'],
    // RFC 8252 and the MCP spec: redirect URIs are https, or plain http on a loopback host only (Claude
    // Code and other native clients listen on http://localhost:<port>/callback). oidc-provider alone
    // accepts plain http on any host for a web client, and private-use schemes (`myapp://claude.ai/`,
    // `com.example.app:/cb`) for a native one: a scheme any installed app may claim, whose "host" the
    // consent page would show as if it were a destination. No MCP client we know of (Claude, Claude
    // Code, Cursor, mcp-remote) registers one, so they are refused. This validator runs for every
    // registration and every client ID metadata document. It also applies the size limits, since
    // registration needs no authentication.
    extraClientMetadata: {
      properties: [REDIRECT_POLICY],
      validator(_ctx, key, _value, metadata) {
        if (key !== REDIRECT_POLICY) return;
        checkClientMetadataLimits(metadata);
        for (const uri of (metadata.redirect_uris as string[] | undefined) ?? []) {
          if (!isAcceptedRedirectUri(uri)) {
            throw Object.assign(new errors.InvalidRedirectUri(), {
              error_description: `redirect URI ${uri} must be https, or http on a loopback host (RFC 8252); custom schemes are not accepted`,
            });
          }
        }
      },
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'ES256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    pkce: { required: () => true },
    routes: {
      authorization: '/authorize', token: '/token', registration: '/register', revocation: '/revoke', jwks: '/jwks',
      userinfo: '/userinfo', end_session: '/logout',
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}`, policy: interactionPolicyOf() },
    features: {
      devInteractions: { enabled: false },
      // No registration access token (RFC 7592): registration management is off, so the token could
      // only read the registration back, which no MCP client does; not issuing it keeps one record per
      // anonymous registration, the Client, which the unused-client bound covers.
      registration: { enabled: true, issueRegistrationAccessToken: false },
      revocation: { enabled: true },
      // Pushed authorization requests (RFC 9126) are not served (no /request route): not advertised either.
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: false },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        // Asked before each fetch (a cached document is not fetched): anyone can name a URL, so the
        // server fetches at most so many a minute. invalid_client, as for any document that cannot be had.
        allowFetch() {
          if (metadataFetches.take()) return true;
          logger.warn({}, 'client ID metadata document not fetched: too many fetched in the last minute');
          throw new errors.InvalidClient('client_id metadata document not fetched: this server fetches only so many a minute; try again shortly');
        },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== resource) throw new errors.InvalidTarget(`this server only issues tokens for ${resource}`);
          return { scope: RESOURCE_SCOPE, audience: resource, accessTokenTTL: accessTokenTtlSeconds, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
    // Claude and other MCP clients often ask for no `offline_access` yet need to stay signed in:
    // every client allowed the refresh_token grant gets a refresh token.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // The grant id lets the resource server refuse an access token at once when its grant is revoked.
    extraTokenClaims: async (_ctx, token) => ({ gid: (token as { grantId?: string }).grantId }),
    ttl: {
      AccessToken: accessTokenTtlSeconds,
      AuthorizationCode: 60,
      Interaction: PENDING_SIGN_IN_TTL_SECONDS,
      Grant: refreshTokenTtlSeconds,
      Session(_ctx, session) {
        const signedIn = (session as { loginTs?: number }).loginTs ?? Math.floor(Date.now() / 1000);
        return Math.max(1, signedIn + Math.min(SIGN_IN_SESSION_TTL_SECONDS, refreshTokenTtlSeconds) - Math.floor(Date.now() / 1000));
      },
      // Absolute: a rotated token inherits what is left of the first one's lifetime.
      RefreshToken(_ctx, token) {
        const first = (token as { iiat?: number }).iiat ?? Math.floor(Date.now() / 1000);
        return Math.max(1, first + refreshTokenTtlSeconds - Math.floor(Date.now() / 1000));
      },
    },
    // Errors oidc-provider cannot send back to the app (an unknown client, an unregistered redirect URI)
    // get a page of this server that says what to do, instead of its bare "oops! something went wrong".
    async renderError(ctx, out) {
      ctx.set({ ...PAGE_HEADERS });
      ctx.body = providerErrorPage(out, serverName);
    },
    fetch: (fetchImpl ?? createMetadataFetch()) as Configuration['fetch'],
  };
}
