// A local OAuth authorization server for tests: its own signing keys (jose generateKeyPair), RFC 8414
// or OpenID Connect metadata, and a JWKS, on an ephemeral loopback port. It mints access tokens
// directly; there is no authorization endpoint, since the resource server only ever verifies tokens.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import type { CryptoKey, JWK, JWTPayload } from 'jose';

export type SigningAlgorithm = 'RS256' | 'PS256' | 'ES256' | 'EdDSA';

interface SigningKey {
  kid: string;
  alg: SigningAlgorithm;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface AuthorizationServerOptions {
  /** Path appended to the origin to form the issuer, e.g. '/realms/test'. Default '' (issuer = origin). */
  issuerPath?: string;
  /** Which well-known document to serve. Default 'oauth' (RFC 8414). */
  metadata?: 'oauth' | 'openid';
  /** Signing algorithm of the first key. Default 'RS256'. */
  alg?: SigningAlgorithm;
  /** Issuer written into the metadata document, to test a lying metadata document. Default: the real issuer. */
  metadataIssuer?: string;
  /** Default `aud` of minted tokens. Default 'https://corpus.example/mcp'. */
  audience?: string;
}

export interface MintOptions {
  /** Sign with this key instead of the current one (e.g. a foreign key). */
  key?: { privateKey: CryptoKey; alg: SigningAlgorithm; kid?: string };
  /** Override the `kid` header (undefined removes it when set explicitly via `omitKid`). */
  kid?: string;
  omitKid?: boolean;
  /** Leave out `exp`. */
  omitExp?: boolean;
  /** Further protected-header parameters (crit, jku, x5u, jwk, …). */
  header?: Record<string, unknown>;
  /** Extensions the signer must accept in `crit` (jose's sign option). */
  crit?: Record<string, boolean>;
}

/** How the server misbehaves, for tests of the resource server's defences. */
export interface Misbehaviour {
  /** Answer every request with 503. */
  down?: boolean;
  /** Answer the metadata URLs with a 302 to this location instead of the document. */
  redirectMetadataTo?: string;
  /** jwks_uri written into the metadata instead of the real one. */
  jwksUri?: string;
  /** Pad the metadata document with this many extra bytes. */
  metadataPadding?: number;
}

export interface TestAuthorizationServer {
  readonly issuer: string;
  readonly jwksUrl: string;
  /** How many times the JWKS was fetched. */
  readonly jwksRequests: number;
  /** Metadata URLs requested, in order. */
  readonly metadataRequests: readonly string[];
  /** A token with sensible defaults (iss, aud, sub, iat, exp in one hour) overridden by `claims`. */
  mint(claims: JWTPayload & { aud?: string | string[] }, options?: MintOptions): Promise<string>;
  /** An unsigned token (`alg: none`) with the same defaults. */
  mintUnsigned(claims: JWTPayload): string;
  /** An HS256 token whose HMAC secret is the current public key (the classic key-confusion attack). */
  mintWithPublicKeyAsHmacSecret(claims: JWTPayload): Promise<string>;
  /** Adds a new signing key to the JWKS (keeping the old ones) and signs with it from now on. */
  rotateKey(): Promise<string>;
  /** Changes how the server answers from now on (replaces any earlier misbehaviour). */
  misbehave(how: Misbehaviour): void;
  /** Key pair that is not in this server's JWKS. */
  foreignKey(alg?: SigningAlgorithm): Promise<{ privateKey: CryptoKey; publicJwk: JWK; alg: SigningAlgorithm; kid?: string }>;
  close(): Promise<void>;
}

async function newKey(kid: string, alg: SigningAlgorithm): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, publicJwk };
}

export async function startAuthorizationServer({
  issuerPath = '',
  metadata = 'oauth',
  alg = 'RS256',
  metadataIssuer,
  audience = 'https://corpus.example/mcp',
}: AuthorizationServerOptions = {}): Promise<TestAuthorizationServer> {
  const keys: SigningKey[] = [await newKey('key-1', alg)];
  let jwksRequests = 0;
  const metadataRequests: string[] = [];
  let issuer = '';
  let misbehaviour: Misbehaviour = {};

  const path = issuerPath.replace(/\/+$/, '');
  const wellKnown =
    metadata === 'oauth'
      ? [`/.well-known/oauth-authorization-server${path}`]
      : [`/.well-known/openid-configuration${path}`, `${path}/.well-known/openid-configuration`];

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname.startsWith('/.well-known/') || url.pathname.endsWith('/.well-known/openid-configuration')) {
      metadataRequests.push(url.pathname);
    }
    if (url.pathname === `${path}/jwks`) jwksRequests += 1;
    if (misbehaviour.down) {
      send(503, { error: 'temporarily_unavailable' });
      return;
    }
    if (wellKnown.includes(url.pathname) && misbehaviour.redirectMetadataTo !== undefined) {
      res.writeHead(302, { location: misbehaviour.redirectMetadataTo });
      res.end();
      return;
    }
    if (wellKnown.includes(url.pathname)) {
      send(200, {
        ...(misbehaviour.metadataPadding ? { padding: 'x'.repeat(misbehaviour.metadataPadding) } : {}),
        issuer: metadataIssuer ?? issuer,
        jwks_uri: misbehaviour.jwksUri ?? `${issuer}/jwks`,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
      return;
    }
    if (url.pathname === `${path}/jwks`) {
      send(200, { keys: keys.map((key) => key.publicJwk) });
      return;
    }
    send(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  issuer = `http://127.0.0.1:${port}${path}`;

  const current = () => keys[keys.length - 1]!;
  const defaults = (claims: JWTPayload): JWTPayload => {
    const now = Math.floor(Date.now() / 1000);
    return { iss: issuer, aud: audience, sub: 'user-1', iat: now, exp: now + 3600, ...claims };
  };

  return {
    get issuer() {
      return issuer;
    },
    get jwksUrl() {
      return `${issuer}/jwks`;
    },
    get jwksRequests() {
      return jwksRequests;
    },
    metadataRequests,
    async mint(claims, options = {}) {
      const key = options.key ?? current();
      const payload = defaults(claims);
      if (options.omitExp) delete payload.exp;
      const kid = options.omitKid ? undefined : (options.kid ?? ('kid' in key ? key.kid : undefined));
      return new SignJWT(payload)
        .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', ...(kid === undefined ? {} : { kid }), ...options.header })
        .sign(key.privateKey, options.crit ? { crit: options.crit } : undefined);
    },
    mintUnsigned(claims) {
      return new UnsecuredJWT(defaults(claims)).encode();
    },
    async mintWithPublicKeyAsHmacSecret(claims) {
      const key = current();
      const secret = new TextEncoder().encode(await exportSPKI(key.publicKey));
      return new SignJWT(defaults(claims)).setProtectedHeader({ alg: 'HS256', kid: key.kid }).sign(secret);
    },
    async rotateKey() {
      const key = await newKey(`key-${keys.length + 1}`, alg);
      keys.push(key);
      return key.kid;
    },
    misbehave(how) {
      misbehaviour = how;
    },
    async foreignKey(foreignAlg = alg) {
      const { privateKey, publicKey } = await generateKeyPair(foreignAlg, { extractable: true });
      return { privateKey, publicJwk: await exportJWK(publicKey), alg: foreignAlg };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
