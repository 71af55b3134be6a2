import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { silentLogger } from '../../logger.js';
import type { Logger } from '../../logger.js';
import type { Store } from '../../store/store.js';
import type { Accounts } from './accounts.js';
import { consentPage, errorPage } from './consent-page.js';
import { deniedPage, upstreamFailedPage } from './error-pages.js';
import type { ReturnToApp } from './error-pages.js';
import { deriveKeys } from './keys.js';
import { METADATA_FETCHES_PER_MINUTE, metadataFetchBudget } from './metadata-fetch.js';
import { checkMaxPending, MAX_PENDING_SIGN_INS, PENDING_SIGN_IN_TTL_SECONDS, putPending } from './pending-records.js';
import { UPSTREAM_CALLBACK_PATH } from './protocol.js';
import type { SignInEvent } from './protocol.js';
import type { DerivedKeys } from './keys.js';
import { providerConfiguration } from './provider-configuration.js';
import { UpstreamLoginError } from './upstream-login.js';
import type { UpstreamLogin } from './upstream-login.js';
import { SERVER_PATHS } from '../../server-paths.js';


export type AuthorizationServerEvent = SignInEvent;

export interface AuthorizationServerOptions {
  /** PUBLIC_URL, the bare origin: the issuer. */
  issuer: string;
  /** PUBLIC_URL + '/mcp': the only resource tokens are issued for (RFC 8707). */
  resource: string;
  /** AUTH_SECRET: keys derive from it. */
  secret: string;
  store: Store;
  upstream: UpstreamLogin;
  /** Who may still use the server: decided at sign-in, and again on every refresh and sign-in session. */
  accounts: Accounts;
  /** ACCESS_TOKEN_TTL, seconds. */
  accessTokenTtlSeconds: number;
  /** REFRESH_TOKEN_TTL, seconds, absolute from the sign-in. */
  refreshTokenTtlSeconds: number;
  /** Grace window of a rotated refresh token, ms (REFRESH_TOKEN_GRACE). */
  refreshGraceMs: number;
  logger?: Logger;
  /** Counts sign-ins, denials and revocations. Must not throw. */
  onEvent?: (event: AuthorizationServerEvent) => void;
  /**
   * Fetch for client ID metadata documents, with oidc-provider's 2.5 s timeout and 5 KiB body cap.
   * Default `createMetadataFetch()` (metadata-fetch.ts): no connection to a loopback, private,
   * link-local or unique-local address. Tests inject one that serves the document without a network.
   */
  fetch?: (url: URL | string, init?: RequestInit) => Promise<Response>;
  /** Metadata documents fetched (not cached) per minute, per process. Default METADATA_FETCHES_PER_MINUTE; tests lower it. */
  metadataFetchesPerMinute?: number;
  /** How many records of each kind a sign-in in progress leaves are kept (pending-records.ts). Default MAX_PENDING_SIGN_INS; tests lower it. */
  maxPendingSignIns?: number;
  /**
   * The clock a rotated refresh token's grace window is measured on, ms since the epoch; tests move it.
   * @default Date.now
   */
  now?: () => number;
}

/** What an interaction handler asks its HTTP adapter to do. */
export type InteractionOutcome =
  | { type: 'redirect'; location: string }
  | { type: 'page'; status: number; html: string }
  /** The response was written to the Node response already (oidc-provider's redirect). */
  | { type: 'sent' };

const page = (status: number, title: string, message: string): InteractionOutcome => ({ type: 'page', status, html: errorPage(title, message) });
const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
/** Whether a form's CSRF token is the one kept for it, compared in constant time. */
function sameToken(expected: string | undefined, given: string | undefined): boolean {
  const a = Buffer.from(given ?? '');
  return expected !== undefined && a.length === Buffer.byteLength(expected) && timingSafeEqual(a, Buffer.from(expected));
}

