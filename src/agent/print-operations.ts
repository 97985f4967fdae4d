/**
 * The agent's print operations (protocol/operations/printing.ts): printing/dispatch.ts prints,
 * and the runner's transaction carries the job's record (`ba_print_jobs`, whose id is the
 * orderRef) with its idempotency record, which is what keeps a job delivered twice from printing
 * twice. They touch no Soft Restaurant table, except the account's print that a customer's
 * ticket comes with (pos/operations/account-print.ts).
 *
 * The printing stack (renderers, code pages, transport) loads on the first print: many branches
 * never print through the agent, and it would otherwise sit in every agent's memory.
 */
import { Decimal } from 'decimal.js';
import { implement } from '../pos/operation.js';
import { printAccountInPos } from '../pos/operations/account-print.js';
import { recordPrintJob, updatePrintJobResults } from '../pos/print-jobs.js';
import type { Delivery } from '../printing/dispatch.js';
import * as ops from '../protocol/operations/printing.js';
import type { PrintResultRecord } from '../protocol/operations/printing.js';
import * as settlement from '../protocol/operations/settlement.js';
import { DEFAULT_PRINTER_RULE } from '../protocol/printer-rule.js';

/** What the order stores of `price`: text as it came, a number as its decimal digits (no binary rounding). */
function priceAsSent(price: string | number | undefined): string | undefined {
  return price === undefined || typeof price === 'string' ? price : new Decimal(String(price)).toFixed();
}

/** Logs what the printers said when a job failed on them, for the branch's technician. */
function logFailures(ctx: { log: { warn: (obj: object, msg: string) => void } }, what: string, deliveries: readonly Delivery[]): void {
  const failed = deliveries.filter((d) => d.result.status === 'failed');
  if (failed.length > 0) ctx.log.warn({ failed: failed.map((d) => ({ printerId: d.printerId, ...d.result })) }, what);
}

// Loaded once: each import() call, even of a module already loaded, goes back through the module
// loader (15 µs in a release; 1.4 ms of every print under tsx, whose hooks run on their own thread).
let printingModule: Promise<typeof import('../printing/dispatch.js')> | undefined;
const printing = () => (printingModule ??= import('../printing/dispatch.js'));

export const printOrder = implement(ops.printOrder, async (ctx, input) => {
  const { printOrderTickets } = await printing();
  const { results, deliveries } = await printOrderTickets(input, ctx.now, ctx.printerRule ?? DEFAULT_PRINTER_RULE, ctx.deadline);
  const orderRef = await recordPrintJob(ctx, {
    kind: 'order',
    orderFolio: String(input.orderFolio),
    isReprint: input.isReprint,
    price: priceAsSent(input.price),
    paymentMethod: input.paymentMethod,
    results,
  });
  logFailures(ctx, `printers did not take order ${String(input.orderFolio)} (orderRef ${orderRef})`, deliveries);
  return { orderRef, results };
});

export const printTest = implement(ops.printTest, async (ctx, input) => {
  const { printTestPage } = await printing();
  const { result, delivery } = await printTestPage(input, ctx.now, ctx.printerRule ?? DEFAULT_PRINTER_RULE, ctx.deadline);
  const orderRef = await recordPrintJob(ctx, { kind: 'test', isReprint: false, results: [result] });
  logFailures(ctx, `printer did not take the test page (orderRef ${orderRef})`, [delivery]);
  return { orderRef, results: [result] };
});

/**
 * Prints an account (pos/operations/account-print.ts) and, with a printerId, its customer's
 * ticket. The ticket goes to the printer only once the account's print has committed, so a
 * printer that fails cannot undo it; until the ticket is sent, the job's records say it was not
 * (`not_sent`), which is what a retry after a crash in between answers, without printing.
 */
export const printAccount = implement(settlement.printAccount, async (ctx, input) => {
  const { answer, ticket } = await printAccountInPos(ctx, input, input.printerId !== undefined);
  if (!ticket || input.printerId === undefined) return answer;
  const printerId = input.printerId;
  const target = input.printers![printerId]!;
  const notSent: PrintResultRecord = {
    printerId,
    status: 'failed',
    error: 'not_sent',
    detail: 'The agent stopped before it sent the ticket; the account is printed: print it again for the ticket.',
  };
  const orderRef = await recordPrintJob(ctx, { kind: 'account', orderFolio: String(answer.numcheque), isReprint: ticket.isReprint, results: [notSent] });
  ctx.outside!(async (db) => {
    const { printAccountTicket } = await printing();
    const { result, delivery } = await printAccountTicket(printerId, target, ticket, ctx.printerRule ?? DEFAULT_PRINTER_RULE, ctx.deadline);
    // What was printed is answered even if its record cannot be updated now.
    await updatePrintJobResults(db, orderRef, [result]).catch((error: unknown) =>
      ctx.log.warn({ err: error, orderRef }, 'could not record what the printer said'),
    );
    logFailures(ctx, `printer did not take the ticket of account ${answer.folio} (orderRef ${orderRef})`, [delivery]);
    return { ticket: { orderRef, results: [result] } };
  });
  return { ...answer, ticket: { orderRef, results: [notSent] } };
});
