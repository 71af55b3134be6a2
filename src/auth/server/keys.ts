import { createECDH, createHash, hkdfSync } from 'node:crypto';

/** A P-256 private key as a JWK, with its public half and key id. */
export interface SigningJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
  d: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface DerivedKeys {
  /** ES256 key that signs access tokens and ID tokens. */
  signing: SigningJwk;
  /** The public half, for verifying tokens locally. */
  verification: Omit<SigningJwk, 'd'>;
  /** Keys that sign the authorization server's cookies. */
  cookieKeys: string[];
  /** AES-256 key that encrypts the upstream credential kept with an account for re-checks (GitHub). */
  upstreamCredentialKey: Uint8Array;
}

/** Order of the P-256 group: a private scalar must lie in [1, n-1]. */
const P256_ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
const MIN_SECRET_CHARS = 32;

const b64u = (bytes: Buffer) => bytes.toString('base64url');
const derive = (secret: string, purpose: string, length = 32) =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'corpus-mcp', purpose, length));

/**
 * Everything secret the authorization server needs, derived from AUTH_SECRET with HKDF-SHA256 (one
 * purpose label per key), so that a restart — or another replica with the same secret — signs and
 * verifies with the same keys and every issued token stays valid. Changing AUTH_SECRET invalidates
 * every token and cookie at once.
 */
export function deriveKeys(secret: string): DerivedKeys {
  if (secret.length < MIN_SECRET_CHARS) throw new RangeError(`AUTH_SECRET must have at least ${MIN_SECRET_CHARS} characters`);
  let d: Buffer | undefined;
  // A uniformly random 256-bit value is ≥ n with probability ~2^-32; the counter makes it terminate.
  for (let counter = 0; d === undefined; counter++) {
    const candidate = derive(secret, `es256 signing key ${counter}`);
    const value = BigInt(`0x${candidate.toString('hex')}`);
    if (value > 0n && value < P256_ORDER) d = candidate;
  }
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey(); // 0x04 || x || y
  const x = point.subarray(1, 33);
  const y = point.subarray(33, 65);
  const kid = b64u(createHash('sha256').update(point).digest()).slice(0, 16);
  const verification = { kty: 'EC', crv: 'P-256', x: b64u(x), y: b64u(y), kid, alg: 'ES256', use: 'sig' } as const;
  return {
    signing: { ...verification, d: b64u(d) },
    verification,
    cookieKeys: [b64u(derive(secret, 'cookie signing key'))],
    upstreamCredentialKey: new Uint8Array(derive(secret, 'upstream credential key')),
  };
}
