/**
 * When a table is taken. Soft Restaurant opens one account per table (order-lifecycle rows 87 and
 * 90 look for an open dine-in account on it first); the account holds the table until it is paid
 * or cancelled.
 */
import type { Expression } from 'kysely';
import type { PosContext } from './context.js';

/** `tempcheques.tipodeservicio` of an account served at a table. */
export const DINE_IN = 1;

/**
 * The accounts holding the table `mesa` names (a value, or a column of an outer query), as a
 * query on `tempcheques as tc`. Names compare without letter case or trailing spaces, as SR's
 * collation and SQL Server compare them (PostgreSQL would tell "T2 " from "T2").
 */
export function accountsHoldingTable(ctx: Pick<PosContext, 'db'>, mesa: Expression<string | null>) {
  return ctx.db
    .selectFrom('tempcheques as tc')
    .where('tc.tipodeservicio', '=', DINE_IN)
    .where((eb) => eb(eb.fn('upper', [eb.fn('rtrim', ['tc.mesa'])]), '=', eb.fn('upper', [eb.fn('rtrim', [mesa])])))
    .where((eb) => eb.or([eb('tc.pagado', '=', false), eb('tc.pagado', 'is', null)]))
    .where((eb) => eb.or([eb('tc.cancelado', '=', false), eb('tc.cancelado', 'is', null)]));
}
