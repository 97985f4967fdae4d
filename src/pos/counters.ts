/**
 * Counters Soft Restaurant allocates from `folios` (per series) under an exclusive lock held to
 * the end of the transaction, so two terminals (or a terminal and the agent) never get the same
 * number. On SQL Server the lock is TABLOCKX, as SR takes it (see db.ts).
 */
import { PosError } from '../protocol/errors.js';
import type { PosContext } from './context.js';
import { int, text } from './values.js';

type Counter = 'ultimaorden' | 'ultimofolio' | 'ultimofolioproduccion';

/**
 * The counter's next value, and with `spelled` the series as the branch spells it (the collation
 * may match another), read only for the new account that is written with it.
 */
async function next(ctx: PosContext, serie: string, counter: Counter, spelled = false): Promise<{ value: number; serie?: string | null }> {
  const row = await ctx.db
    .selectFrom('folios')
    .select(counter)
    .$if(spelled, (q) => q.select('serie'))
    .where('serie', '=', serie)
    .forUpdate()
    .executeTakeFirst();
  // SR's series are configured in SR; numbering one on the fly could hand out tickets SR hands out again.
  if (!row) throw new PosError('series_not_found', 'The branch has no folio series (folios) by the name in serie.', { field: 'serie' });
  const value = (int(row[counter]) ?? 0) + 1;
  await ctx.db
    .updateTable('folios')
    .set({ [counter]: value })
    .where('serie', '=', serie)
    .execute();
  return { value, serie: row.serie };
}

/**
 * The order number shown in the kitchen (`tempcheques.orden`), reset when a shift closes, and
 * the series as the branch spells it, which a new account is written with.
 */
export async function nextOrden(ctx: PosContext, serie: string): Promise<{ orden: number; serie: string }> {
  const { value, serie: spelled } = await next(ctx, serie, 'ultimaorden', true);
  return { orden: value, serie: text(spelled) ?? serie };
}

/** The visible ticket number a printed account gets (`numcheque`). */
export async function nextNumcheque(ctx: PosContext, serie: string): Promise<number> {
  return (await next(ctx, serie, 'ultimofolio')).value;
}

/** The kitchen production number of the lines sent together (`tempcheqdet.folioproduccion`, order-lifecycle rows 206, 221-222). */
export async function nextFolioProduccion(ctx: PosContext, serie: string): Promise<number> {
  return (await next(ctx, serie, 'ultimofolioproduccion')).value;
}
