import type { UpstreamIdentity } from './allowlist.js';
import { CodedError } from '../../coded-error.js';
import type { LoginProvider } from '../../config/schema.js';

/** What `start` hands back: where to send the browser, and what must be kept until the callback. */
export interface UpstreamStart {
  url: URL;
  /** The OAuth `state` sent upstream; the callback is matched to the sign-in by it. */
  state: string;
  /** Per-sign-in secrets (PKCE verifier, nonce), kept server-side until the callback. */
  saved: Record<string, string>;
}

/** What a finished upstream sign-in yields. */
export interface UpstreamSignIn {
  identity: UpstreamIdentity;
  /**
   * A credential with which `recheck` reads the identity again later (GitHub: the OAuth app token,
   * only when organisations are in the allowlist). Stored encrypted with the account, never logged.
   */
  recheckCredential?: string | undefined;
}

/**
 * One upstream identity provider, used for identity only: its tokens serve to learn who the person is
 * and, for GitHub organisations, to re-check membership on refresh; nothing else.
 */
export interface UpstreamLogin {
  readonly provider: LoginProvider;
  start(): Promise<UpstreamStart>;
  /** Completes the sign-in from the callback URL. Throws UpstreamLoginError. */
  finish(callbackUrl: URL, saved: Record<string, string>): Promise<UpstreamSignIn>;
  /**
   * Reads the identity again with a `recheckCredential`. Throws UpstreamLoginError: `upstream_refused`
   * when the credential no longer works (revoked upstream), `upstream_unavailable` when the provider
   * cannot be reached.
   */
  recheck?(credential: string): Promise<UpstreamIdentity>;
}

export class UpstreamLoginError extends CodedError<'upstream_unavailable' | 'upstream_refused'> {}
