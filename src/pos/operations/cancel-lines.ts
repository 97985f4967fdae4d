/**
 * Cancelling lines as Soft Restaurant does: the lines (and the modifiers of a cancelled base)
 * leave `tempcheqdet`, each goes to `tempcancela` with the reason, the kitchen queue marks them
 * cancelled, the system log gets the event, and the surviving lines are renumbered from 1.
 */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/orders.js';
import { logEvent, SERVICE_NAMES } from '../audit.js';
import { insertRows } from '../bulk-insert.js';
import { cutToWidth } from '../columns.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import { readSettings } from '../settings.js';
import { accountLines, lockOpenAccount, requireLines, requireUser, saveTotals, type OpenAccount, type StoredLine } from './account.js';
import { keepsHandheldCopy, renumberHandheldLines } from './handheld-accounts.js';

/** The requested lines plus every modifier that follows a requested base line. */
function linesToCancel(lines: readonly StoredLine[], requested: ReadonlyArray<{ movimiento: number; idProducto: string }>): StoredLine[] {
  requireLines(lines, requested);
  const chosen = new Set(requested.map((r) => r.movimiento));
  let baseCancelled = false;
  return lines.filter((l) => {
    if (!l.modificador) baseCancelled = chosen.has(l.movimiento);
    return chosen.has(l.movimiento) || (l.modificador && baseCancelled);
  });
}

/**
 * The seed's "<reason> Mesa: <mesa>", and for a sale without a table the reason alone. The seed
 * takes 200 characters where `tempcancela.razon` holds 100: what is cut is the reason, never the
 * table that follows it.
 */
export function storedReason(ctx: Pick<PosContext, 'schema'>, razon: string, mesa: string): string {
  if (mesa.trim() === '') return razon;
  const suffix = ` Mesa: ${mesa}`;
  const width = ctx.schema.column('tempcancela', 'razon')?.maxLength ?? -1;
  const kept = width < 0 ? razon : cutToWidth(razon, width - suffix.length);
  return `${kept}${suffix}`.trim();
}

/**
 * The line number a cancelled kitchen row takes. The survivors are renumbered from 1, so a
 * cancelled row keeping its number would share folio and `movimiento` with a live one, and a
 * statement addressing a line as SR does (folio, movimiento, product: order-lifecycle row 229)
 * could act on the cancelled row. No line is ever 0. SR's monitor statements are not in the
 * traces; its own statements on kitchen rows there address a whole account (shift-close rows
 * 94, 106, 120).
 */
const CANCELLED_KITCHEN_ROW = 0;

export const cancelLines = implement(ops.cancelLines, async (ctx, input) => {
  const account = await lockOpenAccount(ctx, input.folio);
  const settings = await readSettings(ctx);
  const razon = (input.razon ?? '').trim();
  if (settings.forceCancelReason && razon === '') {
    throw new PosError('reason_required', 'This branch requires a reason (razon) to cancel products.');
  }
  const usuario = await requireUser(ctx, input.usuario);
  const lines = await accountLines(ctx, account.folio);
  const cancelled = linesToCancel(lines, input.productos);
  const gone = cancelled.map((l) => l.movimiento);
  await removeLines(ctx, account, cancelled, storedReason(ctx, razon, account.mesa), usuario, '');

  const survivors = lines.filter((l) => !gone.includes(l.movimiento));
  await renumber(ctx, account.folio, survivors);
  if (await keepsHandheldCopy(ctx, account)) {
    await renumberHandheldLines(ctx, account.mesa, [
      ...gone.map((from) => ({ from, to: null })),
      ...survivors.map((l, i) => ({ from: l.movimiento, to: i + 1 })),
    ]);
  }
  await logEvent(ctx, {
    usuario,
    evento: `${SERVICE_NAMES[account.tipodeservicio] ?? 'Comedor'} - Cancelación de productos`,
    valores: `Cuenta: ${account.mesa}, Folio: ${account.folio}, Productos: ${cancelled.map((l) => `${l.cantidad.toFixed()} ${l.descripcion || l.idproducto}`).join(', ')}, Razón: ${razon}`,
    estacion: account.estacion,
    idempresa: account.idempresa,
    seriefolio: account.seriefolio,
  });
  const totales = await saveTotals(ctx, account.folio, survivors, account.descuento);
  return { folio: account.folio, itemsCancelados: cancelled.length, movimientos: gone, totales };
});

/**
 * Takes lines off an account as SR cancels them: out of `tempcheqdet`, each into `tempcancela`
 * with the reason, and their kitchen rows marked cancelled.
 */
export async function removeLines(
  ctx: PosContext,
  account: Pick<OpenAccount, 'folio'>,
  cancelled: readonly StoredLine[],
  reason: string,
  usuario: string,
  idmotivocancela: string,
): Promise<void> {
  if (cancelled.length === 0) return;
  const gone = cancelled.map((l) => l.movimiento);
  await ctx.db.deleteFrom('tempcheqdet').where('foliodet', '=', account.folio).where('movimiento', 'in', gone).execute();
  await insertRows(
    ctx.db,
    'tempcancela',
    cancelled.map((l) =>
      ctx.schema.completeRow('tempcancela', {
        foliocheque: account.folio,
        comanda: '',
        cantidad: l.cantidad.toDecimalPlaces(3).toFixed(),
        clave: l.idproducto,
        razon: reason,
        fecha: ctx.now,
        usuario,
        precio: l.precio.toFixed(4),
        idmotivocancela,
        procesadosrx: false,
      }),
    ),
  );
  await ctx.db
    .updateTable('productosenproduccion')
    .set({ cancelado: true, movimiento: CANCELLED_KITCHEN_ROW })
    .where('folio', '=', account.folio)
    .where('movimiento', 'in', gone)
    .execute();
}

/**
 * Survivors become 1..n in their order. Every new number is at most the old one and rows are
 * moved in ascending order, so no two lines ever share a number while this runs.
 */
async function renumber(ctx: PosContext, folio: number, survivors: readonly StoredLine[]): Promise<void> {
  for (const [i, line] of survivors.entries()) {
    const to = i + 1;
    if (line.movimiento === to) continue;
    await ctx.db.updateTable('tempcheqdet').set({ movimiento: to }).where('foliodet', '=', folio).where('movimiento', '=', line.movimiento).execute();
    await ctx.db
      .updateTable('productosenproduccion')
      .set({ movimiento: to })
      .where('folio', '=', folio)
      .where('movimiento', '=', line.movimiento)
      .where((eb) => eb.or([eb('cancelado', '=', false), eb('cancelado', 'is', null)]))
      .execute();
  }
}