export interface AuthorizationServer {
  readonly issuer: string;
  readonly keys: DerivedKeys;
  /** Serves oidc-provider's own endpoints (/authorize, /token, /register, /revoke, /jwks, metadata). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** GET /interaction/:uid — sends the person upstream to sign in, or shows the consent page. */
  showInteraction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<InteractionOutcome>;
  /** GET /oauth/callback — hands the upstream answer to the interaction it belongs to. */
  upstreamCallback(query: URLSearchParams): Promise<InteractionOutcome>;
  /** GET /interaction/:uid/upstream — finishes the upstream sign-in and applies the allowlist. */
  finishUpstream(req: IncomingMessage, res: ServerResponse, uid: string, query: URLSearchParams): Promise<InteractionOutcome>;
  /** POST /interaction/:uid/return — a sign-in that cannot go on returns to the app with its OAuth error. */
  returnToApp(req: IncomingMessage, res: ServerResponse, uid: string, readForm: () => Promise<{ csrf?: string }>): Promise<InteractionOutcome>;
  /**
   * POST /interaction/:uid/confirm — the consent form. `readForm` is called only once the interaction
   * and its CSRF record are known to exist, so a stranger's POST is answered without its body being read.
   */
  confirm(req: IncomingMessage, res: ServerResponse, uid: string, readForm: () => Promise<{ csrf?: string; decision?: string }>): Promise<InteractionOutcome>;
  /** Ends a person's access: their grants, refresh tokens and sessions are deleted. Returns records removed. */
  revokeAccount(accountId: string): Promise<number>;
}

/**
 * The built-in OAuth 2.1 authorization server: oidc-provider configured for MCP clients (DCR and
 * client ID metadata documents, PKCE S256 required, RFC 8707 resource indicators with one resource,
 * RFC 9207 `iss`, rotating refresh tokens with a grace window), storing through `store`, with sign-in
 * delegated to an upstream provider and an allowlist.
 */
