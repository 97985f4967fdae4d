/**
 * The agent's record of each print job (`ba_print_jobs`), written in the job's transaction with
 * its idempotency record: a replay answers the same orderRef and never prints again.
 */
import type { PosContext } from './context.js';

export interface PrintJobRecord {
  kind: 'order' | 'test' | 'account';
  orderFolio?: string;
  isReprint: boolean;
  /** As sent: text as it came, a number as its decimal digits. */
  price?: string;
  paymentMethod?: string;
  results: unknown;
}

/** Records the job and returns its reference (the API's orderRef). */
export async function recordPrintJob(ctx: PosContext, job: PrintJobRecord): Promise<string> {
  const row = await ctx.db
    .insertInto('ba_print_jobs')
    .values({
      kind: job.kind,
      order_folio: job.orderFolio ?? null,
      is_reprint: job.isReprint,
      price: job.price ?? null,
      payment_method: job.paymentMethod ?? null,
      printed_at: ctx.now,
      results: JSON.stringify(job.results),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/** What the printers said, once a job printed after its write's commit (an account's ticket). */
export async function updatePrintJobResults(db: PosContext['db'], orderRef: string, results: unknown): Promise<void> {
  await db
    .updateTable('ba_print_jobs')
    .set({ results: JSON.stringify(results) })
    .where('id', '=', orderRef)
    .execute();
}

/** Drops records older than `before` (the scheduler keeps 90 days). */
export async function purgePrintJobs(ctx: Pick<PosContext, 'db'>, before: Date): Promise<number> {
  const r = await ctx.db.deleteFrom('ba_print_jobs').where('printed_at', '<', before).executeTakeFirst();
  return Number(r.numDeletedRows);
}
