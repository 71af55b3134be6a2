import { CodedError } from '../coded-error.js';

/** Why a call to an embeddings or rerank endpoint failed, after any retries. */
export type ProviderErrorCode =
  /** The endpoint answered with a status that retrying will not fix (400, 401, 403, 404, …). */
  | 'http_status'
  /** 429 or 5xx on every attempt. */
  | 'unavailable'
  /** No answer within the timeout on every attempt. */
  | 'timeout'
  /** The connection failed (refused, reset, DNS) on every attempt. */
  | 'network'
  /** The endpoint answered 2xx with a body we cannot use (wrong shape, wrong count, wrong dimension). */
  | 'bad_response'
  /** The endpoint answered 2xx with more bytes than the request can need; reading stopped there. */
  | 'too_large'
  /** Given up because another request of the same call failed (its error is the one reported). */
  | 'cancelled';

/** A typed failure of a provider call; `message` names the endpoint and what to check, never a key. */
export class ProviderError extends CodedError<ProviderErrorCode> {
  constructor(
    code: ProviderErrorCode,
    message: string,
    /** HTTP status of the last attempt, when there was one. */
    readonly status?: number,
  ) {
    super(code, message);
  }
}
