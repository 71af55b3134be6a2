/**
 * Who made a request, as established by the verifier. Carries no credential: it is safe to log and to
 * use as a metrics label (`clientId` for OAuth, `id` for static tokens).
 */
export interface Principal {
  /**
   * Stable identifier. Static tokens: `token:` + 12 hex digits derived from the token (see
   * static-tokens.ts). OAuth: `oauth:sub:` + the token's `sub`, or `oauth:client:` + its client id
   * when it has no `sub` — separate namespaces, so a client id never equals a user's principal — and a
   * refreshed token keeps the same principal and its sessions.
   */
  id: string;
  kind: 'static' | 'oauth';
  /** Scopes granted by the token (`scope` or `scp` claim). Static tokens carry none: they are full access. */
  scopes: string[];
  /** OAuth client that obtained the token (`client_id` claim, RFC 9068, else `azp`). */
  clientId?: string;
  /** Expiry of the token, in seconds since the epoch (`exp` claim). */
  expiresAt?: number;
}
