/**
 * Where a webhook may point (SSRF): https, to addresses on the public internet. The config may
 * allow plain http, loopback and private networks (the demo and the tests allow loopback and
 * http); link-local addresses (169.254.169.254 is a cloud's metadata service), unspecified,
 * multicast and reserved ones never.
 *
 * The check runs when the webhook is created and again at every delivery, inside the DNS lookup
 * of the connection itself: the address checked is the address connected to, so a name that
 * resolves to a public address at the check and to a private one a moment later (DNS
 * rebinding) gets nowhere.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

export interface AddressPolicy {
  allowHttp: boolean;
  allowLoopback: boolean;
  allowPrivate: boolean;
}

type AddressClass = 'loopback' | 'private' | 'never';

function list(ranges: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const blocks = new BlockList();
  for (const [net, prefix, type] of ranges) blocks.addSubnet(net, prefix, type);
  return blocks;
}

const LOOPBACK = list([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);

const PRIVATE = list([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  // Carrier-grade NAT, IETF protocol assignments, benchmarking and documentation networks.
  ['100.64.0.0', 10, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
  ['2001:db8::', 32, 'ipv6'],
]);

const NEVER = list([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
  ['0.0.0.0', 8, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['ff00::', 8, 'ipv6'],
  // Prefixes that carry an IPv4 address some networks translate to (IPv4-compatible, SIIT,
  // 6to4, local-use NAT64): no webhook lives there, and judging the address inside each is
  // more forms to get right than refusing them.
  ['::', 96, 'ipv6'],
  ['::ffff:0:0:0', 96, 'ipv6'],
  ['2002::', 16, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
]);

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIpv4(address: string): string | undefined {
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Which restricted class an address is in, or undefined for a public one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = isIP(address) === 6 ? embeddedIpv4(address) : undefined;
  const [ip, type] = v4 ? [v4, 'ipv4' as const] : [address, isIP(address) === 4 ? ('ipv4' as const) : ('ipv6' as const)];
  // Loopback first: ::1 is also inside the IPv4-compatible ::/96 of NEVER.
  if (LOOPBACK.check(ip, type)) return 'loopback';
  if (NEVER.check(ip, type)) return 'never';
  if (PRIVATE.check(ip, type)) return 'private';
  return undefined;
}

/** Why the policy refuses this address, or undefined when it may be connected to. */
export function refusal(address: string, policy: AddressPolicy): string | undefined {
  const kind = classifyAddress(address);
  if (kind === undefined || (kind === 'loopback' && policy.allowLoopback) || (kind === 'private' && policy.allowPrivate)) return undefined;
  return kind === 'never' ? 'its host is a link-local, unspecified, multicast or reserved address' : `its host is a ${kind} address`;
}

export class RefusedAddressError extends Error {}

/** Why the URL itself (scheme, literal address) is refused, or undefined. */
export function urlRefusal(url: URL, policy: AddressPolicy): string | undefined {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) return 'the URL must use https';
  if (url.username || url.password) return 'the URL must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? refusal(host, policy) : undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup for http.request's `lookup` option that fails when any address of the name is
 * refused: the connection is made only to addresses this lookup has checked.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      const refused = addresses.map((a) => refusal(a.address, policy)).find((r) => r !== undefined);
      if (refused) return callback(Object.assign(new RefusedAddressError(refused), { code: 'ERR_REFUSED_ADDRESS' }), '');
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Resolves the URL's host and says why it is refused, or undefined when every address is allowed. */
export async function checkWebhookUrl(url: URL, policy: AddressPolicy): Promise<string | undefined> {
  const early = urlRefusal(url, policy);
  if (early) return early;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return undefined;
  return new Promise((resolve) => {
    guardedLookup(policy)(host, { all: true }, (error) => {
      if (!error) resolve(undefined);
      else resolve(error instanceof RefusedAddressError ? error.message : 'its host does not resolve');
    });
  });
}
