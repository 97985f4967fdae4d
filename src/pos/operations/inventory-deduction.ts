/**
 * The stock a closed shift consumed, queued as Soft Restaurant queues it after its close
 * (sr-traces/shift-close-flow.tsv rows 127-133); part of the close's transaction.
 */
import { sql } from 'kysely';
import type { PosContext } from '../context.js';

const INVENTORY_TABLES = ['inventariopendiente', 'costos', 'insumos', 'insumosdetalle', 'recetasalmacenes'] as const;

/**
 * Queues the recipe of every product the shift sold for deduction from stock, as SR does after
 * its close (rows 127-133): an `inventariopendiente` row per supply and warehouse, concept SPV,
 * minus the recipe quantity times the quantity sold, at the supply's average cost, in the
 * warehouse the recipe names for the account's area. SR applies these rows to stock itself
 * (rows 232-237). Cancelled accounts sold nothing; supplies that are not inventoried, and
 * recipes without a warehouse, move no stock (SR drops such rows, row 234).
 */
export async function queueInventoryDeduction(ctx: PosContext, idTurno: number): Promise<number> {
  if (INVENTORY_TABLES.some((t) => !ctx.schema.hasTable(t))) return 0;
  const result = await ctx.db
    .insertInto('inventariopendiente')
    .columns(['fecha', 'idconcepto', 'idinsumo', 'costo', 'cantidad', 'idalmacen', 'idturno'])
    .expression(
      ctx.db
        .selectFrom('cheqdet as d')
        .innerJoin('cheques as c', 'c.folio', 'd.foliodet')
        .innerJoin('costos as co', (j) => j.onRef('co.idproducto', '=', 'd.idproducto').onRef('co.idempresa', '=', 'c.idempresa'))
        .innerJoin('insumos as i', 'i.idinsumo', 'co.idinsumo')
        .innerJoin('insumosdetalle as idt', (j) =>
          j.onRef('idt.idinsumo', '=', 'co.idinsumo').onRef('idt.idempresa', '=', 'c.idempresa').on('idt.inventariable', '=', 1),
        )
        .innerJoin('recetasalmacenes as ra', (j) =>
          j
            .onRef('ra.idproducto', '=', 'd.idproducto')
            .onRef('ra.idinsumo', '=', 'co.idinsumo')
            .onRef('ra.idempresa', '=', 'c.idempresa')
            .onRef('ra.idarearestaurant', '=', 'c.idarearestaurant'),
        )
        .select((eb) => [
          eb.cast<Date>(eb.val(ctx.now), 'timestamp').as('fecha'),
          eb.cast<string>(eb.val('SPV'), 'varchar(5)').as('idconcepto'),
          'co.idinsumo',
          eb.fn.max('idt.costopromedio').as('costo'),
          sql<string>`-sum(${eb.ref('d.cantidad')} * ${eb.ref('co.cantidad')})`.as('cantidad'),
          'ra.idalmacen',
          eb.cast<number>(eb.val(idTurno), 'bigint').as('idturno'),
        ])
        .where('c.idturno', '=', idTurno)
        .where((eb) => eb.or([eb('c.cancelado', '=', false), eb('c.cancelado', 'is', null)]))
        .where('ra.idalmacen', 'is not', null)
        .where('ra.idalmacen', '!=', '')
        .groupBy(['co.idinsumo', 'ra.idalmacen']),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
