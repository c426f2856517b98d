import { describe, expect, it } from 'vitest';
import { checkEndpointUrl, isForbiddenAddress } from './addresses.ts';

/** One address in every special-purpose range of the IANA IPv4 registry. */
const SPECIAL_V4 = [
  '0.0.0.0', // 0.0.0.0/8 this network
  '0.1.2.3',
  '10.1.2.3', // 10/8 private
  '100.64.0.1', // 100.64/10 shared (CGN)
  '100.127.255.254',
  '127.0.0.1', // 127/8 loopback
  '127.255.255.254',
  '169.254.169.254', // 169.254/16 link-local (cloud metadata)
  '172.16.0.1', // 172.16/12 private
  '172.31.255.254',
  '192.0.0.8', // 192.0.0.0/24 IETF protocol assignments
  '192.0.0.170', // NAT64/DNS64 discovery
  '192.0.2.1', // TEST-NET-1
  '192.31.196.1', // AS112-v4
  '192.52.193.1', // AMT
  '192.88.99.1', // deprecated 6to4 relay anycast
  '192.168.1.1', // 192.168/16 private
  '192.175.48.1', // direct delegation AS112
  '198.18.0.1', // 198.18/15 benchmarking
  '198.19.255.254',
  '198.51.100.1', // TEST-NET-2
  '203.0.113.1', // TEST-NET-3
  '224.0.0.1', // multicast
  '239.255.255.250',
  '240.0.0.1', // reserved
  '255.255.255.255', // limited broadcast
];

/** One address in every special-purpose range of the IANA IPv6 registry, and the forms that reach IPv4. */
const SPECIAL_V6 = [
  '::', // unspecified
  '::1', // loopback
  '::ffff:8.8.8.8', // IPv4-mapped (even of a public address)
  '::ffff:127.0.0.1',
  '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
  '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
  '64:ff9b:1::1', // local-use NAT64
  '100::1', // discard-only
  '100:0:0:1::1', // dummy prefix
  '2001::1', // Teredo
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:1::1', // port control anycast
  '2001:2::1', // benchmarking
  '2001:3::1', // AMT
  '2001:4:112::1', // AS112-v6
  '2001:10::1', // deprecated ORCHID
  '2001:20::1', // ORCHIDv2
  '2001:30::1', // drone remote ID
  '2001:db8::1', // documentation
  '2002:7f00:1::1', // 6to4 of 127.0.0.1
  '2002:c0a8:101::1', // 6to4 of 192.168.1.1
  '2620:4f:8000::1', // direct delegation AS112
  '3fff::1', // documentation
  '5f00::1', // SRv6 SIDs
  'fc00::1', // unique local
  'fd12:3456::1',
  'fe80::1', // link-local
  'fec0::1', // deprecated site-local
  'ff02::1', // multicast
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e'];

describe('webhook address rules', () => {
  it('refuses every special-purpose IPv4 and IPv6 range, brackets or not', () => {
    for (const address of [...SPECIAL_V4, ...SPECIAL_V6]) {
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: true });
    }
    expect(isForbiddenAddress('[64:ff9b::a9fe:a9fe]')).toBe(true);
    for (const bad of ['', 'localhost', '1.2.3', '256.1.1.1', 'fe80::1%eth0']) {
      expect(isForbiddenAddress(bad), bad).toBe(true);
    }
  });

  it('allows global unicast addresses', () => {
    for (const address of PUBLIC) {
      expect({ address, forbidden: isForbiddenAddress(address) }).toEqual({ address, forbidden: false });
    }
    expect(isForbiddenAddress('[2606:4700:4700::1111]')).toBe(false);
  });

  it('refuses them at registration too, and says which setting allows http:// in development', async () => {
    for (const address of [...SPECIAL_V4.slice(0, 6), '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2001::1']) {
      const host = address.includes(':') ? `[${address}]` : address;
      await expect(checkEndpointUrl(`https://${host}/hooks`, false)).rejects.toThrow(
        'url must not point to a private, loopback or link-local address',
      );
    }
    await expect(checkEndpointUrl('https://[2606:4700:4700::1111]/hooks', false)).resolves.toBe(
      'https://[2606:4700:4700::1111]/hooks',
    );
    await expect(checkEndpointUrl('http://hooks.example.com/x', false)).rejects.toThrow(
      'url must use https:// (http:// is allowed only in development, with WEBHOOK_ALLOW_PRIVATE_URLS=true)',
    );
    await expect(checkEndpointUrl('ftp://hooks.example.com/x', false)).rejects.toThrow(
      'url must use https://',
    );
  });
});
