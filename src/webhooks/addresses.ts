import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ApiError } from '../core/errors.ts';

/**
 * Where a webhook may go (contract.md section 4): `https://` only, and never to a private,
 * loopback, link-local, multicast or unspecified address, IPv4 or IPv6 (IPv4-mapped IPv6
 * included), so a team cannot make the service call into its own network. Checked when an
 * endpoint is registered and again on the address a delivery actually connects to.
 */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['100::', 64], // discard-only
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address (v4 or v6, brackets allowed) is one a webhook must not reach. */
export function isForbiddenAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  const family = isIP(ip);
  if (family === 4) return FORBIDDEN.check(ip, 'ipv4');
  if (family !== 6) return true;
  const embedded = embeddedIpv4(ip);
  if (embedded) return FORBIDDEN.check(embedded, 'ipv4');
  return FORBIDDEN.check(ip, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d), -compatible or NAT64 IPv6 one. */
function embeddedIpv4(ip: string): string | undefined {
  const groups = expandIpv6(ip.toLowerCase());
  if (!groups) return undefined;
  const head = groups.slice(0, 6).join(':');
  const mapped = head === '0:0:0:0:0:ffff';
  const compatible = head === '0:0:0:0:0:0' && groups[6] !== 0;
  const nat64 = groups.slice(0, 6).join(':') === '64:ff9b:0:0:0:0';
  if (!mapped && !compatible && !nat64) return undefined;
  const high = groups[6] ?? 0;
  const low = groups[7] ?? 0;
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

function expandIpv6(ip: string): number[] | undefined {
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a, b, c, d] = dotted[1].split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const head = parse(left);
  const tail = right === undefined ? [] : parse(right);
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (right === undefined && fill !== 0)) return undefined;
  return [...head, ...Array<number>(fill).fill(0), ...tail];
}

const MAX_URL_LENGTH = 2048;

/**
 * Checks an endpoint URL at registration. A host name is resolved and every address it
 * has checked; a name that does not resolve now is accepted (a delivery checks again).
 */
export async function checkEndpointUrl(raw: string, allowPrivate: boolean): Promise<string> {
  const invalid = (why: string) => new ApiError('validation_error', `url ${why}`);
  if (raw.length > MAX_URL_LENGTH) throw invalid(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('must be an absolute https:// URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) {
    throw invalid('must use https://');
  }
  if (url.username || url.password) throw invalid('must not contain credentials');
  if (allowPrivate) return url.toString();
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isForbiddenAddress(host))
      throw invalid('must not point to a private, loopback or link-local address');
    return url.toString();
  }
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    throw invalid('must not point to a private, loopback or link-local address');
  }
  const addresses = await resolveAll(host);
  if (addresses.some((a) => isForbiddenAddress(a))) {
    throw invalid('must not point to a private, loopback or link-local address');
  }
  return url.toString();
}

async function resolveAll(host: string): Promise<string[]> {
  try {
    const answer = lookup(host, { all: true, verbatim: true });
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('timeout')), 2000).unref(),
    );
    return (await Promise.race([answer, timeout])).map((a) => a.address);
  } catch {
    return [];
  }
}
