import { errors } from 'oidc-provider';

/**
 * Size limits on an authorization request's parameters. `/authorize` needs no authentication, and
 * oidc-provider keeps every parameter of a request that starts a sign-in in its Interaction record:
 * without limits, one anonymous GET with a 12,000-character `state` stored about 16 KB. A real request
 * is a few hundred characters: Claude, Claude Code and mcp-remote send a state and a PKCE challenge of
 * 43 characters each, a scope, a redirect URI and the resource.
 */
export const AUTHORIZATION_PARAMETER_LIMITS = {
  /** `state`, characters: opaque to this server, and some clients carry a return path in it. */
  stateChars: 2048,
  /** A parameter that holds a URL (`redirect_uri`, `client_id` naming a metadata document, `resource`), characters: as a registered redirect URI. */
  urlChars: 2000,
  /** `id_token_hint`, characters: an ID token this server signed (ES256, a few hundred characters). */
  idTokenHintChars: 4096,
  /** Any other parameter (`nonce`, `login_hint`, `scope`, `prompt`, `acr_values`, `ui_locales`, `code_challenge`, …), characters. */
  otherChars: 512,
  /** Every parameter together, characters. */
  totalChars: 8192,
} as const;

const URL_PARAMETERS = new Set(['redirect_uri', 'client_id', 'resource']);

function limitOf(name: string): number {
  const { stateChars, urlChars, idTokenHintChars, otherChars } = AUTHORIZATION_PARAMETER_LIMITS;
  if (name === 'state') return stateChars;
  if (name === 'id_token_hint') return idTokenHintChars;
  return URL_PARAMETERS.has(name) ? urlChars : otherChars;
}

const values = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];

/**
 * Throws oidc-provider's InvalidRequest (`invalid_request`, RFC 6749 §4.1.2.1: "includes an invalid
 * parameter value") naming the parameter, its size and the limit, when `params` (the request's
 * recognised parameters; oidc-provider drops any other) break AUTHORIZATION_PARAMETER_LIMITS.
 */
export function checkAuthorizationParameters(params: Record<string, unknown>): void {
  let total = 0;
  for (const [name, value] of Object.entries(params)) {
    const limit = limitOf(name);
    for (const entry of values(value)) {
      if (entry.length > limit) throw new errors.InvalidRequest(`${name} has ${entry.length} characters; at most ${limit} are accepted`);
      total += name.length + entry.length;
    }
  }
  const { totalChars } = AUTHORIZATION_PARAMETER_LIMITS;
  if (total > totalChars) throw new errors.InvalidRequest(`the authorization request's parameters have ${total} characters together; at most ${totalChars} are accepted`);
}

/**
 * oidc-provider's `extraParams` entry that applies the limits. Its validators run after the client and
 * the redirect URI are checked and before an Interaction is stored, so a refusal goes back to the
 * client's redirect URI as `invalid_request` with nothing kept. The validator is registered under
 * `state`, an authorization parameter already: registering it allows no new parameter, and it is
 * given every parameter of the request.
 */
export const authorizationParameterLimits = {
  state: (ctx: { oidc: { params?: unknown } }) => {
    const params = ctx.oidc.params as { toPlainObject?: () => Record<string, unknown> } | undefined;
    checkAuthorizationParameters(params?.toPlainObject?.() ?? (params as Record<string, unknown> | undefined) ?? {});
  },
};