export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const {
    issuer, resource, secret, store, upstream, accounts, accessTokenTtlSeconds, refreshTokenTtlSeconds,
    refreshGraceMs, logger = silentLogger, onEvent = () => {}, fetch: fetchImpl, maxPendingSignIns = MAX_PENDING_SIGN_INS,
    metadataFetchesPerMinute = METADATA_FETCHES_PER_MINUTE, now,
  } = options;
  checkMaxPending('createAuthorizationServer', maxPendingSignIns);
  const keys = deriveKeys(secret);
  const origin = new URL(issuer).origin;
  if (origin !== issuer) throw new TypeError(`the issuer must be a bare origin, got ${JSON.stringify(issuer)}`);
  const callbackUrl = `${issuer}${UPSTREAM_CALLBACK_PATH}`;
  const serverName = new URL(issuer).host;

  const configuration = providerConfiguration({
    resource, keys, store, accounts, accessTokenTtlSeconds, refreshTokenTtlSeconds, refreshGraceMs, serverName, logger, onEvent, fetch: fetchImpl, maxPendingSignIns,
    metadataFetches: metadataFetchBudget(metadataFetchesPerMinute), ...(now ? { now } : {}),
  });

  const provider = new Provider(issuer, configuration);
  // TLS ends at the proxy (Fly, a load balancer): read X-Forwarded-Proto so cookies stay secure. The
  // HTTP adapter sets it and the host from the issuer (src/http/routes/authorization-server.ts); what
  // a client sends in them is never read.
  provider.proxy = true;
  const callback = provider.callback();

  provider.on('grant.revoked', (_ctx: KoaContextWithOIDC, grantId: string) => {
    logger.info({ grant_id: grantId }, 'grant revoked');
    onEvent('revoked');
  });
  provider.on('server_error', (_ctx: KoaContextWithOIDC, error: Error) => logger.error({ err: error }, 'authorization server error'));
  async function details(req: IncomingMessage, res: ServerResponse, uid: string) {
    try {
      const interaction = await provider.interactionDetails(req, res);
      return interaction.uid === uid ? interaction : undefined;
    } catch {
      return undefined;
    }
  }
  /**
   * A record of a sign-in in progress: bounded in number, living as long as a sign-in may take. Its
   * expiry counts from now, to the millisecond, so the bound keeps the newest (an interaction's `exp`
   * is in whole seconds: records of one second would all tie); outliving its interaction by a few
   * minutes does nothing, since every use looks the interaction up first.
   */
  const keepPending = (kind: string, id: string, payload: Record<string, unknown>) =>
    putPending(store, kind, id, payload, { expiresAt: Date.now() + PENDING_SIGN_IN_TTL_SECONDS * 1000, max: maxPendingSignIns });
  const clientName = async (clientId: string) => text((await provider.Client.find(clientId))?.clientName) ?? clientId;
  /** Offers the person a way back to the app with `error`; the error is kept here, never taken from the form. */
  async function offerReturn(interaction: Interaction, error: string, errorDescription: string): Promise<ReturnToApp> {
    const { uid } = interaction;
    const csrfToken = randomBytes(32).toString('base64url');
    // Kept as long as a sign-in may take, like the consent form's token.
    await keepPending('SignInReturn', uid, { token: csrfToken, error, error_description: errorDescription });
    return { clientName: await clientName(String(interaction.params.client_id)), action: `/interaction/${uid}/return`, csrfToken };
  }
  async function upstreamFailed(interaction: Interaction, error: unknown): Promise<InteractionOutcome> {
    const unreachable = !(error instanceof UpstreamLoginError) || error.code === 'upstream_unavailable';
    const back = unreachable
      ? await offerReturn(interaction, 'temporarily_unavailable', 'the sign-in provider could not be reached; try again later')
      : await offerReturn(interaction, 'access_denied', 'the sign-in provider did not confirm the sign-in');
    const detail = error instanceof UpstreamLoginError ? error.message : 'the sign-in provider could not be reached';
    return { type: 'page', status: 502, html: upstreamFailedPage({ ...back, serverName, retryUrl: `/interaction/${interaction.uid}`, unreachable, detail }) };
  }
  const expired = () => page(400, 'This sign-in has expired', 'Go back to the app you were connecting and start the connection again.');

  async function finish(req: IncomingMessage, res: ServerResponse, result: Parameters<Provider['interactionFinished']>[2], merge: boolean): Promise<InteractionOutcome> {
    await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: merge });
    return { type: 'sent' };
  }

  return {
    issuer,
    keys,
    async handle(req, res) {
      // RFC 8414 metadata is oidc-provider's discovery document under the OAuth name.
      if (req.url?.startsWith(SERVER_PATHS.authorizationServerMetadata)) req.url = SERVER_PATHS.openidConfiguration;
      await new Promise<void>((resolve, reject) => {
        res.once('finish', resolve);
        res.once('close', resolve);
        Promise.resolve(callback(req, res)).catch(reject);
      });
    },

    async showInteraction(req, res, uid) {
      const interaction = await details(req, res, uid);
      if (interaction === undefined) return expired();
      if (interaction.prompt.name === 'login') {
        let start;
        try {
          start = await upstream.start();
        } catch (error) {
          logger.error({ err: error }, 'upstream sign-in could not start');
          return upstreamFailed(interaction, error);
        }
        await keepPending('UpstreamLogin', start.state, { uid, ...start.saved });
        return { type: 'redirect', location: start.url.href };
      }
      if (interaction.prompt.name === 'consent') {
        const clientId = String(interaction.params.client_id);
        const client = await provider.Client.find(clientId);
        if (client === undefined) return expired();
        const redirectUri = String(interaction.params.redirect_uri ?? client.redirectUris?.[0] ?? '');
        const csrfToken = randomBytes(32).toString('base64url');
        await keepPending('ConsentCsrf', uid, { token: csrfToken });
        const html = consentPage({
          clientName: text(client.clientName) ?? clientId,
          refreshTokenTtlSeconds,
          accessTokenTtlSeconds,
          redirectOrigin: URL.canParse(redirectUri) ? new URL(redirectUri).origin : redirectUri,
          account: interaction.session?.accountId ?? 'unknown',
          serverName,
          action: `/interaction/${uid}/confirm`,
          csrfToken,
        });
        return { type: 'page', status: 200, html };
      }
      return page(400, 'Unsupported sign-in step', `The step "${interaction.prompt.name}" is not supported; start the connection again.`);
    },

    async upstreamCallback(query) {
      const state = query.get('state');
      const record = state === null ? undefined : await store.get('UpstreamLogin', state);
      const uid = text(record?.payload.uid);
      if (uid === undefined) return expired();
      return { type: 'redirect', location: `/interaction/${encodeURIComponent(uid)}/upstream?${query.toString()}` };
    },

    async finishUpstream(req, res, uid, query) {
      const interaction = await details(req, res, uid);
      const state = query.get('state') ?? '';
      const record = await store.get('UpstreamLogin', state);
      // Single use, whatever happens next.
      await store.delete('UpstreamLogin', state);
      if (interaction === undefined || record === undefined || record.payload.uid !== uid || interaction.prompt.name !== 'login') return expired();
      if (query.has('error')) {
        logger.info({ upstream_error: query.get('error') }, 'sign-in cancelled upstream');
        onEvent('denied');
        return finish(req, res, { error: 'access_denied', error_description: 'the sign-in was cancelled at the identity provider' }, false);
      }
      const saved = Object.fromEntries(Object.entries(record.payload).filter((e): e is [string, string] => typeof e[1] === 'string'));
      let signedIn;
      try {
        signedIn = await upstream.finish(new URL(`${callbackUrl}?${query.toString()}`), saved);
      } catch (error) {
        logger.warn({ err: error }, 'upstream sign-in failed');
        return upstreamFailed(interaction, error);
      }
      const decision = await accounts.admit(signedIn);
      if (!decision.allowed) {
        logger.warn({ provider: upstream.provider, emails: signedIn.identity.verifiedEmails, reason: decision.reason }, 'sign-in denied');
        onEvent('denied');
        // The person learns which account was refused and whom to ask; the app gets access_denied when they return.
        const back = await offerReturn(interaction, 'access_denied', 'this account is not allowed to use this server');
        return { type: 'page', status: 403, html: deniedPage({ ...back, serverName, account: signedIn.identity.verifiedEmails[0] }) };
      }
      logger.info({ provider: upstream.provider, account: decision.accountId, because: decision.because }, 'signed in');
      onEvent('signin');
      return finish(req, res, { login: { accountId: decision.accountId } }, false);
    },

    async returnToApp(req, res, uid, readForm) {
      const interaction = await details(req, res, uid);
      if (interaction === undefined) return expired();
      const saved = await store.get('SignInReturn', uid);
      const token = text(saved?.payload.token);
      const error = text(saved?.payload.error);
      const refused = () => page(403, 'This form has expired', 'The form was not accepted (its security token is missing or wrong). Go back to the app you were connecting and start the connection again.');
      // As for the consent form: the body is read only once there is a record it could match.
      if (error === undefined || token === undefined) return refused();
      const form = await readForm();
      if (!sameToken(token, form.csrf)) return refused();
      await store.delete('SignInReturn', uid);
      return finish(req, res, { error, error_description: text(saved?.payload.error_description) ?? '' }, false);
    },

    async confirm(req, res, uid, readForm) {
      const interaction = await details(req, res, uid);
      if (interaction === undefined) return expired();
      const expected = await store.get('ConsentCsrf', uid);
      const token = text(expected?.payload.token);
      const refused = () => page(403, 'This form has expired', 'The consent form was not accepted (its security token is missing or wrong). Go back and load the page again.');
      if (token === undefined) return refused();
      const form = await readForm();
      if (!sameToken(token, form.csrf)) return refused();
      await store.delete('ConsentCsrf', uid);
      if (interaction.prompt.name !== 'consent') return expired();
      if (form.decision !== 'allow') {
        return finish(req, res, { error: 'access_denied', error_description: 'the person declined access' }, true);
      }
      const accountId = interaction.session?.accountId;
      const clientId = String(interaction.params.client_id);
      if (accountId === undefined) return expired();
      const grant = interaction.grantId === undefined
        ? new provider.Grant({ accountId, clientId })
        : ((await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId, clientId }));
      const missing = interaction.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[]; missingResourceScopes?: Record<string, string[]> };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
      // Saving the grant also keeps the client's registration as long as the grant (the store adapter).
      const grantId = await grant.save();
      return finish(req, res, { consent: { grantId } }, true);
    },

    async revokeAccount(accountId) {
      const removed = await store.deleteAccount(accountId);
      logger.info({ account: accountId, records: removed }, 'access revoked');
      onEvent('revoked');
      return removed;
    },
  };
}
