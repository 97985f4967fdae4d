/**
 * Where a printer may be. A key's owner chooses a printer's address and port, and the agent opens
 * a TCP connection there and writes to it: without a rule, to any service on the branch's LAN.
 * The gateway checks this rule when a printer is registered or changed (400 naming it), and the
 * agent checks it again before it opens a socket, since the gateway may be compromised or its
 * registry older than the rule.
 *
 * - The port is one of a configured list: by default 9100-9109 (raw printing, "JetDirect", the
 *   port of ESC/POS and TSPL network printers, and the next ports of multi-port print servers)
 *   and 6101 (the alternate raw port of Zebra label printers).
 * - The address is in the branch's private networks: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16
 *   (RFC 1918) and fc00::/7 (IPv6 unique local). Loopback only where configured: the demo's and
 *   the tests' virtual printers. Link-local addresses (169.254.0.0/16, fe80::/10), which a printer
 *   takes only when DHCP failed, are refused like public ones: give it a fixed address.
 * - A host name is resolved by the agent on the branch's LAN; the address it resolves to is
 *   checked there, and is the one connected to.
 */
import { BlockList, isIP } from 'node:net';

export type PortRange = readonly [first: number, last: number];

export interface PrinterRule {
  ports: readonly PortRange[];
  allowLoopback: boolean;
}

export const DEFAULT_PRINTER_PORTS: readonly PortRange[] = [
  [9100, 9109],
  [6101, 6101],
];

export const DEFAULT_PRINTER_RULE: PrinterRule = { ports: DEFAULT_PRINTER_PORTS, allowLoopback: false };

function blocks(ranges: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const list = new BlockList();
  for (const [network, prefix, type] of ranges) list.addSubnet(network, prefix, type);
  return list;
}

const PRIVATE = blocks([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
]);

const LOOPBACK = blocks([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);

/** "9100-9109, 6101": the ports as the config writes them. */
export function describePorts(ports: readonly PortRange[]): string {
  return ports.map(([first, last]) => (first === last ? String(first) : `${first}-${last}`)).join(', ');
}

/** Why the rule refuses this port, or undefined when printers may listen there. */
export function portRefusal(port: number, rule: PrinterRule): string | undefined {
  if (rule.ports.some(([first, last]) => port >= first && port <= last)) return undefined;
  return `must be one of the printer ports allowed (${describePorts(rule.ports)}; printers.ports in the config)`;
}

/** Why the rule refuses this address, or undefined when it may be connected to. A host name is never refused here: its address is. */
export function addressRefusal(address: string, rule: PrinterRule): string | undefined {
  const family = isIP(address);
  if (family === 0) return undefined;
  // An IPv4-mapped IPv6 address (::ffff:10.0.0.5) is checked as the IPv4 address it carries.
  const mapped = family === 6 ? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] : undefined;
  const [ip, type] = mapped ? [mapped, 'ipv4' as const] : [address, family === 4 ? ('ipv4' as const) : ('ipv6' as const)];
  if (PRIVATE.check(ip, type) || (rule.allowLoopback && LOOPBACK.check(ip, type))) return undefined;
  const networks = `10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 or fc00::/7${rule.allowLoopback ? ', or loopback' : ''}`;
  return `must be an address in the branch's private networks (${networks})`;
}
