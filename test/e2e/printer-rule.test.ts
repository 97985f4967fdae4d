/**
 * Printers only where printers are: with the rule as shipped (ports 9100-9109 and 6101, private
 * addresses), the gateway refuses to register or move a printer anywhere else with a 400 naming
 * the rule, and the agent refuses to print there before it opens a socket, whatever its registry
 * says (a record written behind the gateway's back stands for a compromised gateway).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRINTER_RULE } from '../../src/protocol/printer-rule.js';
import { printerCreate } from '../../src/protocol/printers.js';
import { LOOPBACK } from '../support/printer-ports.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let listener: net.Server;
let connections = 0;
beforeAll(async () => {
  stack = await startTestStack({ gateway: { printers: DEFAULT_PRINTER_RULE }, agent: { printers: DEFAULT_PRINTER_RULE } });
  // A service on the branch server that is not a printer: it counts whoever connects.
  listener = net.createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, LOOPBACK, resolve));
});
afterAll(async () => {
  await new Promise((resolve) => listener?.close(resolve));
  await stack?.stop();
});

const printer = { licenseKey: BRANCH, displayName: 'Cocina', kind: 'thermal', widthMm: 80 };
const PORT_RULE = 'must be one of the printer ports allowed (9100-9109, 6101; printers.ports in the config)';
const ADDRESS_RULE = "must be an address in the branch's private networks (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16 or fc00::/7)";

describe('the gateway', () => {
  it.each([
    ['10.0.0.5', 9100],
    ['172.20.1.9', 9109],
    ['192.168.1.50', 6101],
    ['fd00::50', 9100],
    ['impresora-cocina', 9100],
  ])('registers a printer at %s port %i', async (printerIp, printerPort) => {
    const res = await stack.api('POST', '/print/printers', { body: { ...printer, printerIp, printerPort } });
    expect(res.status, res.text).toBe(201);
  });

  it.each([
    ['192.168.1.50', 9, [{ path: 'body.printerPort', message: PORT_RULE }]],
    ['10.0.0.5', 22, [{ path: 'body.printerPort', message: PORT_RULE }]],
    ['8.8.8.8', 9100, [{ path: 'body.printerIp', message: ADDRESS_RULE }]],
    [
      '169.254.169.254',
      80,
      [
        { path: 'body.printerIp', message: ADDRESS_RULE },
        { path: 'body.printerPort', message: PORT_RULE },
      ],
    ],
    ['127.0.0.1', 9100, [{ path: 'body.printerIp', message: ADDRESS_RULE }]],
    ['fe80::1', 9100, [{ path: 'body.printerIp', message: ADDRESS_RULE }]],
  ])('refuses %s port %i with a 400 naming the rule, storing nothing', async (printerIp, printerPort, errors) => {
    const before = (await stack.api('GET', '/print/printers')).body.totalResults as number;
    const res = await stack.api('POST', '/print/printers', { body: { ...printer, printerIp, printerPort } });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors });
    expect((await stack.api('GET', '/print/printers')).body.totalResults).toBe(before);
  });

  it('refuses to move a printer outside the rule, and keeps it as it was', async () => {
    const created = await stack.api('POST', '/print/printers', { body: { ...printer, printerIp: '10.0.0.6' } });
    expect(created.status).toBe(201);
    for (const body of [{ printerPort: 9 }, { printerIp: '203.0.113.5' }]) {
      const res = await stack.api('PATCH', `/print/printers/${created.body.id}`, { body });
      expect(res.status, res.text).toBe(400);
    }
    expect((await stack.api('GET', `/print/printers/${created.body.id}`)).body).toEqual(created.body);
  });
});

describe('the agent', () => {
  /** A printer the registry holds without the gateway's check, as a compromised gateway would send it. */
  async function registeredBehindTheGateway(printerIp: string, printerPort: number): Promise<string> {
    const owner = (await stack.store.branchOwner(BRANCH))!;
    return (await stack.store.printers.create(owner, printerCreate.parse({ ...printer, printerIp, printerPort }))).id;
  }

  it.each([
    ['a service on a port no printer uses', () => LOOPBACK, () => (listener.address() as net.AddressInfo).port],
    ['a printer port on loopback', () => LOOPBACK, () => 9100],
    ['a host name that resolves to loopback', () => 'localhost', () => 9100],
  ])('does not connect to %s: the job fails not_allowed, naming the setting', async (_what, host, port) => {
    const printerId = await registeredBehindTheGateway(host(), port());
    const res = await stack.api('POST', `/print/${BRANCH}/prueba`, { body: { printerId } });
    expect(res.status, res.text).toBe(502);
    expect(res.body).toMatchObject({ code: 'printer_failed', results: [{ printerId, status: 'failed', error: 'not_allowed' }] });
    expect(res.body.results[0].detail).toMatch(/printers setting/);
    expect(connections).toBe(0);
  });
});
