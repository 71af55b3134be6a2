// The fetch for client-named documents, against real listening sockets: an address this server does
// not fetch from is refused before a connection is opened (counted on the listener), whether written
// in the URL or resolved from a name; the rate bound counts fetches.
import { createServer as createHttpServer } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countingListener } from '../../../test/support/counting-listener.js';
import { createMetadataFetch, isSpecialUseAddress, metadataFetchBudget, RefusedAddressError } from './metadata-fetch.js';

describe('isSpecialUseAddress', () => {
  it.each([
    ['loopback', ['127.0.0.1', '127.255.255.254', '::1']],
    ['private (RFC 1918)', ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.254', '192.168.1.1']],
    ['link-local', ['169.254.169.254', 'fe80::1', 'fe80::abcd:1234']],
    ['unique-local', ['fc00::1', 'fd12:3456:789a::1']],
    ['IPv4-mapped IPv6 of those', ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:192.168.0.1']],
    ['NAT64 and 6to4 forms of those', ['64:ff9b::7f00:1', '64:ff9b::10.1.2.3', '2002:7f00:1::', '2002:c0a8:101::1']],
    ['unspecified', ['0.0.0.0', '::', '0.1.2.3']],
    ['shared, multicast, reserved, documentation', ['100.64.0.1', '224.0.0.1', '255.255.255.255', '240.0.0.1', '192.0.2.1', 'ff02::1', '2001:db8::1']],
    ['not an address at all', ['localhost', '', 'example.com']],
  ])('refuses %s', (_class, addresses) => {
    for (const address of addresses) expect({ address, refused: isSpecialUseAddress(address) }).toEqual({ address, refused: true });
  });

  it('accepts public addresses, the edges of the private ranges included', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '192.169.0.1', '169.255.0.1', '11.0.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', 'fbff::1']) {
      expect({ address, refused: isSpecialUseAddress(address) }).toEqual({ address, refused: false });
    }
  });
});

describe('createMetadataFetch', () => {
  // A real listener on loopback that counts every TCP connection made to it.
  const listener = countingListener();

  /** A resolver that answers `addresses` for every name, as a DNS server an attacker runs could. */
  const resolvingTo = (...addresses: string[]) => (_name: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) =>
    callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

  it.each([
    ['an IPv4 loopback literal', `https://127.0.0.1:PORT/c.json`],
    ['an IPv4-mapped IPv6 loopback literal', `https://[::ffff:127.0.0.1]:PORT/c.json`],
    ['localhost, resolved by the system', `https://localhost:PORT/c.json`],
  ])('opens no connection to %s', async (_label, template) => {
    const before = listener.connections;
    const fetch = createMetadataFetch();
    await expect(fetch(template.replace('PORT', String(listener.port)))).rejects.toBeInstanceOf(RefusedAddressError);
    expect(listener.connections).toBe(before);
  });

  it.each([
    ['loopback', ['127.0.0.1']],
    ['private', ['10.1.2.3']],
    ['link-local', ['169.254.169.254']],
    ['unique-local', ['fd00::1']],
    ['IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['unspecified', ['0.0.0.0']],
    ['a public address beside a loopback one', ['93.184.216.34', '127.0.0.1']],
  ])('refuses a name that resolves to %s, before connecting', async (_label, addresses) => {
    const before = listener.connections;
    const fetch = createMetadataFetch({ resolve: resolvingTo(...addresses) });
    await expect(fetch(`https://client.example:${listener.port}/c.json`)).rejects.toMatchObject({ code: 'ERR_SPECIAL_USE_ADDRESS' });
    expect(listener.connections).toBe(before);
  });

  describe('with the test-only allowance of loopback', () => {
    let server: HttpServer;
    let served: string;
    beforeAll(async () => {
      server = createHttpServer((req, res) => {
        res.setHeader('cache-control', 'max-age=60');
        res.end(JSON.stringify({ client_id: served, path: req.url }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      served = `http://127.0.0.1:${(server.address() as AddressInfo).port}/c.json`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('fetches the document, status, headers and body, and follows no redirect', async () => {
      const fetch = createMetadataFetch({ refuses: () => false });
      const response = await fetch(served, { headers: { accept: 'application/json' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('max-age=60');
      expect(await response.json()).toEqual({ client_id: served, path: '/c.json' });
    });
  });
});

describe('metadataFetchBudget', () => {
  it('allows a burst of perMinute fetches, then one more each time a minute / perMinute has passed', () => {
    let now = 1_000_000;
    const budget = metadataFetchBudget(3, () => now);
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
    now += 20_000;
    expect([budget.take(), budget.take()]).toEqual([true, false]);
    now += 10 * 60_000;
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false]);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => metadataFetchBudget(0)).toThrow(RangeError);
  });
});
