import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ApiError } from '../core/errors.ts';

/**
 * Where a webhook may go (contract.md section 4): `https://` only, and only to a global
 * unicast address, IPv4 or IPv6, so a team cannot make the service call into its own
 * network. Every special-purpose range of the IANA registries is refused: private,
 * loopback, link-local, multicast, unspecified, shared (CGN), documentation and benchmarking,
 * and every IPv6 form that carries or reaches an IPv4 address (IPv4-mapped, NAT64, 6to4,
 * Teredo). The ranges are ipaddr.js's, a kept library, with the one it lacks below. Checked
 * when an endpoint is registered and again on the address a delivery actually connects to.
 */
const ALSO_SPECIAL_V6: [ipaddr.IPv6, number][] = [
  [ipaddr.IPv6.parse('100:0:0:1::'), 64], // RFC 9780, dummy IPv6 prefix
];

/** Whether an IP address (v4 or v6, brackets allowed) is one a webhook must not reach. */
export function isForbiddenAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '');
  if (isIP(ip) === 0) return true;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip);
  } catch {
    return true;
  }
  if (parsed.range() !== 'unicast') return true;
  return parsed.kind() === 'ipv6' && ALSO_SPECIAL_V6.some((range) => (parsed as ipaddr.IPv6).match(range));
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
    throw invalid(
      url.protocol === 'http:'
        ? 'must use https:// (http:// is allowed only in development, with WEBHOOK_ALLOW_PRIVATE_URLS=true)'
        : 'must use https://',
    );
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
