import * as client from 'openid-client';
import type { UpstreamIdentity } from './allowlist.js';
import { UpstreamLoginError } from './upstream-login.js';
import type { UpstreamLogin } from './upstream-login.js';

export interface OidcUpstreamOptions {
  /** LOGIN_OIDC_ISSUER, e.g. `https://accounts.google.com`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** PUBLIC_URL + `/oauth/callback`, registered upstream. */
  redirectUri: string;
  /** Whether plain http is allowed (a loopback issuer: tests and local IdPs). */
  allowHttp?: boolean;
}

/** Whether openid-client's error says the provider answered (as opposed to not being reached). */
const answered = (error: unknown) =>
  error instanceof client.ClientError || error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError || error instanceof client.WWWAuthenticateChallengeError;

/**
 * Any OpenID Connect provider (Google, Entra ID, Okta, Keycloak, Auth0…) through openid-client:
 * authorization code with PKCE, state and nonce; the ID token is verified and only `email` with
 * `email_verified: true` counts, with the `hd` claim when present. Discovery happens on
 * the first sign-in (so the server starts while the provider is down) and is retried after a failure.
 */
export function createOidcUpstream({ issuer, clientId, clientSecret, redirectUri, allowHttp = false }: OidcUpstreamOptions): UpstreamLogin {
  let configuration: Promise<client.Configuration> | undefined;
  const discover = () => {
    if (configuration === undefined) {
      const pending = client.discovery(new URL(issuer), clientId, clientSecret, undefined, allowHttp ? { execute: [client.allowInsecureRequests] } : {});
      configuration = pending;
      pending.catch(() => {
        if (configuration === pending) configuration = undefined;
      });
    }
    return configuration.catch((error: unknown) => {
      throw new UpstreamLoginError('upstream_unavailable', `could not reach the sign-in provider ${issuer}: ${(error as Error).message}`, { cause: error });
    });
  };

  return {
    provider: 'oidc',
    async start() {
      const config = await discover();
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const nonce = client.randomNonce();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, state, saved: { verifier, nonce } };
    },
    async finish(callbackUrl, saved) {
      const config = await discover();
      let claims: Record<string, unknown> | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: saved.verifier,
          expectedState: callbackUrl.searchParams.get('state') ?? '',
          expectedNonce: saved.nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims();
        claims = idToken;
        // Providers that conform strictly to OpenID Connect Core §5.4 put `email` in the UserInfo
        // response, not in the ID token, when an access token is issued: ask there, for this subject.
        if (idToken !== undefined && typeof idToken.email !== 'string' && config.serverMetadata().userinfo_endpoint !== undefined) {
          claims = { ...idToken, ...(await client.fetchUserInfo(config, tokens.access_token, idToken.sub)) };
        }
      } catch (error) {
        // An answer from the provider (an error response, a token that fails its checks) is a refusal;
        // anything else (fetch's TypeError, a timeout) means the provider could not be reached.
        if (!answered(error)) throw new UpstreamLoginError('upstream_unavailable', `could not reach the sign-in provider ${issuer}: ${(error as Error).message}`, { cause: error });
        throw new UpstreamLoginError('upstream_refused', `the sign-in provider did not confirm the sign-in: ${(error as Error).message}`, { cause: error });
      }
      const email = typeof claims?.email === 'string' ? claims.email.toLowerCase() : undefined;
      const identity: UpstreamIdentity = {
        subject: String(claims?.sub),
        verifiedEmails: email !== undefined && claims?.email_verified === true ? [email] : [],
        githubOrgs: [],
        // Google's `hd`: the Workspace that manages the account (in the ID token and in UserInfo).
        hostedDomain: typeof claims?.hd === 'string' ? claims.hd.toLowerCase() : undefined,
        name: typeof claims?.name === 'string' ? claims.name : undefined,
      };
      return { identity };
    },
  };
}
