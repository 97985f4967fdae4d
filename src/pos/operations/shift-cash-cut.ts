/**
 * A shift's cash cut as Soft Restaurant adds it up, open or closed: by payment method and by
 * tender with SR's own sums (order-lifecycle rows 577-582 on an open account, shift-close rows
 * 195-200 on an archived one), the sales of its accounts, and the cashier's declaration.
 */
import { sql, type ExpressionBuilder } from 'kysely';
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/cash-cut.js';
import { shiftDeclarations, shiftTakings, shiftTakingsByMethod, TENDERS, type TenderAmounts } from '../cash-cut.js';
import type { PosContext } from '../context.js';
import { implementAccountRead } from '../reads-across-closes.js';
import type { PosDatabase } from '../schema.js';
import type { Tempcheques } from '../schema-softrestaurant.js';
import { Dec } from '../totals.js';
import { amount, dec, int } from '../values.js';

const TEMP = { header: 'tempcheques', cancelled: 'tempcancela' } as const;
const CLOSED = { header: 'cheques', cancelled: 'cancela' } as const;
type Tables = typeof TEMP | typeof CLOSED;

/** The shift's accounts in one table set; a temporary row whose history copy exists is left out. */
function shiftAccounts(ctx: PosContext, tables: Tables, idTurno: number) {
  const query = ctx.db.selectFrom(`${tables.header} as h` as 'tempcheques as h').where('h.idturno', '=', idTurno);
  if (tables !== TEMP) return query;
  return query.where((eb) =>
    eb.not(eb.exists(eb.selectFrom('cheques as c').select('c.folio').whereRef('c.foliotempcheques', '=', 'h.folio').whereRef('c.idturno', '=', 'h.idturno'))),
  );
}

const notCancelled = (eb: ExpressionBuilder<PosDatabase & { h: Tempcheques }, 'h'>) => eb.or([eb('h.cancelado', '=', false), eb('h.cancelado', 'is', null)]);

/**
 * Each sum reads both table sets in one statement, as `shiftTakings` does: read apart, a close
 * committing in between would let the same accounts be counted in the temporary tables and again
 * in history.
 */
async function sales(ctx: PosContext, idTurno: number) {
  const sum = new Map<string, InstanceType<typeof Dec>>();
  const add = (key: string, v: string | number | null) => sum.set(key, (sum.get(key) ?? new Dec(0)).plus(dec(v)));
  const paid = (tables: Tables) =>
    shiftAccounts(ctx, tables, idTurno)
      .where('h.pagado', '=', true)
      .where(notCancelled)
      .select((eb) => [
        eb.fn.countAll<string | number>().as('cuentas'),
        eb.fn.sum<string | number | null>('h.total').as('total'),
        eb.fn.sum<string | number | null>('h.subtotal').as('subtotal'),
        eb.fn.sum<string | number | null>(sql`${eb.ref('h.total')} - ${eb.ref('h.subtotalcondescuento')}`).as('impuestos'),
        eb.fn.sum<string | number | null>('h.totaldescuentos').as('descuentos'),
        eb.fn.sum<string | number | null>('h.totalcortesias').as('cortesias'),
        eb.fn.sum<string | number | null>('h.propina').as('propinas'),
        eb.fn.sum<string | number | null>('h.propinatarjeta').as('propinasTarjeta'),
      ]);
  for (const row of await paid(TEMP).unionAll(paid(CLOSED)).execute()) for (const [key, value] of Object.entries(row)) add(key, value);
  const cancelled = (tables: Tables) =>
    shiftAccounts(ctx, tables, idTurno)
      .where('h.cancelado', '=', true)
      .select((eb) => eb.fn.countAll<string | number>().as('n'));
  for (const row of await cancelled(TEMP).unionAll(cancelled(CLOSED)).execute()) add('cuentasCanceladas', row.n);
  const lines = (tables: Tables) =>
    shiftAccounts(ctx, tables, idTurno)
      .innerJoin(`${tables.cancelled} as x` as 'tempcancela as x', 'x.foliocheque', 'h.folio')
      .select((eb) => [
        eb.fn.countAll<string | number>().as('n'),
        eb.fn.sum<string | number | null>(sql`${eb.ref('x.cantidad')} * ${eb.ref('x.precio')}`).as('importe'),
      ]);
  for (const row of await lines(TEMP).unionAll(lines(CLOSED)).execute()) {
    add('productosCancelados', row.n);
    add('importeCancelado', row.importe);
  }
  const money = (key: string) => amount((sum.get(key) ?? new Dec(0)).toFixed());
  const count = (key: string) => (sum.get(key) ?? new Dec(0)).toNumber();
  return {
    cuentas: count('cuentas'),
    total: money('total'),
    subtotal: money('subtotal'),
    impuestos: money('impuestos'),
    descuentos: money('descuentos'),
    cortesias: money('cortesias'),
    propinas: money('propinas'),
    propinasTarjeta: money('propinasTarjeta'),
    cuentasCanceladas: count('cuentasCanceladas'),
    productosCancelados: count('productosCancelados'),
    importeCancelado: money('importeCancelado'),
  };
}

