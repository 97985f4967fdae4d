import { type EscposOptions, renderKitchenTicket, renderTestTicket } from './escpos.js';
import type { PrinterQueue } from './printer-queue.js';
import type { KitchenTicket, PrinterTarget, TestTicket } from './ticket.js';
import type { PrintResult } from './transport.js';
import { renderLabels, renderTestLabel } from './tspl.js';

/** The printer's records say widthMm is required for thermal printers; 80 mm is the common one. */
const DEFAULT_WIDTH_MM = 80;

function escposOptions(target: PrinterTarget, timeZone: string | undefined): EscposOptions {
  return { widthMm: target.widthMm ?? DEFAULT_WIDTH_MM, model: target.model, timeZone };
}

function send(queue: PrinterQueue, target: PrinterTarget, bytes: Buffer): Promise<PrintResult> {
  return queue.send({ host: target.printerIp, port: target.printerPort }, bytes, {
    language: target.kind === 'label' ? 'tspl' : 'escpos',
  });
}

/** Renders for the printer's kind (ESC/POS ticket, or one TSPL label per unit) and prints it through the queue. */
export async function printKitchenTicket(
  queue: PrinterQueue,
  target: PrinterTarget,
  ticket: KitchenTicket,
  timeZone?: string,
): Promise<PrintResult> {
  const bytes =
    target.kind === 'label'
      ? renderLabels(ticket, { ...target, timeZone })
      : await renderKitchenTicket(ticket, escposOptions(target, timeZone));
  return send(queue, target, bytes);
}

export async function printTestTicket(
  queue: PrinterQueue,
  target: PrinterTarget,
  ticket: TestTicket,
  timeZone?: string,
): Promise<PrintResult> {
  const bytes =
    target.kind === 'label'
      ? renderTestLabel(ticket, { ...target, timeZone })
      : await renderTestTicket(ticket, escposOptions(target, timeZone));
  return send(queue, target, bytes);
}
