/** Creating accounts (open, or a closed quick sale) and adding lines to an open one. */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/orders.js';
import type { PosContext } from '../context.js';
import { nextNumcheque, nextOrden } from '../counters.js';
import { implement } from '../operation.js';
import { computeTotals, totalsToApi, totalsToHeaderColumns } from '../totals.js';
import { dec, int } from '../values.js';
import { accountLines, lockOpenAccount, openShift, requireCompany, requireUser, saveTotals } from './account.js';
import { insertLines, priceLines } from './new-lines.js';

/** `formasdepago.tipo` → the header column that accumulates it. */
const PAYMENT_BUCKET = { 1: 'efectivo', 2: 'tarjeta', 3: 'vales', 4: 'otros' } as const;

interface NewAccount {
  estacion: string;
  serie: string;
  idEmpresa: string;
  noPersonas: number;
  mesa: string;
  idMesero: string;
  tipoDeServicio: number;
  usuario: string;
  orden: number;
}

/** The header of a new open account: SR's neutral opening state, all totals zero. */
async function insertAccount(ctx: PosContext, a: NewAccount, extra: Record<string, unknown> = {}): Promise<number> {
  const header = ctx.schema.completeRow('tempcheques', {
    ...totalsToHeaderColumns(computeTotals([], 0)),
    seriefolio: a.serie,
    numcheque: 0,
    fecha: ctx.now,
    cierre: null,
    mesa: a.mesa,
    nopersonas: a.noPersonas,
    idmesero: a.idMesero,
    pagado: false,
    cancelado: false,
    impreso: false,
    impresiones: 0,
    cambio: 0,
    reabiertas: 0,
    orden: a.orden,
    facturado: false,
    idempresa: a.idEmpresa,
    tipodeservicio: a.tipoDeServicio,
    idturno: 0,
    estacion: a.estacion,
    usuarioapertura: a.usuario,
    cuentaenuso: false,
    efectivo: 0,
    tarjeta: 0,
    vales: 0,
    otros: 0,
    propina: 0,
    ...extra,
  });
  const row = await ctx.db.insertInto('tempcheques').values(header).returning('folio').executeTakeFirstOrThrow();
  return Number(row.folio);
}

/** Marks the table occupied and assigned to the account, when the branch has such a table. */
async function occupyTable(ctx: PosContext, mesa: string, folio: number, idMesero: string): Promise<void> {
  if (mesa === '') return;
  const updated = await ctx.db.updateTable('mesas').set({ estatus_ocupacion: 1 }).where('idmesa', '=', mesa).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return;
  await ctx.db
    .insertInto('mesasasignadas')
    .values(ctx.schema.completeRow('mesasasignadas', { idmesa: mesa, folio, activo: 1, idmesero: idMesero }))
    .execute();
}

export const createOrder = implement(ops.createOrder, async (ctx, input) => {
  await requireCompany(ctx, input.idEmpresa);
  const usuario = await requireUser(ctx, input.usuario);
  if (input.turnDependent && (await openShift(ctx, input.estacion, input.idEmpresa)) === undefined) {
    throw new PosError('shift_not_open', `No shift is open for station ${input.estacion} and company ${input.idEmpresa}.`);
  }
  const lines = input.productos ? await priceLines(ctx, input.idEmpresa, input.productos) : [];
  const orden = await nextOrden(ctx, input.serie);
  const folio = await insertAccount(ctx, { ...input, usuario, orden });
  await occupyTable(ctx, input.mesa, folio, input.idMesero);
  const movimientos = lines.length > 0 ? await insertLines(ctx, { folio, idempresa: input.idEmpresa, estacion: input.estacion, idmesero: input.idMesero }, lines, 0) : [];
  const totales = lines.length > 0 ? await saveTotals(ctx, folio, lines, '0') : totalsToApi(computeTotals([], 0));
  return { folio, orden, movimientos, totales };
});

export const createClosedOrder = implement(ops.createClosedOrder, async (ctx, input) => {
  await requireCompany(ctx, input.idEmpresa);
  const usuario = await requireUser(ctx, input.usuario);
  const payment = await ctx.db
    .selectFrom('formasdepago')
    .select(['idformadepago', 'tipo', 'tipodecambio'])
    .where('idformadepago', '=', input.idFormaDePago)
    .executeTakeFirst();
  if (!payment) throw new PosError('payment_method_not_found', `There is no payment method ${input.idFormaDePago}.`, { idFormaDePago: input.idFormaDePago });
  const idTurno = await openShift(ctx, input.estacion, input.idEmpresa);
  if (idTurno === undefined && input.turnDependent) {
    throw new PosError('shift_not_open', `No shift is open for station ${input.estacion} and company ${input.idEmpresa}.`);
  }
  const lines = input.productos ? await priceLines(ctx, input.idEmpresa, input.productos) : [];
  const totals = computeTotals(lines, 0);
  const total = totals.total.toFixed(2);
  const orden = await nextOrden(ctx, input.serie);
  const numcheque = await nextNumcheque(ctx, input.serie);
  const bucket = PAYMENT_BUCKET[(int(payment.tipo) ?? 4) as keyof typeof PAYMENT_BUCKET] ?? 'otros';
  const folio = await insertAccount(
    ctx,
    { ...input, idMesero: '', tipoDeServicio: 3, usuario, orden },
    { pagado: true, impreso: true, impresiones: 1, cierre: ctx.now, numcheque, idturno: idTurno ?? 0, usuariopago: usuario, [bucket]: total },
  );
  await insertLines(ctx, { folio, idempresa: input.idEmpresa, estacion: input.estacion, idmesero: '' }, lines, 0);
  const totales = await saveTotals(ctx, folio, lines, '0');
  await ctx.db
    .insertInto('tempchequespagos')
    .values(
      ctx.schema.completeRow('tempchequespagos', {
        folio,
        idformadepago: payment.idformadepago,
        importe: total,
        propina: 0,
        tipodecambio: dec(payment.tipodecambio ?? 1).toFixed(4),
        referencia: '',
      }),
    )
    .execute();
  return { folio, numcheque, idTurno: idTurno ?? 0, totales };
});

export const addLines = implement(ops.addLines, async (ctx, input) => {
  const account = await lockOpenAccount(ctx, input.folio);
  await requireUser(ctx, input.usuario);
  const existing = await accountLines(ctx, account.folio);
  const lines = await priceLines(ctx, account.idempresa, input.productos);
  const last = existing.at(-1)?.movimiento ?? 0;
  const movimientos = await insertLines(ctx, account, lines, last);
  const totales = await saveTotals(ctx, account.folio, [...existing, ...lines], account.descuento);
  return { folio: account.folio, itemsAgregados: lines.length, movimientos, totales };
});
