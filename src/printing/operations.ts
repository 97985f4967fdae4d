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

/**
 * What the client reads about a failed printer: the stable code and a sentence for people. What
 * the socket said (`connect ECONNREFUSED 10.0.0.9:9100`) is for the agent's log only.
 */
const FAILURE_SENTENCES: Record<PrintResultRecord['error'] & string, string> = {
  unreachable: 'The printer did not answer: check that it is on and connected to the network.',
  refused: 'The printer refused the connection: check its address and port in the registry.',
  timeout: 'The printer stopped answering while it was printing.',
  paper_out: 'The printer is out of paper.',
  cover_open: 'The printer cover is open.',
  offline: 'The printer dropped the connection before the job was complete.',
};

function toResult(printerId: string, result: PrintResult): PrintResultRecord {
  return result.status === 'printed'
    ? { printerId, status: 'printed', bytes: result.bytes }
    : { printerId, status: 'failed', error: result.error, detail: FAILURE_SENTENCES[result.error] };
}

/** Logs what the printers said when a job failed on them, for the branch's technician. */
function logFailures(ctx: { log: { warn: (obj: object, msg: string) => void } }, what: string, failures: ReadonlyArray<{ printerId: string; result: PrintResult }>): void {
  const failed = failures.filter((f) => f.result.status === 'failed');
  if (failed.length > 0) ctx.log.warn({ failed: failed.map((f) => ({ printerId: f.printerId, ...f.result })) }, what);
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
  const sentResults: Array<{ printerId: string; result: PrintResult }> = [];
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
          const detail = `Not sent: an earlier ticket of this order failed on this printer. ${FAILURE_SENTENCES[failure.error!]}`;
          results[i] = { printerId: group.printerId, status: 'failed', error: failure.error, detail };
          continue;
        }
        const target = input.printers[group.printerId]!;
        const bytes = await renderKitchenJob(target, kitchenTicketOf(input, group, ctx.now), group.copias);
        const sent = await send(target, bytes);
        sentResults.push({ printerId: group.printerId, result: sent });
        results[i] = toResult(group.printerId, sent);
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
  logFailures(ctx, `printers did not take order ${String(input.orderFolio)} (orderRef ${orderRef})`, sentResults);
  return { orderRef, results };
});

export const printTest = implement(ops.printTest, async (ctx, input) => {
  const target = input.printers[input.printerId]!;
  const ticket: TestTicket = { title: input.title, message: input.message, printerName: input.printerName ?? target.displayName, date: ctx.now };
  const sent = await send(target, await renderTestJob(target, ticket));
  const result = toResult(input.printerId, sent);
  const orderRef = await recordPrintJob(ctx, { kind: 'test', isReprint: false, results: [result] });
  logFailures(ctx, `printer did not take the test page (orderRef ${orderRef})`, [{ printerId: input.printerId, result: sent }]);
  return { orderRef, results: [result] };
});
