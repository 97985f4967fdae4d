/**
 * Reads of accounts that take more than one statement (a page and its count, headers and then
 * their lines and payments, the history and the temporary tables) run again when a shift close
 * committed while they ran. A close moves its shift's accounts from the temporary tables to
 * history in one transaction, and a read that met the tables on both sides of its commit would
 * list an account twice or not at all, or a header without its lines.
 *
 * Neither dialect gives plain reads one snapshot (SQL Server only with snapshot isolation, which
 * Soft Restaurant's databases do not turn on), so the number of closed shifts is read before
 * and after: a close sets its shift's `cierre` in the same transaction, and the count is read
 * after the read's last statement, so a read that saw anything of a close sees the count change.
 *
 * Soft Restaurant's own close is not one transaction: it commits the copy and `cierre` first, and
 * points the copied lines and payments at their new folios after (shift-close-flow rows 98-102).
 * A read wholly after its first commit sees no count change; `ownHistoryRow` (order-records.ts)
 * keeps such rows with the account they are waiting for.
 */
import type { OperationDef } from '../protocol/operation.js';
import { PosError } from '../protocol/errors.js';
import type { PosContext } from './context.js';
import { implement, type Implementation } from './operation.js';

/** Closes are minutes apart at the least: a third in one read means something else is wrong. */
const ATTEMPTS = 3;

async function closedShifts(ctx: PosContext): Promise<number> {
  const row = await ctx.db
    .selectFrom('turnos')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('cierre', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function readAcrossCloses<T>(ctx: PosContext, read: () => Promise<T>): Promise<T> {
  let before = await closedShifts(ctx);
  for (let attempt = 1; ; attempt++) {
    const result = await read();
    const after = await closedShifts(ctx);
    if (after === before) return result;
    if (attempt === ATTEMPTS) {
      throw new PosError('pos_busy', `Shifts closed while the accounts were read, ${ATTEMPTS} times in a row; retry shortly.`);
    }
    before = after;
  }
}

/** An operation that reads accounts, run with readAcrossCloses. */
export function implementAccountRead<D extends OperationDef>(def: D, run: Implementation<D>['run']): Implementation<D> {
  return implement(def, (ctx, input) => readAcrossCloses(ctx, () => run(ctx, input)));
}
