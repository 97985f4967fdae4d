/** Where printers may be: the rule the gateway and the agent both apply, and its config section. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { addressRefusal, DEFAULT_PRINTER_RULE, describePorts, portRefusal, type PrinterRule } from '../../src/protocol/printer-rule.js';

describe('portRefusal', () => {
  it('takes 9100-9109 and 6101 by default, and names the rule for any other port', () => {
    for (const port of [9100, 9105, 9109, 6101]) expect(portRefusal(port, DEFAULT_PRINTER_RULE), String(port)).toBeUndefined();
    for (const port of [9, 22, 80, 443, 515, 631, 1433, 5432, 9099, 9110, 6100, 65535]) {
      expect(portRefusal(port, DEFAULT_PRINTER_RULE), String(port)).toBe(
        'must be one of the printer ports allowed (9100-9109, 6101; printers.ports in the config)',
      );
    }
  });
});

describe('addressRefusal', () => {
  const loopback: PrinterRule = { ...DEFAULT_PRINTER_RULE, allowLoopback: true };

  it("takes the branch's private networks", () => {
    for (const address of ['10.0.0.5', '10.255.255.254', '172.16.0.1', '172.31.255.1', '192.168.1.50', 'fd12:3456::7', 'fc00::1', '::ffff:192.168.1.9']) {
      expect(addressRefusal(address, DEFAULT_PRINTER_RULE), address).toBeUndefined();
    }
  });

  it('refuses public, link-local, loopback (unless allowed), unspecified and multicast addresses', () => {
    for (const address of [
      '8.8.8.8',
      '172.32.0.1',
      '11.0.0.1',
      '169.254.1.5',
      '169.254.169.254',
      'fe80::1',
      '127.0.0.1',
      '::1',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '2001:4860::8888',
      '::ffff:8.8.8.8',
    ]) {
      expect(addressRefusal(address, DEFAULT_PRINTER_RULE), address).toMatch(/^must be an address in the branch's private networks \(/);
    }
    expect(addressRefusal('127.0.0.1', loopback)).toBeUndefined();
    expect(addressRefusal('::1', loopback)).toBeUndefined();
    expect(addressRefusal('169.254.1.5', loopback)).toMatch(/or loopback\)$/);
  });

  it('leaves a host name to the agent, which checks the address it resolves to', () => {
    expect(addressRefusal('impresora-cocina', DEFAULT_PRINTER_RULE)).toBeUndefined();
  });
});

describe('the printers section of the config', () => {
  const gateway = (printers?: unknown) => parseConfig({ gateway: printers === undefined ? {} : { printers } }, {}).gateway!.printers;

  it('defaults to the rule above, for the gateway and the agent alike', () => {
    expect(gateway()).toEqual(DEFAULT_PRINTER_RULE);
    const agent = parseConfig(
      { agent: { licenseKey: 'AAAA000000000001', gatewayUrl: 'ws://g', token: 't', database: { dialect: 'postgres', url: 'postgres://x' } } },
      {},
    );
    expect(agent.agent!.printers).toEqual(DEFAULT_PRINTER_RULE);
  });

  it('takes ports and ranges, and loopback when asked', () => {
    const rule = gateway({ ports: [9100, '9200-9201'], allowLoopback: true });
    expect(rule).toEqual({
      ports: [
        [9100, 9100],
        [9200, 9201],
      ],
      allowLoopback: true,
    });
    expect(describePorts(rule.ports)).toBe('9100, 9200-9201');
  });

  it('refuses what is not a port or a range of them, naming the entry', () => {
    for (const bad of [0, 70000, '9109-9100', 'all', '9100-']) {
      expect(() => gateway({ ports: [bad] }), String(bad)).toThrow(/gateway\.printers\.ports\.0: must be a port 1\.\.65535 or a range/);
    }
    expect(() => gateway({ ports: [] })).toThrow(/gateway\.printers\.ports/);
    expect(() => gateway({ ports: [9100.5] })).toThrow(/gateway\.printers\.ports\.0/);
  });
});
