/**
 * Renders each ticket for its printer (ESC/POS at the paper's width, or TSPL labels) and sends
 * it through the one printer queue of the process, so jobs for the same printer never
 * interleave, whichever job they come from. What the agent records of a print job, and the
 * operations the gateway calls, are in agent/print-operations.ts.
 */
import * as ops from '../protocol/operations/printing.js';
import type { PrintOrderInput, PrintResultRecord } from '../protocol/operations/printing.js';
import type { OpInput } from '../protocol/operation.js';
import type { PrinterRule } from '../protocol/printer-rule.js';
import type { PrinterTargetParams } from '../protocol/printers.js';
import { renderAccountTicket, renderKitchenTicket, renderTestTicket } from './escpos.js';
import { PrinterQueue } from './printer-queue.js';
import type { KitchenTicket, TestTicket } from './ticket.js';
import type { AccountTicket } from '../protocol/account-ticket.js';
import type { PrintError, PrintResult } from './transport.js';
import { renderLabels, renderTestLabel } from './tspl.js';

/** Every print of this process goes through here: one job at a time per printer. */
export const printerQueue = new PrinterQueue();

/** The ESC/POS width of a thermal printer; the registry never stores one without it. */
function widthOf(t: PrinterTargetParams): number {
  if (t.widthMm === null) throw new Error(`thermal printer ${t.printerIp}:${t.printerPort} has no widthMm`);
  return t.widthMm;
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
  const one = target.kind === 'label' ? renderLabels(ticket, target) : renderKitchenTicket(ticket, { widthMm: widthOf(target) });
  return Buffer.concat(Array<Buffer>(copies).fill(one));
}

export async function renderTestJob(target: PrinterTargetParams, ticket: TestTicket): Promise<Buffer> {
  return target.kind === 'label' ? renderTestLabel(ticket, target) : renderTestTicket(ticket, { widthMm: widthOf(target) });
}

function send(target: PrinterTargetParams, bytes: Buffer, rule: PrinterRule, notAfter?: number): Promise<PrintResult> {
  const opts = { language: target.kind === 'label' ? ('tspl' as const) : ('escpos' as const), rule };
  return printerQueue.send({ host: target.printerIp, port: target.printerPort }, bytes, opts, notAfter);
}

/**
 * What the client reads about a failed printer: the stable code and a sentence for people. What
 * the socket said (`connect ECONNREFUSED 10.0.0.9:9100`) is for the agent's log only.
 */
const FAILURE_SENTENCES: Record<PrintError, string> = {
  unreachable: 'The printer did not answer: check that it is on and connected to the network.',
  refused: 'The printer refused the connection: check its address and port in the registry.',
  timeout: 'The printer stopped answering while it was printing.',
  paper_out: 'The printer is out of paper.',
  cover_open: 'The printer cover is open.',
  offline: 'The printer dropped the connection before the job was complete.',
  not_allowed: "The agent does not print to this printer's address or port (its printers setting): check them in the registry.",
  not_sent: 'Not sent: the printer was still busy with earlier jobs when this job ran out of time.',
};

function toResult(printerId: string, result: PrintResult): PrintResultRecord {
  return result.status === 'printed'
    ? { printerId, status: 'printed', bytes: result.bytes }
    : { printerId, status: 'failed', error: result.error, detail: FAILURE_SENTENCES[result.error] };
}

function printerKey(t: PrinterTargetParams): string {
  return `${t.printerIp.toLowerCase()}:${t.printerPort}`;
}

/** What one printer said about one ticket: the client's record and the transport's own result (for the log). */
export interface Delivery {
  printerId: string;
  result: PrintResult;
}

/**
 * One ticket per group, each on its printer. Different printers print at the same time; the
 * groups of one printer go in request order, and once one of them fails the rest are not sent
 * (each would only wait out the same timeout again): they fail with the same error.
 */
export async function printOrderTickets(
  input: OpInput<typeof ops.printOrder>,
  now: Date,
  rule: PrinterRule,
  notAfter?: number,
): Promise<{ results: PrintResultRecord[]; deliveries: Delivery[] }> {
  const results: PrintResultRecord[] = Array.from({ length: input.grupos.length });
  const deliveries: Delivery[] = [];
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
          const detail = `Not sent: an earlier ticket of this order failed on this printer. ${FAILURE_SENTENCES[failure.error as PrintError]}`;
          results[i] = { printerId: group.printerId, status: 'failed', error: failure.error, detail };
          continue;
        }
        const target = input.printers[group.printerId]!;
        const bytes = await renderKitchenJob(target, kitchenTicketOf(input, group, now), group.copias);
        const sent = await send(target, bytes, rule, notAfter);
        deliveries.push({ printerId: group.printerId, result: sent });
        results[i] = toResult(group.printerId, sent);
        if (results[i].status === 'failed') failure = results[i];
      }
    }),
  );
  return { results, deliveries };
}

export async function printTestPage(
  input: OpInput<typeof ops.printTest>,
  now: Date,
  rule: PrinterRule,
  notAfter?: number,
): Promise<{ result: PrintResultRecord; delivery: Delivery }> {
  const target = input.printers[input.printerId]!;
  const ticket: TestTicket = { title: input.title, message: input.message, printerName: input.printerName ?? target.displayName, date: now };
  const sent = await send(target, await renderTestJob(target, ticket), rule, notAfter);
  return { result: toResult(input.printerId, sent), delivery: { printerId: input.printerId, result: sent } };
}

/** The customer's ticket of an account, on a thermal printer (a label printer takes no receipt). */
export async function printAccountTicket(
  printerId: string,
  target: PrinterTargetParams,
  ticket: AccountTicket,
  rule: PrinterRule,
  notAfter?: number,
): Promise<{ result: PrintResultRecord; delivery: Delivery }> {
  const sent = await send(target, renderAccountTicket(ticket, { widthMm: widthOf(target) }), rule, notAfter);
  return { result: toResult(printerId, sent), delivery: { printerId, result: sent } };
}
