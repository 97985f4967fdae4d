/**
 * Paying an account in full as Soft Restaurant does (order-lifecycle rows 506-589): printed
 * first when it is not, one `tempchequespagos` row per tender in its own currency, the header
 * paid into the open shift of its station's cash station with the change, the paying user and
 * the tender buckets SR's cash cut reads, and the handheld devices' copy deleted.
 */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/settlement.js';
import { insertRows } from '../bulk-insert.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import { paymentRate, settleTenders, type PaymentMethod } from '../tenders.js';
import { computeTotals, Dec } from '../totals.js';
import { collationKey, int, text } from '../values.js';
import { accountLines, lockAccount, lockShiftOfAccount, refusePaymentUnderWay, refuseStates, requireUser, saveTotals } from './account.js';
import { printLocked } from './account-print.js';
import { dropHandheldCopy } from './handheld-accounts.js';

async function paymentMethods(ctx: PosContext, ids: readonly string[]): Promise<Map<string, PaymentMethod>> {
  const rows = await ctx.db.selectFrom('formasdepago').select(['idformadepago', 'tipo', 'tipodecambio']).where('idformadepago', 'in', ids).execute();
  return new Map(
    rows.map((r) => {
      const id = text(r.idformadepago) ?? '';
      return [collationKey(id), { idformadepago: id, tipo: int(r.tipo) ?? 4, tipodecambio: paymentRate(r.tipodecambio) }];
    }),
  );
}

const money = (d: InstanceType<typeof Dec>) => d.toDecimalPlaces(4, Dec.ROUND_HALF_UP).toFixed(4);

export const payAccount = implement(ops.payAccount, async (ctx, input) => {
  const idTurno = await lockShiftOfAccount(ctx, input.folio);
  const account = await lockAccount(ctx, input.folio);
  refuseStates(account, ['cancelado', 'pagado', 'cuentaenuso']);
  const usuario = await requireUser(ctx, input.usuario);
  await refusePaymentUnderWay(ctx, account.folio);
  if (idTurno === undefined) {
    throw new PosError('shift_not_open', `No shift is open for station ${account.estacion} and company ${account.idempresa}.`);
  }
  const lines = await accountLines(ctx, account.folio);
  const total = new Dec(computeTotals(lines, account.descuento).total.toFixed(2));
  const settlement = settleTenders(
    total,
    input.pagos,
    await paymentMethods(
      ctx,
      input.pagos.map((p) => p.idFormaDePago),
    ),
  );

  const totales = await saveTotals(ctx, account.folio, lines, account.descuento);
  const numcheque = account.impreso ? account.numcheque : (await printLocked(ctx, account)).numcheque;
  await insertRows(
    ctx.db,
    'tempchequespagos',
    settlement.tenders.map((t) =>
      ctx.schema.completeRow('tempchequespagos', {
        folio: account.folio,
        idformadepago: t.method.idformadepago,
        importe: money(t.importe),
        propina: money(t.propina),
        tipodecambio: money(t.method.tipodecambio),
        referencia: t.referencia,
        importe_cashdro: 0,
      }),
    ),
  );
  const withTips = money(total.plus(settlement.propina));
  await ctx.db
    .updateTable('tempcheques')
    .set(
      ctx.schema.fitRow('tempcheques', {
        // Row 548, less idcliente, which SR blanks and we leave to the account's customer.
        cierre: ctx.now,
        pagado: true,
        impreso: true,
        cambio: money(settlement.cambio),
        idturno: idTurno,
        numerotarjeta: '',
        puntosmonederogenerados: 0,
        saldoanteriormonedero: 0,
        titulartarjetamonedero: '',
        usuariopago: usuario,
        numerocuenta: '',
        // Row 585: the tender buckets (tips included), the tips, the totals with them.
        efectivo: money(settlement.buckets.efectivo),
        tarjeta: money(settlement.buckets.tarjeta),
        vales: money(settlement.buckets.vales),
        otros: money(settlement.buckets.credito),
        propina: money(settlement.propina),
        propinatarjeta: money(settlement.propinaTarjeta),
        totalconpropina: withTips,
        totalconpropinacargo: withTips,
      }),
    )
    .where('folio', '=', account.folio)
    .execute();
  // Rows 551-552: SR deletes a paid account's copy, by its table and by its folio.
  await dropHandheldCopy(ctx, account);
  return {
    folio: account.folio,
    numcheque,
    idTurno,
    cambio: settlement.cambio.toNumber(),
    propina: settlement.propina.toDecimalPlaces(2, Dec.ROUND_HALF_UP).toNumber(),
    totales,
  };
});
