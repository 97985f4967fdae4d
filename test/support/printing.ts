/**
 * What the printing end-to-end tests share: virtual printers that close after each test, a
 * printer registered at one, a print request, the order they print and its lines.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { expect } from 'vitest';
import { startVirtualPrinter, type VirtualPrinter, type VirtualPrinterOptions } from '../../src/printing/virtual-printer.js';
import { LOOPBACK } from './printer-ports.js';
import { API_KEY, BRANCH, type TestStack } from './stack.js';

/** Scheduling slack on top of a transport timeout. */
export const MARGIN_MS = 1500;
/** The transport's defaults (src/printing/transport.ts), which the agent uses. */
export const CONNECT_TIMEOUT_MS = 3000;
export const WRITE_TIMEOUT_MS = 5000;

/** Lets a job that should not come arrive if it were coming. */
export const settle = () => sleep(300);

export function order(grupos: unknown[], extra: Record<string, unknown> = {}) {
  return {
    orderFolio: 'A-77',
    businessName: 'Cafetería La Piña',
    businessSubtitle: 'Sucursal Centro',
    paymentMethod: 'Tarjeta de crédito',
    price: 1234.5,
    orderNote: '¡Urgente! Cliente alérgico a la nuez',
    grupos,
    ...extra,
  };
}

export const COFFEE_LINES = [
  { cantidad: 2, descripcion: 'Café con leche', modificadores: ['Leche de almendra'], comentario: '¿Sin azúcar?' },
  { cantidad: 1, descripcion: 'Jalapeño relleno de queso' },
];

export function lines(text: string): string[] {
  return text.split('\n');
}

/** The helpers bound to a test file's stack; `cleanup` runs in its afterEach. */
export function printingTools(stack: () => TestStack) {
  const cleanups: Array<() => Promise<void> | void> = [];

  async function virtualPrinter(opts: VirtualPrinterOptions = {}): Promise<VirtualPrinter> {
    const printer = await startVirtualPrinter({ host: LOOPBACK, ...opts });
    cleanups.push(() => printer.close());
    return printer;
  }

  async function registerAt(
    port: number,
    opts: { kind?: 'thermal' | 'label'; widthMm?: number; displayName?: string; licenseKey?: string; key?: string } = {},
  ): Promise<string> {
    const kind = opts.kind ?? 'thermal';
    const res = await stack().api('POST', '/print/printers', {
      key: opts.key ?? API_KEY,
      body: {
        licenseKey: opts.licenseKey ?? BRANCH,
        printerIp: LOOPBACK,
        printerPort: port,
        displayName: opts.displayName ?? 'Cocina caliente',
        kind,
        ...(kind === 'thermal' ? { widthMm: opts.widthMm ?? 80 } : {}),
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  }

  function print(kind: 'orden' | 'prueba', body: unknown, opts: { key?: string; idempotencyKey?: string | null; licenseKey?: string } = {}) {
    const headers: Record<string, string> = {};
    if (opts.idempotencyKey !== null) headers['idempotency-key'] = opts.idempotencyKey ?? randomUUID();
    return stack().api('POST', `/print/${opts.licenseKey ?? BRANCH}/${kind}`, { body, headers, key: opts.key });
  }

  /** The agent's record of a print job, once what the printers said is in it (written after the answer). */
  async function printJob(orderRef: string) {
    await stack().agents.get(BRANCH)!.runner.drained();
    return stack().pos.get(BRANCH)!.db.selectFrom('ba_print_jobs').selectAll().where('id', '=', orderRef).executeTakeFirstOrThrow();
  }

  /**
   * A printer that hangs: it accepts, answers the status queries before the job as a ready printer
   * does, and then reads nothing more. The transport (src/printing/transport.ts) takes silence
   * after a printer has answered once as a printer that stopped working: a timeout.
   */
  async function hungPrinter(): Promise<{ port: number; received: () => number; connections: () => number }> {
    const sockets = new Set<net.Socket>();
    let received = 0;
    let connections = 0;
    const server = net.createServer((socket) => {
      sockets.add(socket);
      connections++;
      socket.on('error', () => undefined);
      socket.once('data', (chunk: Buffer) => {
        received += chunk.length;
        socket.write(Buffer.from([0x12, 0x12, 0x12]));
        socket.pause();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    });
    return { port: (server.address() as net.AddressInfo).port, received: () => received, connections: () => connections };
  }

  async function cleanup(): Promise<void> {
    for (const step of cleanups.splice(0).reverse()) await step();
  }

  return { virtualPrinter, registerAt, print, printJob, hungPrinter, cleanup, cleanups };
}
