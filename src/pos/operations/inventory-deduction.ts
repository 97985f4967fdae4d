/**
 * The stock a closed shift consumed, deducted as Soft Restaurant deducts it right after its own
 * close (sr-traces/shift-close-flow.tsv rows 127-133, 229-242), inside the close's transaction:
 * queued in `inventariopendiente`, then applied to `movsinv` and taken off the queue, between
 * SR's two audit entries. Nothing of it when the branch turns deduction off
 * (`configuracion.nodescargarinventario`, row 129).
 */
import { sql } from 'kysely';
import { logEvent } from '../audit.js';
import { insertRows } from '../bulk-insert.js';
import type { PosContext } from '../context.js';
import type { Archived, ClosingShift } from './shift-archive.js';

const RECIPE_TABLES = ['inventariopendiente', 'costos', 'insumos', 'insumosdetalle', 'recetasalmacenes'] as const;

/**
 * Queues the recipe of every product the shift sold, as SR does (rows 127-133): an
 * `inventariopendiente` row per supply and warehouse, concept SPV, minus the recipe quantity
 * times the quantity sold, at the supply's average cost, in the warehouse the recipe names for
 * the account's area. Cancelled accounts sold nothing; supplies that are not inventoried, and
 * recipes without a warehouse, move no stock (SR drops such rows, row 234).
 *
 * The lines are summed by product, company and area first, as SR reads them (one recipe per
 * product: rows 131-132), so the recipe tables are joined once per product rather than once per
 * line. The sum is widened so that multiplying it by the recipe quantity keeps every decimal of
 * both on SQL Server (numeric(24,6) × numeric(12,4) stays within 38 digits), as the product of
 * each line did.
 */
async function queueDeduction(ctx: PosContext, idTurno: number, archived: Archived): Promise<void> {
  if (RECIPE_TABLES.some((t) => !ctx.schema.hasTable(t))) return;
  const sold = ctx.db
    .selectFrom('cheqdet as d')
    .innerJoin('cheques as c', 'c.folio', 'd.foliodet')
    .select((eb) => ['d.idproducto', 'c.idempresa', 'c.idarearestaurant', eb.cast<string>(eb.fn.sum('d.cantidad'), 'decimal(24, 6)').as('cantidad')])
    .where('c.folio', '>', archived.folioAbove)
    .where((eb) => eb.or([eb('c.cancelado', '=', false), eb('c.cancelado', 'is', null)]))
    .groupBy(['d.idproducto', 'c.idempresa', 'c.idarearestaurant'])
    .as('s');
  await ctx.db
    .insertInto('inventariopendiente')
    .columns(['fecha', 'idconcepto', 'idinsumo', 'costo', 'cantidad', 'idalmacen', 'idturno'])
    .expression(
      ctx.db
        .selectFrom(sold)
        .innerJoin('costos as co', (j) => j.onRef('co.idproducto', '=', 's.idproducto').onRef('co.idempresa', '=', 's.idempresa'))
        .innerJoin('insumos as i', 'i.idinsumo', 'co.idinsumo')
        .innerJoin('insumosdetalle as idt', (j) =>
          j.onRef('idt.idinsumo', '=', 'co.idinsumo').onRef('idt.idempresa', '=', 's.idempresa').on('idt.inventariable', '=', 1),
        )
        .innerJoin('recetasalmacenes as ra', (j) =>
          j
            .onRef('ra.idproducto', '=', 's.idproducto')
            .onRef('ra.idinsumo', '=', 'co.idinsumo')
            .onRef('ra.idempresa', '=', 's.idempresa')
            .onRef('ra.idarearestaurant', '=', 's.idarearestaurant'),
        )
        .select((eb) => [
          eb.cast<Date>(eb.val(ctx.now), 'timestamp').as('fecha'),
          eb.cast<string>(eb.val('SPV'), 'varchar(5)').as('idconcepto'),
          'co.idinsumo',
          eb.fn.max('idt.costopromedio').as('costo'),
          sql<string>`-sum(${eb.ref('s.cantidad')} * ${eb.ref('co.cantidad')})`.as('cantidad'),
          'ra.idalmacen',
          eb.cast<number>(eb.val(idTurno), 'bigint').as('idturno'),
        ])
        .where('ra.idalmacen', 'is not', null)
        .where('ra.idalmacen', '!=', '')
        .groupBy(['co.idinsumo', 'ra.idalmacen']),
    )
    .execute();
}

