// Who an anonymous request counts against: the address of the socket it came on. Forwarding headers
// (X-Forwarded-For, Forwarded) are never read here: anyone can send them, and no trusted proxy is
// configured. Behind a proxy every request therefore shares the proxy's address.
import type { Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';

/** The key of a request whose socket address is not known (an app served without @hono/node-server). */
export const UNKNOWN_ADDRESS = 'unknown';

/**
 * The budget key of a socket address: an IPv4 address as it is (an IPv4-mapped IPv6 one unwrapped),
 * an IPv6 address by its /64 prefix, since one host usually holds a whole /64 and could otherwise
 * take a fresh budget per address.
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === '') return UNKNOWN_ADDRESS;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const bare = address.split('%')[0]!; // without a zone index (fe80::1%eth0)
  const [head = '', tail] = bare.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  // A dotted IPv4 tail (::ffff:… handled above, 64:ff9b::1.2.3.4 here) fills two groups.
  const rightGroups = right.length + (right.at(-1)?.includes('.') ? 1 : 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(8 - left.length - rightGroups, 0)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/** The budget key of the client address a request came from (see addressKey). */
export function clientAddress(c: Context): string {
  const env = c.env as Partial<HttpBindings> | undefined;
  if (env?.incoming === undefined) return UNKNOWN_ADDRESS;
  return addressKey(getConnInfo(c).remote.address);
}
