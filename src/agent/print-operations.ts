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
import type { PosContext } from '../pos/context.js';
import { implement } from '../pos/operation.js';
import { printAccountInPos } from '../pos/operations/account-print.js';
import { recordPrintJob, updatePrintJobResults, type PrintJobRecord } from '../pos/print-jobs.js';
import type { Delivery } from '../printing/dispatch.js';
import * as ops from '../protocol/operations/printing.js';
import type { PrintResultRecord } from '../protocol/operations/printing.js';
import * as settlement from '../protocol/operations/settlement.js';
import { DEFAULT_PRINTER_RULE } from '../protocol/printer-rule.js';

/** What the order stores of `price`: text as it came, a number as its decimal digits (no binary rounding). */
function priceAsSent(price: string | number | undefined): string | undefined {
  return price === undefined || typeof price === 'string' ? price : new Decimal(String(price)).toFixed();
}

// Loaded once: each import() call, even of a module already loaded, goes back through the module
// loader (15 µs in a release; 1.4 ms of every print under tsx, whose hooks run on their own thread).
let printingModule: Promise<typeof import('../printing/dispatch.js')> | undefined;
const printing = () => (printingModule ??= import('../printing/dispatch.js'));

/** What a job's record says of a printer until the printer has answered. */
function interrupted(printerId: string): PrintResultRecord {
  return {
    printerId,
    status: 'failed',
    error: 'interrupted',
    detail: 'The agent stopped before this printer answered: whether it printed is unknown. Look at the printer, and print again if it did not.',
  };
}

interface Sent {
  results: PrintResultRecord[];
  deliveries: readonly Delivery[];
}

/**
 * Records a print job and sends it once the job's transaction has committed (the runner's outside
 * effect), then records what the printers said. Nothing goes to a printer from inside the
 * transaction: a transaction lost after the bytes went out (the agent killed, its connection
 * dropped) would take the key's record with it, and a retry would print again. Until the printers
 * answer, the records say `interrupted`, which is what a retry after a crash in between answers,
 * without printing.
 */
async function printAfterCommit(
  ctx: PosContext,
  job: Omit<PrintJobRecord, 'results'>,
  printerIds: readonly string[],
  send: () => Promise<Sent>,
  answer: (printed: { orderRef: string; results: PrintResultRecord[] }) => Record<string, unknown> = (printed) => printed,
): Promise<{ orderRef: string; results: PrintResultRecord[] }> {
  const results = printerIds.map(interrupted);
  const orderRef = await recordPrintJob(ctx, { ...job, results });
  ctx.outside!(async (db) => {
    const sent = await send();
    // What was printed is answered even if its record cannot be updated now.
    const recorded = updatePrintJobResults(db, orderRef, sent.results).catch((error: unknown) =>
      ctx.log.warn({ err: error, orderRef }, 'could not record what the printers said'),
    );
    const failed = sent.deliveries.filter((d) => d.result.status === 'failed');
    if (failed.length > 0)
      ctx.log.warn(
        { orderRef, kind: job.kind, orderFolio: job.orderFolio, failed: failed.map((d) => ({ printerId: d.printerId, ...d.result })) },
        'printers did not take a print job',
      );
    return { answer: answer({ orderRef, results: sent.results }), recorded };
  });
  return { orderRef, results };
}

export const printOrder = implement(ops.printOrder, (ctx, input) =>
  printAfterCommit(
    ctx,
    { kind: 'order', orderFolio: String(input.orderFolio), isReprint: input.isReprint, price: priceAsSent(input.price), paymentMethod: input.paymentMethod },
    input.grupos.map((g) => g.printerId),
    async () => (await printing()).printOrderTickets(input, ctx.now, ctx.printerRule ?? DEFAULT_PRINTER_RULE, ctx.deadline),
  ),
);

export const printTest = implement(ops.printTest, (ctx, input) =>
  printAfterCommit(ctx, { kind: 'test', isReprint: false }, [input.printerId], async () => {
    const { result, delivery } = await (await printing()).printTestPage(input, ctx.now, ctx.printerRule ?? DEFAULT_PRINTER_RULE, ctx.deadline);
    return { results: [result], deliveries: [delivery] };
  }),
);

/**
 * Prints an account (pos/operations/account-print.ts) and, with a printerId, its customer's
 * ticket. The ticket goes to the printer only once the account's print has committed, so a
 * printer that fails cannot undo it.
 */
export const printAccount = implement(settlement.printAccount, async (ctx, input) => {
  const { answer, ticket } = await printAccountInPos(ctx, input, input.printerId !== undefined);
  if (!ticket || input.printerId === undefined) return answer;
  const printerId = input.printerId;
  const target = input.printers![printerId]!;
  const recorded = await printAfterCommit(
    ctx,
    { kind: 'account', orderFolio: String(answer.numcheque), isReprint: ticket.isReprint },
    [printerId],
    async () => {
      const { result, delivery } = await (
        await printing()
      ).printAccountTicket(printerId, target, ticket, ctx.printerRule ?? DEFAULT_PRINTER_RULE, ctx.deadline);
      return { results: [result], deliveries: [delivery] };
    },
    (printed) => ({ ticket: printed }),
  );
  return { ...answer, ticket: recorded };
});
