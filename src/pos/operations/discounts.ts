/**
 * General and per-line discounts. A request becomes a percentage (docs/totals.md), which REPLACES
 * the one stored (0 removes it); the totals are then recomputed from the lines. As the seed
 * asks, a general discount marks the account for Soft Restaurant to process the discount
 * (`tempcheques.procesar_descuento_sr`), and a per-line discount leaves an audit entry.
 */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/orders.js';
import { logEvent, SERVICE_NAMES } from '../audit.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import { readSettings } from '../settings.js';
import { Dec, generalDiscountPercent, lineDiscountPercent, type PercentResult } from '../totals.js';
import { dec, flag } from '../values.js';
import { accountLines, lockOpenAccount, requireLines, requireUser, saveTotals } from './account.js';

interface DiscountType {
  id: string;
  /** The type's percentage, which is a ceiling when `maximoActivado`. */
  ceiling: InstanceType<typeof Dec> | undefined;
}

/** The discount type a request names, enforcing the branch's forced-type rule. */
async function discountType(ctx: PosContext, id: string | undefined, forced: boolean, applying: boolean): Promise<DiscountType | undefined> {
  if (id === undefined || id === '') {
    if (forced && applying) throw new PosError('discount_type_required', 'This branch requires a discount type (idTipoDescuento) for every discount.');
    return undefined;
  }
  const hasMaximum = ctx.schema.has('tipodescuento', 'activar_maximo_descuento');
  const row = await ctx.db
    .selectFrom('tipodescuento')
    .select(['idtipodescuento', 'descuento'])
    .$if(hasMaximum, (q) => q.select('activar_maximo_descuento'))
    .where('idtipodescuento', '=', id)
    .executeTakeFirst();
  if (!row) throw new PosError('discount_type_not_found', 'The branch has no discount type with the id in idTipoDescuento.', { field: 'idTipoDescuento' });
  const limited = flag((row as { activar_maximo_descuento?: boolean }).activar_maximo_descuento);
  return { id: row.idtipodescuento, ceiling: limited ? dec(row.descuento) : undefined };
}

function percentOrFail(result: PercentResult, what: string): InstanceType<typeof Dec> {
  if (result.ok) return result.percent;
  throw new PosError('discount_exceeds_base', `The discount is larger than the ${what} it applies to.`);
}

function checkCeiling(type: DiscountType | undefined, percent: InstanceType<typeof Dec>): void {
  if (type?.ceiling && percent.greaterThan(type.ceiling)) {
    throw new PosError(
      'discount_exceeds_maximum',
      `Discount type ${type.id} allows at most ${type.ceiling.toFixed()} %; this discount is ${percent.toFixed()} %.`,
      {
        maximo: Number(type.ceiling.toFixed()),
        porcentaje: Number(percent.toFixed()),
      },
    );
  }
}

export const generalDiscount = implement(ops.generalDiscount, async (ctx, input) => {
  const account = await lockOpenAccount(ctx, input.folio);
  const settings = await readSettings(ctx);
  const type = await discountType(ctx, input.idTipoDescuento, settings.forceDiscountType, input.valor > 0);
  const usuario = await requireUser(ctx, input.usuario);
  const lines = await accountLines(ctx, account.folio);
  const g = percentOrFail(generalDiscountPercent(input, lines), input.base);
  checkCeiling(type, g);
  const removing = g.isZero();
  await ctx.db
    .updateTable('tempcheques')
    .set(
      ctx.schema.fitRow('tempcheques', {
        descuento: g.toFixed(4),
        // Without a discount, SR's own values for an account it opens (order-lifecycle row 91).
        desc_porc_original: g.toFixed(4),
        desc_imp_original: removing || input.modo !== 'importe' ? null : new Dec(input.valor).toFixed(4),
        idtipodescuento: removing ? '' : (type?.id ?? ''),
        usuariodescuento: removing ? '' : usuario,
        comentariodescuento: removing ? '' : (input.comentario ?? ''),
        // The seed's "marked for discount synchronization with the point-of-sale system"; removing
        // a discount is a change SR must process too.
        procesar_descuento_sr: true,
      }),
    )
    .where('folio', '=', account.folio)
    .execute();
  const totales = await saveTotals(ctx, account.folio, lines, g.toFixed(4));
  return { folio: account.folio, itemsAfectados: 0, forzarDescuento: settings.forceDiscount, totales };
});

export const lineDiscount = implement(ops.lineDiscount, async (ctx, input) => {
  const account = await lockOpenAccount(ctx, input.folio);
  const settings = await readSettings(ctx);
  const applying = input.productos.some((p) => p.valor > 0);
  const type = await discountType(ctx, input.idTipoDescuento, settings.forceDiscountType, applying);
  const usuario = await requireUser(ctx, input.usuario);
  const lines = await accountLines(ctx, account.folio);
  requireLines(lines, input.productos);
  // SR 10 keeps line discounts as numeric(6,2): round to what the installation can store.
  const scale = ctx.schema.scale('tempcheqdet', 'descuento', 4);
  const changed = new Map<number, InstanceType<typeof Dec>>();
  for (const item of input.productos) {
    const line = lines.find((l) => l.movimiento === item.movimiento)!;
    const d = percentOrFail(lineDiscountPercent(item, line, scale), item.base === 'total' ? 'price' : 'price before taxes');
    checkCeiling(type, d);
    changed.set(item.movimiento, d);
  }
  for (const [movimiento, d] of changed) {
    const removing = d.isZero();
    await ctx.db
      .updateTable('tempcheqdet')
      .set(
        ctx.schema.fitRow('tempcheqdet', {
          descuento: d.toFixed(scale),
          // Without a discount, SR's own values for a line it writes (order-lifecycle row 221).
          idtipodescuento: removing ? '' : (type?.id ?? ''),
          usuariodescuento: removing ? '' : usuario,
          comentariodescuento: removing ? '' : (input.comentario ?? ''),
        }),
      )
      .where('foliodet', '=', account.folio)
      .where('movimiento', '=', movimiento)
      .execute();
    lines.find((l) => l.movimiento === movimiento)!.descuento = d;
  }
  const totales = await saveTotals(ctx, account.folio, lines, account.descuento);
  await logEvent(ctx, {
    usuario,
    evento: `${SERVICE_NAMES[account.tipodeservicio] ?? 'Comedor'} - Descuento de productos`,
    valores: [
      `Cuenta: ${account.mesa}`,
      `Folio: ${account.folio}`,
      `Productos: ${[...changed].map(([movimiento, d]) => `${movimiento} ${lines.find((l) => l.movimiento === movimiento)!.idproducto} ${d.toFixed()}%`).join(', ')}`,
      ...(type ? [`Tipo: ${type.id}`] : []),
      ...(input.comentario ? [`Comentario: ${input.comentario}`] : []),
    ].join(', '),
    estacion: account.estacion,
    idempresa: account.idempresa,
    seriefolio: account.seriefolio,
  });
  return { folio: account.folio, itemsAfectados: changed.size, forzarDescuento: settings.forceDiscount, totales };
});
