// Everything authentication adds to the app, built from the validated config in one place so that
// main.ts and the end-to-end tests assemble exactly the same thing: the /mcp bearer middleware, the
// RFC 9728 metadata routes, and the /metrics guard.
import { Hono } from 'hono';
import type { MiddlewareHandler } from 'hono';
import type { OAuthVerifierOptions } from '../auth/oauth-verifier.js';
import { StaticTokenConfigError } from '../auth/static-tokens.js';
import { SIGN_IN_SCOPES } from '../auth/server/protocol.js';
import type { SignIn } from '../auth/server/sign-in.js';
import { createVerifier } from '../auth/verifier.js';
import type { AuthConfig } from '../config/config.js';
import { silentLogger } from '../logger.js';
import type { Logger } from '../logger.js';
import { bearerAuth } from './middleware/auth.js';
import { requireMetricsToken } from './middleware/metrics-token.js';
import { authorizationServerRoutes } from './routes/authorization-server.js';
import { protectedResourceMetadataPaths, protectedResourceMetadataRoute } from './routes/well-known.js';

export interface AuthenticationOptions {
  auth: AuthConfig;
  /** Tokens read from AUTH_TOKENS_FILE at boot (src/auth/token-file.ts). Default none. */
  fileTokens?: readonly string[];
  logger?: Logger;
  /** Counts each refusal by reason (AuthError code, or 'metrics_token'). Must not throw. */
  onRefused?: (reason: string) => void;
  /** Verifier tuning that is not configuration (e.g. a short JWKS cooldown in tests). Default none. */
  oauthTuning?: Pick<OAuthVerifierOptions, 'jwksCooldownMs' | 'jwksMaxAgeMs' | 'timeoutMs' | 'clockToleranceSeconds'>;
  /** The built-in authorization server, required when `auth.login` is set (LOGIN_PROVIDER). */
  signIn?: SignIn;
}

export interface Authentication {
  /** Whether /mcp requires credentials. */
  required: boolean;
  /** For createApp's `authenticate`; undefined when auth is off. */
  authenticate: MiddlewareHandler | undefined;
  /** Open routes to mount: the protected resource metadata (only where an authorization server issues tokens) and the sign-in routes; undefined when auth is off. */
  routes: Hono | undefined;
  /** For createOperations' `metricsGuard`; undefined when METRICS_TOKEN is unset (/metrics open). */
  metricsGuard: MiddlewareHandler | undefined;
}

/** Builds the auth pieces; throws at boot (StaticTokenConfigError, TypeError) on unusable settings. */
export function createAuthentication(options: AuthenticationOptions): Authentication {
  const { auth, fileTokens = [], logger = silentLogger, onRefused, oauthTuning = {}, signIn } = options;
  if (auth.metricsToken !== undefined && [...auth.staticTokens, ...fileTokens].includes(auth.metricsToken)) {
    // The scraper's credential would read the documents too.
    throw new StaticTokenConfigError('METRICS_TOKEN equals one of the MCP tokens (AUTH_TOKENS or AUTH_TOKENS_FILE); give the scraper a token of its own');
  }
  const metricsGuard =
    auth.metricsToken === undefined
      ? undefined
      : requireMetricsToken({ token: auth.metricsToken, onRefused: () => onRefused?.('metrics_token') });
  if (!auth.enabled) return { required: false, authenticate: undefined, routes: undefined, metricsGuard };
  if (auth.oauth !== undefined && auth.oauth.audience !== auth.resource) {
    // Allowed (some IdPs cannot put a URL in `aud`), but then a token for this audience may be
    // accepted by other servers too: RFC 8707 wants the resource URL.
    logger.warn(
      { oauth_audience: auth.oauth.audience, resource: auth.resource },
      `OAUTH_AUDIENCE is not this server's resource URL ${auth.resource}; tokens minted for ${auth.oauth.audience} may also be accepted by other services that share that audience`,
    );
  }

  if (auth.login !== undefined && signIn === undefined) throw new TypeError('LOGIN_PROVIDER is set but no authorization server was built');
  const verifier = createVerifier({
    staticTokens: [...auth.staticTokens, ...fileTokens],
    ...(signIn === undefined ? {} : { issued: signIn.verifier }),
    ...(auth.oauth === undefined
      ? {}
      : {
          oauth: {
            issuer: auth.oauth.issuer,
            audience: auth.oauth.audience,
            requiredScopes: auth.oauth.requiredScopes,
            ...(auth.oauth.jwksUrl === undefined ? {} : { jwksUrl: auth.oauth.jwksUrl }),
            ...oauthTuning,
          },
        }),
  });
  const authorizationServers = signIn !== undefined ? [signIn.server.issuer] : auth.oauth === undefined ? [] : [auth.oauth.issuer];
  // OAuth is advertised only where it exists: with static tokens alone, a challenge naming metadata
  // sent MCP clients into discovery and dynamic registration against endpoints that are not there.
  const oauth = authorizationServers.length > 0;
  const authenticate = bearerAuth({ verifier, resource: auth.resource, logger, oauth, ...(onRefused ? { onRefused } : {}) });

  const routes = new Hono();
  if (oauth) {
    const metadata = protectedResourceMetadataRoute({
      resource: auth.resource,
      authorizationServers,
      scopesSupported: signIn !== undefined ? SIGN_IN_SCOPES : (auth.oauth?.requiredScopes ?? []),
    });
    for (const path of protectedResourceMetadataPaths(auth.resource)) routes.get(path, metadata);
  } else {
    // MCP clients go into OAuth on any 401 whatever the challenge says, and end up registering at the
    // default /register; the 404 they print then says what to do instead.
    routes.post('/register', (c) =>
      c.json({
        error: 'not_found',
        message: 'no route for POST /register: this server has no OAuth authorization server, so there is nothing to register with. /mcp takes a static token from its operator, sent as "Authorization: Bearer <token>"; a 401 from /mcp means the token sent was missing or is not one of them',
      }, 404));
  }
  if (signIn !== undefined) routes.route('/', authorizationServerRoutes(signIn.server) as unknown as Hono);

  return { required: true, authenticate: authenticate as MiddlewareHandler, routes, metricsGuard };
}
