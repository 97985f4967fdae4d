import { afterEach, describe, expect, it } from 'vitest';
import { printKitchenTicket, printTestTicket } from '../../../src/printing/print-ticket.js';
import { PrinterQueue } from '../../../src/printing/printer-queue.js';
import { DEFAULT_LABEL_SETTINGS, type PrinterTarget } from '../../../src/printing/ticket.js';
import { type VirtualPrinter, startVirtualPrinter } from '../../../src/printing/virtual-printer.js';
import { TIME_ZONE, kitchenTicket, labelTicket, testTicket } from '../../unit/printing/fixtures.js';

const printers: VirtualPrinter[] = [];
afterEach(async () => {
  for (const printer of printers.splice(0)) await printer.close();
});

async function targetFor(kind: PrinterTarget['kind'], widthMm?: 58 | 80): Promise<[PrinterTarget, VirtualPrinter]> {
  const printer = await startVirtualPrinter();
  printers.push(printer);
  return [{ printerIp: printer.host, printerPort: printer.port, kind, widthMm, ...DEFAULT_LABEL_SETTINGS }, printer];
}

describe('printing a ticket on a registered printer', () => {
  it('sends an ESC/POS ticket of the printer width to a thermal printer', async () => {
    const [target, printer] = await targetFor('thermal', 58);
    const result = await printKitchenTicket(new PrinterQueue(), target, kitchenTicket, TIME_ZONE);
    expect(result.status).toBe('printed');
    const job = await printer.waitForJob();
    expect(job.kind).toBe('escpos');
    expect(job.text.split('\n')).toContain('-'.repeat(32));
    expect(job.text).toContain('Jalapeño relleno de queso');
  });

  it('sends one TSPL label per unit to a label printer', async () => {
    const [target, printer] = await targetFor('label');
    const result = await printKitchenTicket(new PrinterQueue(), target, labelTicket, TIME_ZONE);
    expect(result.status).toBe('printed');
    const job = await printer.waitForJob();
    expect(job.kind).toBe('tspl');
    expect(job.text.split('\n\n')).toHaveLength(4);
  });

  it('prints the test ticket in the language of each kind', async () => {
    const queue = new PrinterQueue();
    const [thermal, thermalPrinter] = await targetFor('thermal', 80);
    const [label, labelPrinter] = await targetFor('label');
    const results = await Promise.all([
      printTestTicket(queue, thermal, testTicket, TIME_ZONE),
      printTestTicket(queue, label, testTicket, TIME_ZONE),
    ]);
    expect(results.map((r) => r.status)).toEqual(['printed', 'printed']);
    const [thermalJob, labelJob] = await Promise.all([thermalPrinter.waitForJob(), labelPrinter.waitForJob()]);
    expect(thermalJob.kind).toBe('escpos');
    expect(thermalJob.text).toContain('Acentos: áéíóú ÁÉÍÓÚ ñÑ üÜ ¿? ¡! €');
    expect(labelJob.kind).toBe('tspl');
    expect(labelJob.text).toContain('IMPRESORA OK - IGNORAR');
  });
});