const tenderAmounts = (t: TenderAmounts) => Object.fromEntries(TENDERS.map((k) => [k, amount(t[k].toFixed())])) as Record<(typeof TENDERS)[number], number>;

/** Times a cut is read again because the open shift took a payment while it was read. */
const ATTEMPTS = 3;

/**
 * What a payment, cancellation or quick sale into the open shift changes: the number of its
 * temporary accounts and of those cancelled, and the number and sum of their payments. The cut
 * takes several statements, and one that met a payment's commit between two of them disagreed
 * with itself (a probe: 38.50 by tender, 77.00 by method); read before and after, and the cut
 * again when it moved.
 */
async function shiftActivity(ctx: PosContext, idTurno: number): Promise<string> {
  // One scan of each table rather than one per number: the open cut reads this twice.
  const accounts = ctx.db
    .selectFrom('tempcheques')
    .where('idturno', '=', idTurno)
    .select((c) => [c.fn.countAll().as('accounts'), c.fn.count(c.case().when('cancelado', '=', true).then(1).end()).as('cancelled')]);
  const payments = ctx.db
    .selectFrom('tempchequespagos as p')
    .innerJoin('tempcheques as h', 'h.folio', 'p.folio')
    .where('h.idturno', '=', idTurno)
    .select((c) => [c.fn.countAll().as('payments'), c.fn.sum(sql`${c.ref('p.importe')} + ${c.ref('p.propina')}`).as('paid')]);
  const row = await ctx.db
    .selectFrom([accounts.as('a'), payments.as('p')])
    .select(['a.accounts', 'a.cancelled', 'p.payments', 'p.paid'])
    .executeTakeFirstOrThrow();
  return [row.accounts, row.cancelled, row.payments, row.paid].map(String).join('/');
}

export const cashCut = implementAccountRead(ops.cashCut, async (ctx, input) => {
  const shift = await ctx.db
    .selectFrom('turnos')
    .select(['idturnointerno', 'idturno', 'cierre', 'fondo', 'fondodolares', 'efectivo', 'tarjeta', 'vales', 'credito'])
    .where('idturno', '=', input.idTurno)
    .orderBy('idturnointerno', 'desc')
    .executeTakeFirst();
  if (!shift) throw new PosError('shift_not_found', `There is no shift ${input.idTurno}.`, { idTurno: input.idTurno });
  const idturnointerno = Number(shift.idturnointerno);
  const read = async () => ({
    takings: (await shiftTakings(ctx, [input.idTurno])).get(input.idTurno)!,
    methods: await shiftTakingsByMethod(ctx, input.idTurno),
    declarations: await shiftDeclarations(ctx, [{ ...shift, idturnointerno }]),
    ventas: await sales(ctx, input.idTurno),
  });
  // A closed shift takes no more payments; one closing meanwhile is implementAccountRead's.
  const open = shift.cierre === null;
  let cut: Awaited<ReturnType<typeof read>>;
  for (let attempt = 1; ; attempt++) {
    const before = open ? await shiftActivity(ctx, input.idTurno) : '';
    cut = await read();
    if (!open || (await shiftActivity(ctx, input.idTurno)) === before) break;
    if (attempt === ATTEMPTS) throw new PosError('pos_busy', `The shift took payments while its cut was read, ${ATTEMPTS} times in a row; retry shortly.`);
  }
  const { takings, methods, declarations, ventas } = cut;
  const declared = declarations.get(idturnointerno);
  return {
    idTurno: int(shift.idturno) ?? input.idTurno,
    abierto: shift.cierre === null,
    fondo: amount(shift.fondo),
    fondoDolares: amount(shift.fondodolares),
    formasDePago: methods.map((m) => ({
      idFormaDePago: m.idformadepago,
      descripcion: m.descripcion,
      tipo: m.tipo,
      importe: amount(m.importe.toFixed()),
      importePesos: amount(m.pesos.toFixed()),
      propina: amount(m.propina.toFixed()),
    })),
    porTipo: tenderAmounts(takings),
    ventas,
    declaracion: declared ? tenderAmounts(declared) : null,
    diferencia: declared ? tenderAmounts(Object.fromEntries(TENDERS.map((k) => [k, declared[k].minus(takings[k])])) as TenderAmounts) : null,
  };
});
