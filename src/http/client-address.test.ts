import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { addressKey, clientAddress, UNKNOWN_ADDRESS } from './client-address.js';

describe('addressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:85a3:1234:8a2e:370:7334:1', '2001:db8:85a3:1234::/64'],
    ['2001:db8:85a3:1234::1', '2001:db8:85a3:1234::/64'],
    ['2001:0db8:0000:0001:ffff::', '2001:db8:0:1::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['64:ff9b::198.51.100.1', '64:ff9b:0:0::/64'],
  ])('keys %s as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it('keys two addresses of one /64 alike, and of two /64s apart', () => {
    expect(addressKey('2001:db8:1:2::a')).toBe(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:db8:1:2::a')).not.toBe(addressKey('2001:db8:1:3::a'));
  });

  it.each([undefined, ''])('keys a missing address (%j) as unknown', (address) => {
    expect(addressKey(address)).toBe(UNKNOWN_ADDRESS);
  });
});

describe('clientAddress', () => {
  it('is the socket address, never a forwarding header', async () => {
    const app = new Hono().get('/', (c) => c.text(clientAddress(c)));
    const incoming = { socket: { remoteAddress: '::ffff:198.51.100.9', remotePort: 1, remoteFamily: 'IPv6' } };
    const answer = await app.request('/', { headers: { 'x-forwarded-for': '203.0.113.1', forwarded: 'for=203.0.113.1' } }, { incoming });
    expect(await answer.text()).toBe('198.51.100.9');
  });

  it('is unknown when the app is not served by @hono/node-server', async () => {
    const app = new Hono().get('/', (c) => c.text(clientAddress(c)));
    expect(await (await app.request('/')).text()).toBe(UNKNOWN_ADDRESS);
  });
});
