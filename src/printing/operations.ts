/**
 * The agent's print operations (protocol/operations/printing.ts): render each ticket for its
 * printer (ESC/POS at the paper's width, or TSPL labels) and send it through the one printer
 * queue of the process, so jobs for the same printer never interleave, whichever job they come
 * from. They touch no Soft Restaurant table: the runner's transaction carries the job's record
 * (`ba_print_jobs`, whose id is the orderRef) and its idempotency record, which is what keeps a
 * job delivered twice from printing twice.
 */
import { Decimal } from 'decimal.js';
import * as ops from '../protocol/operations/printing.js';
import type { PrintOrderInput, PrintResultRecord } from '../protocol/operations/printing.js';
import type { PrinterTargetParams } from '../protocol/printers.js';
import { implement } from '../pos/operation.js';
import { recordPrintJob } from '../pos/print-jobs.js';
import { renderKitchenTicket, renderTestTicket } from './escpos.js';
import { PrinterQueue } from './printer-queue.js';
import type { KitchenTicket, TestTicket } from './ticket.js';
import type { PrintResult } from './transport.js';
import { renderLabels, renderTestLabel } from './tspl.js';

/** Every print of this process goes through here: one job at a time per printer. */
export const printerQueue = new PrinterQueue();

/** The ESC/POS width of a thermal printer; the registry never stores one without it. */
function widthOf(t: PrinterTargetParams): 58 | 80 {
  if (t.widthMm === null) throw new Error(`thermal printer ${t.printerIp}:${t.printerPort} has no widthMm`);
  return t.widthMm;
}

/** What the order stores of `price`: text as it came, a number as its decimal digits (no binary rounding). */
function priceAsSent(price: string | number | undefined): string | undefined {
  return price === undefined || typeof price === 'string' ? price : new Decimal(String(price)).toFixed();
}

type OrderFields = Pick<PrintOrderInput, 'orderFolio' | 'isReprint' | 'businessName' | 'businessSubtitle' | 'orderNote'>;
type GroupFields = Pick<PrintOrderInput['grupos'][number], 'titulo' | 'productos'>;

/** The ticket of one group of an order. Price and payment method are kept for receipts, never printed in the kitchen (seed). */
export function kitchenTicketOf(input: OrderFields, group: GroupFields, date: Date): KitchenTicket {
  return {
    businessName: input.businessName,
    businessSubtitle: input.businessSubtitle,
    title: group.titulo,
    orderFolio: String(input.orderFolio),
    isReprint: input.isReprint,
    date,
    orderNote: input.orderNote,
    lines: group.productos,
  };
}

export async function renderKitchenJob(target: PrinterTargetParams, ticket: KitchenTicket, copies = 1): Promise<Buffer> {
  const one = target.kind === 'label' ? renderLabels(ticket, target) : await renderKitchenTicket(ticket, { widthMm: widthOf(target) });
  return Buffer.concat(Array<Buffer>(copies).fill(one));
}

export async function renderTestJob(target: PrinterTargetParams, ticket: TestTicket): Promise<Buffer> {
  return target.kind === 'label' ? renderTestLabel(ticket, target) : renderTestTicket(ticket, { widthMm: widthOf(target) });
}

function send(target: PrinterTargetParams, bytes: Buffer): Promise<PrintResult> {
  return printerQueue.send({ host: target.printerIp, port: target.printerPort }, bytes, { language: target.kind === 'label' ? 'tspl' : 'escpos' });
}

function toResult(printerId: string, result: PrintResult): PrintResultRecord {
  return result.status === 'printed'
    ? { printerId, status: 'printed', bytes: result.bytes }
    : { printerId, status: 'failed', error: result.error, detail: result.detail };
}

function printerKey(t: PrinterTargetParams): string {
  return `${t.printerIp.toLowerCase()}:${t.printerPort}`;
}

/**
 * One ticket per group, each on its printer. Different printers print at the same time; the
 * groups of one printer go in request order, and once one of them fails the rest are not sent
 * (each would only wait out the same timeout again): they fail with the same error.
 */
export const printOrder = implement(ops.printOrder, async (ctx, input) => {
  const results: PrintResultRecord[] = Array.from({ length: input.grupos.length });
  const byPrinter = new Map<string, number[]>();
  input.grupos.forEach((group, i) => {
    const key = printerKey(input.printers[group.printerId]!);
    byPrinter.set(key, [...(byPrinter.get(key) ?? []), i]);
  });
  await Promise.all(
    [...byPrinter.values()].map(async (indexes) => {
      let failure: PrintResultRecord | undefined;
      for (const i of indexes) {
        const group = input.grupos[i]!;
        if (failure) {
          const detail = `not sent: an earlier ticket of this order failed on this printer (${failure.error})`;
          results[i] = { printerId: group.printerId, status: 'failed', error: failure.error, detail };
          continue;
        }
        const target = input.printers[group.printerId]!;
        const bytes = await renderKitchenJob(target, kitchenTicketOf(input, group, ctx.now), group.copias);
        results[i] = toResult(group.printerId, await send(target, bytes));
        if (results[i].status === 'failed') failure = results[i];
      }
    }),
  );
  const orderRef = await recordPrintJob(ctx, {
    kind: 'order',
    orderFolio: String(input.orderFolio),
    isReprint: input.isReprint,
    price: priceAsSent(input.price),
    paymentMethod: input.paymentMethod,
    results,
  });
  const failed = results.filter((r) => r.status === 'failed');
  if (failed.length > 0) ctx.log.warn({ orderRef, orderFolio: String(input.orderFolio), failed }, 'printers did not take the order');
  return { orderRef, results };
});

export const printTest = implement(ops.printTest, async (ctx, input) => {
  const target = input.printers[input.printerId]!;
  const ticket: TestTicket = { title: input.title, message: input.message, printerName: input.printerName ?? target.displayName, date: ctx.now };
  const result = toResult(input.printerId, await send(target, await renderTestJob(target, ticket)));
  const orderRef = await recordPrintJob(ctx, { kind: 'test', isReprint: false, results: [result] });
  if (result.status === 'failed') ctx.log.warn({ orderRef, result }, 'printer did not take the test page');
  return { orderRef, results: [result] };
});
