import type { UpstreamIdentity } from './allowlist.js';
import { CodedError } from '../../coded-error.js';

/** What `start` hands back: where to send the browser, and what must be kept until the callback. */
export interface UpstreamStart {
  url: URL;
  /** The OAuth `state` sent upstream; the callback is matched to the sign-in by it. */
  state: string;
  /** Per-sign-in secrets (PKCE verifier, nonce), kept server-side until the callback. */
  saved: Record<string, string>;
}

/**
 * One upstream identity provider, used for identity only: its tokens are used once, to learn who the
 * person is, and never stored.
 */
export interface UpstreamLogin {
  readonly provider: 'oidc' | 'github';
  start(): Promise<UpstreamStart>;
  /** Completes the sign-in from the callback URL. Throws UpstreamLoginError. */
  finish(callbackUrl: URL, saved: Record<string, string>): Promise<UpstreamIdentity>;
}

export class UpstreamLoginError extends CodedError<'upstream_unavailable' | 'upstream_refused'> {}
