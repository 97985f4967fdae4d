/** The `printers` section of a gateway's or an agent's config: the rule of protocol/printer-rule.ts. */
import { z } from 'zod';
import { DEFAULT_PRINTER_PORTS, type PortRange, type PrinterRule } from '../protocol/printer-rule.js';

const RANGE = /^(\d{1,5})-(\d{1,5})$/;

/** A port (9100) or an inclusive range ("9100-9109"), as the config writes them. */
function toRange(entry: number | string): PortRange | undefined {
  const [first, last] = typeof entry === 'number' ? [entry, entry] : (RANGE.exec(entry)?.slice(1).map(Number) ?? []);
  return first !== undefined && last !== undefined && first >= 1 && first <= last && last <= 65535 ? [first, last] : undefined;
}

const portEntry = z
  .union([z.number().int(), z.string()])
  .refine((entry) => toRange(entry) !== undefined, 'must be a port 1..65535 or a range of them such as "9100-9109"');

export function printerRuleConfig() {
  const defaults = { ports: DEFAULT_PRINTER_PORTS.map(([first, last]) => (first === last ? first : `${first}-${last}`)), allowLoopback: false };
  return z
    .object({
      ports: z.array(portEntry).min(1).default(defaults.ports).describe('ports a printer may listen on: ports (6101) and ranges ("9100-9109")'),
      allowLoopback: z.boolean().default(false).describe('printers on loopback addresses too (virtual printers on this machine)'),
    })
    .default(defaults)
    .transform((section): PrinterRule => ({ ports: section.ports.map((entry) => toRange(entry)!), allowLoopback: section.allowLoopback }))
    .describe(
      "where printers may be: a port of `ports`, at an address in the branch's private networks (10/8, 172.16/12, 192.168/16, fc00::/7; loopback with allowLoopback); anything else is refused by the gateway and by the agent",
    );
}
