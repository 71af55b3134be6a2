// The fetch oidc-provider uses for documents named by a client: client ID metadata documents (a
// `client_id` that is an https URL), and whatever else a client's metadata points to. Anyone can make
// the server fetch such a URL, so the address is checked before a connection is opened: a name is
// resolved here, and when any of its addresses is loopback, private (RFC 1918), shared (RFC 6598),
// link-local, unique-local, unspecified, multicast or reserved (the IPv4-mapped, NAT64 and 6to4 forms
// of those included) the fetch fails without a socket. oidc-provider's own guard destroys the socket
// only once it has connected, so the time to its answer told an open internal port from a closed one.
// The addresses checked are the ones connected to (the check is Node's `lookup` hook), so a name that
// answers differently the second time (DNS rebinding) gains nothing. Redirects are never followed.
// How often such documents are fetched at all is bounded by `metadataFetchBudget`.
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';
import { Readable } from 'node:stream';

const SPECIAL_USE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 itself included
  ['10.0.0.0', 8], // private (RFC 1918)
  ['100.64.0.0', 10], // shared address space (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private (RFC 1918)
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private (RFC 1918)
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  SPECIAL_USE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard-only
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  SPECIAL_USE.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (NAT64 64:ff9b::/96, 6to4 2002::/16), if any. IPv4-mapped ones BlockList checks itself. */
function embeddedIpv4(address: string): string | undefined {
  const words = expandIpv6(address);
  if (words === undefined) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a dotted IPv4 tail allowed). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1]!.split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return undefined;
  return [...left, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...right].map((w) => parseInt(w, 16));
}

/** Whether `address` (an IP literal) is one this server never fetches from: see the header. */
export function isSpecialUseAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return true; // not an address: nothing to connect to
  if (family === 4) return SPECIAL_USE.check(bare, 'ipv4');
  if (SPECIAL_USE.check(bare, 'ipv6')) return true;
  const embedded = embeddedIpv4(bare);
  return embedded !== undefined && SPECIAL_USE.check(embedded, 'ipv4');
}

/** Why a fetch was refused before any connection: the address is not one this server fetches from. */
export class RefusedAddressError extends Error {
  readonly code = 'ERR_SPECIAL_USE_ADDRESS';
}

type Lookup = (hostname: string, options: LookupOptions & { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export interface MetadataFetchOptions {
  /** Resolves a name to every address it has. Default Node's `dns.lookup`; tests name their own addresses. */
  resolve?: Lookup;
  /** Whether an address is refused. Default `isSpecialUseAddress`; a test that serves documents on loopback passes its own. */
  refuses?: (address: string) => boolean;
}

/** A fetch (GET, no redirects followed) that never opens a connection to a refused address. */
export function createMetadataFetch({ resolve = dnsLookup as Lookup, refuses = isSpecialUseAddress }: MetadataFetchOptions = {}) {
  // Node's connect calls this once it has a name to resolve: every address is checked, the whole
  // answer refused if one is, so the connection never starts.
  const lookup = (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void): void => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.find((a) => refuses(a.address));
      if (refused !== undefined || addresses.length === 0) {
        return callback(new RefusedAddressError(`${hostname} resolves to ${refused?.address ?? 'no address'}, which this server does not fetch from`), '');
      }
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
  return async function metadataFetch(input: URL | string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(String(input));
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`cannot fetch ${url.protocol} URLs`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An address written in the URL is never looked up: checked here.
    if (isIP(host) !== 0 && refuses(host)) throw new RefusedAddressError(`${host} is not an address this server fetches from`);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const response = await new Promise<IncomingMessage>((done, fail) => {
      const req = request(url, { method: init.method ?? 'GET', headers, lookup, agent: false, ...(init.signal ? { signal: init.signal } : {}) }, done);
      req.once('error', fail);
      req.end(typeof init.body === 'string' || init.body instanceof Uint8Array ? init.body : undefined);
    });
    const status = response.statusCode ?? 502;
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
    }
    const empty = status === 204 || status === 205 || status === 304 || init.method === 'HEAD';
    if (empty) response.resume();
    return new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), { status, headers: responseHeaders });
  };
}

/** Default bound on metadata documents fetched (cache misses), per process: a burst of this many, then one a second. */
export const METADATA_FETCHES_PER_MINUTE = 60;

/**
 * How many metadata documents may be fetched: a bucket of `perMinute` fetches, refilled evenly over a
 * minute. `take` answers false when it is empty. Cached documents (oidc-provider keeps 100) cost nothing.
 */
export function metadataFetchBudget(perMinute = METADATA_FETCHES_PER_MINUTE, now: () => number = Date.now): { take(): boolean } {
  if (!Number.isSafeInteger(perMinute) || perMinute < 1) throw new RangeError(`metadata fetches per minute must be a positive integer, got ${String(perMinute)}`);
  let tokens = perMinute;
  let at = now();
  return {
    take() {
      const t = now();
      tokens = Math.min(perMinute, tokens + ((t - at) * perMinute) / 60_000);
      at = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
