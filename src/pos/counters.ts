/**
 * Counters Soft Restaurant allocates from `folios` (per series) under an exclusive lock held to
 * the end of the transaction, so two terminals (or a terminal and the agent) never get the same
 * number. On SQL Server the lock is TABLOCKX, as SR takes it (see db.ts).
 */
import { PosError } from '../protocol/errors.js';
import type { PosContext } from './context.js';
import { int } from './values.js';

type Counter = 'ultimaorden' | 'ultimofolio' | 'ultimofolioproduccion';

async function next(ctx: PosContext, serie: string, counter: Counter): Promise<number> {
  const row = await ctx.db.selectFrom('folios').select(counter).where('serie', '=', serie).forUpdate().executeTakeFirst();
  // SR's series are configured in SR; numbering one on the fly could hand out tickets SR hands out again.
  if (!row) throw new PosError('series_not_found', 'The branch has no folio series (folios) by the name in serie.', { field: 'serie' });
  const value = (int(row[counter]) ?? 0) + 1;
  await ctx.db
    .updateTable('folios')
    .set({ [counter]: value })
    .where('serie', '=', serie)
    .execute();
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

/** The kitchen production number of the lines sent together (`tempcheqdet.folioproduccion`, order-lifecycle rows 206, 221-222). */
export function nextFolioProduccion(ctx: PosContext, serie: string): Promise<number> {
  return next(ctx, serie, 'ultimofolioproduccion');
}
