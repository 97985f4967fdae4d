/**
 * The cashier's declaration at a shift close ("declaración de cajero"), kept where Soft
 * Restaurant keeps it: one `declaracioncajero` row per payment method, the amount counted in the
 * method's own currency beside the method's exchange rate, tender (`tipo`) and name; and the
 * shift's cash columns holding their sum in pesos by tender. SR asks for it at the close when
 * `parametros3.solicitadeclaraciondecajero` is set (shift-close rows 37, 46) and writes the
 * columns 0 when nothing was declared (row 95).
 */
import { randomUUID } from 'node:crypto';
import { PosError } from '../../protocol/errors.js';
import { insertRows } from '../bulk-insert.js';
import { noTakings, tenderOf, type TenderAmounts } from '../cash-cut.js';
import type { PosContext } from '../context.js';
import { Dec } from '../totals.js';
import { sameKey, dec, text } from '../values.js';
import type { ClosingShift } from './shift-archive.js';

export interface DeclaredAmount {
  idFormaDePago: string;
  /** In the payment method's currency. */
  importe: number;
}

/** Writes the declaration's rows and returns what it adds up to by tender, in pesos (0 where nothing is declared). */
export async function recordDeclaration(ctx: PosContext, shift: ClosingShift, declared: readonly DeclaredAmount[]): Promise<TenderAmounts> {
  const totals = noTakings();
  if (declared.length === 0) return totals;
  const methods = await ctx.db
    .selectFrom('formasdepago')
    .select(['idformadepago', 'descripcion', 'tipo', 'tipodecambio'])
    .where(
      'idformadepago',
      'in',
      declared.map((d) => d.idFormaDePago),
    )
    .execute();
  const methodOf = (id: string) => methods.find((m) => sameKey(m.idformadepago ?? '', id));
  const fields = declared.flatMap((d, i) => (methodOf(d.idFormaDePago) ? [] : [`declaracion.${i}.idFormaDePago`]));
  if (fields.length > 0) {
    throw new PosError('payment_method_not_found', `The branch has no payment method with the id in ${fields.join(', ')}.`, { fields });
  }
  const rows = declared.map((d) => {
    const method = methodOf(d.idFormaDePago)!;
    const tipodecambio = dec(method.tipodecambio ?? 1);
    const rate = tipodecambio.isZero() ? new Dec(1) : tipodecambio;
    const tender = tenderOf(method.tipo);
    if (tender) totals[tender] = totals[tender].plus(rate.times(d.importe));
    return {
      idturnointerno: shift.idturnointerno,
      idturno: shift.idTurno,
      idformadepago: method.idformadepago,
      importedeclarado: new Dec(d.importe).toFixed(2),
      tipodecambio: rate.toFixed(4),
      tipo: method.tipo,
      descripcion: text(method.descripcion) ?? '',
      // SR's database gives every row a WorkspaceId of its own (NEWID() by default).
      WorkspaceId: randomUUID(),
    };
  });
  // An installation without the table (older SR) keeps only the shift's columns.
  if (ctx.schema.hasTable('declaracioncajero')) {
    await insertRows(
      ctx.db,
      'declaracioncajero',
      rows.map((r) => ctx.schema.completeRow('declaracioncajero', r)),
    );
  }
  return totals;
}