/** Pending rows per statement: three parameters each in the delete, under SQL Server's 2,100. */
const ROWS_PER_STATEMENT = 500;

/**
 * Applies what is pending for the company's warehouses, as SR does (rows 232-237): rows without
 * a warehouse are dropped (234); every row SR's read finds (232: a supply that exists, a
 * warehouse of the company) becomes a stock movement in `movsinv` with its own date, concept,
 * cost, quantity, warehouse and shift (236) and leaves the queue (237). Whatever shift queued it:
 * SR applies the whole queue. The rows are locked as they are read, and a row is deleted by SR's
 * own key (shift, supply, warehouse), so a row applied here is never applied twice by us.
 */
async function applyPending(ctx: PosContext, idEmpresa: string): Promise<void> {
  if (!ctx.schema.hasTable('movsinv') || !ctx.schema.hasTable('almacen') || !ctx.schema.hasTable('inventariopendiente')) return;
  await ctx.db.deleteFrom('inventariopendiente').where('idalmacen', '=', '').execute();
  const pending = await ctx.db
    .selectFrom('inventariopendiente as ip')
    .innerJoin('insumos as i', 'i.idinsumo', 'ip.idinsumo')
    .innerJoin('almacen as a', 'a.idalmacen', 'ip.idalmacen')
    .select(['ip.fecha', 'ip.idconcepto', 'ip.idinsumo', 'ip.costo', 'ip.cantidad', 'ip.idalmacen', 'ip.idturno'])
    .where('a.idempresa', '=', idEmpresa)
    .orderBy('ip.idturno')
    .orderBy('ip.idalmacen')
    .orderBy('ip.idinsumo')
    .forUpdate('ip')
    .execute();
  await insertRows(
    ctx.db,
    'movsinv',
    pending.map((p) => ctx.schema.completeRow('movsinv', { ...p })),
  );
  for (let i = 0; i < pending.length; i += ROWS_PER_STATEMENT) {
    const chunk = pending.slice(i, i + ROWS_PER_STATEMENT);
    await ctx.db
      .deleteFrom('inventariopendiente')
      .where((eb) =>
        eb.or(
          chunk.map((p) =>
            eb.and([
              p.idturno === null ? eb('idturno', 'is', null) : eb('idturno', '=', p.idturno),
              p.idinsumo === null ? eb('idinsumo', 'is', null) : eb('idinsumo', '=', p.idinsumo),
              eb('idalmacen', '=', p.idalmacen!),
            ]),
          ),
        ),
      )
      .execute();
  }
}

/**
 * Deducts the stock of the accounts the close archived: queue (127-133), SR's entry before it applies (229), apply
 * (232-237), SR's entry after (242), both with SR's user and station. Finished elaborations
 * (`insumoselaboracion`, rows 253-254) are left to SR: what it writes for them is not in the traces.
 */
export async function deductInventory(ctx: PosContext, shift: ClosingShift, archived: Archived, by: { usuario: string; estacion: string }): Promise<void> {
  await queueDeduction(ctx, shift.idTurno, archived);
  const entry = (evento: string) =>
    logEvent(ctx, { usuario: by.usuario, evento, valores: `Turno: ${shift.idTurno}`, estacion: by.estacion, idempresa: shift.idEmpresa });
  await entry('Aplicando Insumos pendientes por descargar');
  await applyPending(ctx, shift.idEmpresa);
  await entry('Aplicando insumos pendientes por descargar');
}
