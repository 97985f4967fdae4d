/**
 * Counters Soft Restaurant allocates from `folios` (per series) under an exclusive lock held to
 * the end of the transaction, so two terminals (or a terminal and the agent) never get the same
 * number. On SQL Server the lock is TABLOCKX, as SR takes it (see db.ts).
 */
import type { PosContext } from './context.js';
import { int } from './values.js';

type Counter = 'ultimaorden' | 'ultimofolio';

async function next(ctx: PosContext, serie: string, counter: Counter): Promise<number> {
  const row = await ctx.db.selectFrom('folios').select(counter).where('serie', '=', serie).forUpdate().executeTakeFirst();
  if (!row) {
    // A series the branch never used: SR creates its counters row on first use.
    await ctx.db.insertInto('folios').values(ctx.schema.completeRow('folios', { serie, ultimofolio: 0, ultimaorden: 0, ultimofolioproduccion: 0, [counter]: 1 })).execute();
    return 1;
  }
  const value = (int(row[counter]) ?? 0) + 1;
  await ctx.db.updateTable('folios').set({ [counter]: value }).where('serie', '=', serie).execute();
  return value;
}

/** The order number shown in the kitchen (`tempcheques.orden`); reset when a shift closes. */
export function nextOrden(ctx: PosContext, serie: string): Promise<number> {
  return next(ctx, serie, 'ultimaorden');
}

/** The visible ticket number a printed account gets (`numcheque`). */
export function nextNumcheque(ctx: PosContext, serie: string): Promise<number> {
  return next(ctx, serie, 'ultimofolio');
}
