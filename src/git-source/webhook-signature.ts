// A push webhook's authenticity: `X-Hub-Signature-256: sha256=<hex>` is the HMAC-SHA256 of the raw
// body under the shared secret (GitHub, Gitea), compared in constant time. A delivery id seen before
// (`X-GitHub-Delivery`, `X-Gitea-Delivery`) is a replay: recognised and ignored, so a captured request
// sent again starts nothing. A delivery only ever asks for a fetch, so the ids are kept in memory
// (the last 1,000, for a day); a replica or a restart that has not seen an id lets it fetch once more,
// which is harmless.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const MAX_REMEMBERED_DELIVERIES = 1000;
export const DELIVERY_MEMORY_MS = 86_400_000;

/** Whether `header` is the signature of `body` under `secret`. */
export function validSignature(secret: string, body: Uint8Array, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
  const given = Buffer.from(header?.trim().toLowerCase() ?? '');
  if (given.length !== expected.length) {
    // timingSafeEqual needs equal lengths; comparing the expected value with itself keeps the time the same.
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(given, expected);
}

/** The delivery ids seen lately. */
export class DeliveryMemory {
  readonly #seen = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** True the first time `id` is seen (within the memory), false for a replay. */
  first(id: string): boolean {
    const now = this.now();
    for (const [seen, at] of this.#seen) {
      if (now - at < DELIVERY_MEMORY_MS && this.#seen.size <= MAX_REMEMBERED_DELIVERIES) break;
      this.#seen.delete(seen);
    }
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}
