// The few names the authorization server shares with the HTTP layer, in a module that loads nothing:
// oidc-provider is imported only when LOGIN_PROVIDER is set (see src/main.ts).

/** The one scope of the MCP resource; `offline_access` asks for a refresh token. */
export const RESOURCE_SCOPE = 'mcp';
/** The scopes the protected-resource metadata offers clients: the resource's, and a refresh token. */
export const SIGN_IN_SCOPES: readonly string[] = Object.freeze([RESOURCE_SCOPE, 'offline_access']);
/** Path the upstream provider redirects back to: register PUBLIC_URL + this upstream. */
export const UPSTREAM_CALLBACK_PATH = '/oauth/callback';

/** What the built-in sign-in reports: a person signed in, was denied by the allowlist, or lost access (revocation). */
export const SIGN_IN_EVENTS = ['signin', 'denied', 'revoked'] as const;
export type SignInEvent = (typeof SIGN_IN_EVENTS)[number];
