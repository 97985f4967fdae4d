/**
 * Creating accounts (open, or a closed quick sale) and adding lines to an open one, written as
 * Soft Restaurant writes them: opening an account (order-lifecycle rows 87-97), printing it
 * (358-365) and paying it (514-561).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/orders.js';
import type { PosContext } from '../context.js';
import { nextNumcheque, nextOrden } from '../counters.js';
import { implement } from '../operation.js';
import { openShiftFor, requireStation, type Station } from '../stations.js';
import { accountsHoldingTable, DINE_IN } from '../tables.js';
import { paymentRate } from '../tenders.js';
import { computeTotals, Dec, totalsToApi, totalsToHeaderColumns } from '../totals.js';
import { int, text } from '../values.js';
import { accountLines, lockOpenAccount, refuseOutOfRange, requireCompany, requireUser, requireWaiter, saveTotals, storeTotals } from './account.js';
import { keepsHandheldCopy, openHandheldAccount } from './handheld-accounts.js';
import { insertLines, priceLines } from './new-lines.js';

/** `formasdepago.tipo` → the header column that accumulates it. */
const PAYMENT_BUCKET = { 1: 'efectivo', 2: 'tarjeta', 3: 'vales', 4: 'otros' } as const;

const QUICK_SALE = 3;

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
  area: string;
}

/**
 * The header of a new account, all totals zero, with every column SR writes explicitly when it
 * opens one (order-lifecycle row 91): a NULL there is a NULL SR's reports and terminals add up
 * or compare. The account carries no shift (idturno 0) until it is paid.
 */
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
    idcliente: '',
    idarearestaurant: a.area,
    idempresa: a.idEmpresa,
    tipodeservicio: a.tipoDeServicio,
    idturno: 0,
    comentariodescuento: '',
    estacion: a.estacion,
    usuariodescuento: '',
    idtipodescuento: '',
    numerotarjeta: '',
    puntosmonederogenerados: 0,
    tarjetadescuento: '',
    usuariopago: '',
    observaciones: '',
    iddireccion: '',
    telefonousadodomicilio: '',
    cargo: 0,
    campoadicional1: '',
    idreservacion: '',
    idcomisionista: '',
    tipoventarapida: 0,
    callcenter: false,
    codigo_unico_af: '',
    usuarioapertura: a.usuario,
    desc_porc_original: 0,
    cuentaenuso: false,
    efectivo: 0,
    tarjeta: 0,
    vales: 0,
    otros: 0,
    propina: 0,
    propinatarjeta: 0,
    // SR's database gives every account a WorkspaceId of its own (NEWID() by default).
    WorkspaceId: randomUUID(),
    ...extra,
  });
  const row = await ctx.db.insertInto('tempcheques').values(header).returning('folio').executeTakeFirstOrThrow();
  return Number(row.folio);
}

/**
 * The account's table as the branch spells it (a table `mesas` does not list, as sent) and its
 * restaurant area: the table's, or the station's for the service (dine-in, delivery, quick sale).
 */
async function tableOf(ctx: PosContext, station: Station, tipoDeServicio: number, mesa: string): Promise<{ mesa: string; area: string }> {
  const stationArea = station.areas[tipoDeServicio as 1 | 2 | 3] ?? '';
  if (mesa === '') return { mesa, area: stationArea };
  const table = await ctx.db.selectFrom('mesas').select(['idmesa', 'idarearestaurant']).where('idmesa', '=', mesa).executeTakeFirst();
  return { mesa: text(table?.idmesa)?.trim() || mesa, area: text(table?.idarearestaurant)?.trim() || stationArea };
}

/**
 * SR opens one account per table (order-lifecycle rows 87 and 90, again inside its
 * transaction). The table's row is locked first, so two requests for one table queue here and
 * the second sees the first's account.
 */
async function refuseOccupiedTable(ctx: PosContext, mesa: string): Promise<void> {
  await ctx.db.selectFrom('mesas').select('idmesa').where('idmesa', '=', mesa).forUpdate().execute();
  const open = await accountsHoldingTable(ctx, sql.val(mesa)).select('tc.folio').executeTakeFirst();
  if (open)
    throw new PosError('table_occupied', `The table in mesa already has an open account (folio ${open.folio}).`, { field: 'mesa', folio: Number(open.folio) });
}

export const createOrder = implement(ops.createOrder, async (ctx, input) => {
  const idEmpresa = await requireCompany(ctx, input.idEmpresa);
  const usuario = await requireUser(ctx, input.usuario);
  const station = await requireStation(ctx, input.estacion);
  const estacion = station.id;
  const idMesero = await requireWaiter(ctx, input.idMesero);
  if (input.turnDependent && (await openShiftFor(ctx, estacion, idEmpresa)) === undefined) {
    throw new PosError('shift_not_open', 'No shift is open for the station and company in estacion and idEmpresa.');
  }
  const lines = input.productos ? await priceLines(ctx, idEmpresa, input.productos) : [];
  const { orden, serie } = await nextOrden(ctx, input.serie ?? station.serie);
  if (input.tipoDeServicio === DINE_IN && input.mesa !== '') await refuseOccupiedTable(ctx, input.mesa);
  const { mesa, area } = await tableOf(ctx, station, input.tipoDeServicio, input.mesa);
  const folio = await insertAccount(ctx, { ...input, idEmpresa, estacion, idMesero, serie, usuario, orden, mesa, area });
  // SR writes neither `mesasasignadas` nor `mesas` when it opens an account (rows 87-97).
  const handheld = await keepsHandheldCopy(ctx, { mesa, tipodeservicio: input.tipoDeServicio });
  if (handheld) {
    await openHandheldAccount(ctx, {
      folio,
      mesa,
      idmesero: idMesero,
      noPersonas: input.noPersonas,
      area,
      estacion,
      tipoDeServicio: input.tipoDeServicio,
    });
  }
  const account = { folio, idempresa: idEmpresa, estacion, idmesero: idMesero, mesa, seriefolio: serie };
  const movimientos = lines.length > 0 ? await insertLines(ctx, account, lines, 0, handheld) : [];
  const totales = lines.length > 0 ? await saveTotals(ctx, folio, lines, '0') : totalsToApi(computeTotals([], 0));
  return { folio, orden, movimientos, totales };
});

/**
 * A payment as SR stores it (order-lifecycle row 515): `importe` in the payment method's own
 * currency, which SR multiplies by `tipodecambio` wherever it adds money up (shift-close rows
 * 24-27 and 195-198). A sale of 100.00 pesos paid in dollars at 17.25 is 5.7971 dollars; the
 * 4 decimals `money` keeps put the pesos within half a cent of the total below a rate of 100.
 */
function paymentOf(totalPesos: string, tipodecambio: string): { importe: string; pesos: string } {
  const rate = new Dec(tipodecambio);
  const importe = new Dec(totalPesos).div(rate).toDecimalPlaces(4);
  return { importe: importe.toFixed(4), pesos: importe.times(rate).toFixed(4) };
}

export const createClosedOrder = implement(ops.createClosedOrder, async (ctx, input) => {
  const idEmpresa = await requireCompany(ctx, input.idEmpresa);
  const usuario = await requireUser(ctx, input.usuario);
  const payment = await ctx.db
    .selectFrom('formasdepago')
    .select(['idformadepago', 'tipo', 'tipodecambio'])
    .where('idformadepago', '=', input.idFormaDePago)
    .executeTakeFirst();
  if (!payment) throw new PosError('payment_method_not_found', 'The branch has no payment method with the id in idFormaDePago.', { field: 'idFormaDePago' });
  const station = await requireStation(ctx, input.estacion);
  const estacion = station.id;
  // A quick sale is paid at once: it carries the shift its station sells on, as SR's payment does
  // (row 548), held so that a close cannot commit between (openShiftFor's `lock`).
  const idTurno = await openShiftFor(ctx, estacion, idEmpresa, { lock: true });
  if (idTurno === undefined && input.turnDependent) {
    throw new PosError('shift_not_open', 'No shift is open for the station and company in estacion and idEmpresa.');
  }
  const lines = input.productos ? await priceLines(ctx, idEmpresa, input.productos) : [];
  const totals = computeTotals(lines, 0);
  refuseOutOfRange(totals);
  const tipodecambio = paymentRate(payment.tipodecambio).toFixed(4);
  const paid = paymentOf(totals.total.toFixed(2), tipodecambio);
  const { orden, serie } = await nextOrden(ctx, input.serie ?? station.serie);
  const numcheque = await nextNumcheque(ctx, serie);
  const bucket = PAYMENT_BUCKET[(int(payment.tipo) ?? 4) as keyof typeof PAYMENT_BUCKET] ?? 'otros';
  const { mesa, area } = await tableOf(ctx, station, QUICK_SALE, input.mesa);
  const folio = await insertAccount(
    ctx,
    { ...input, idEmpresa, estacion, serie, idMesero: '', tipoDeServicio: QUICK_SALE, usuario, orden, mesa, area },
    {
      // Printing (row 361: SR writes blanks to autorizacionfolio and encodes something of its
      // own in campoadicional1, which stays '') and paying (row 548: blanks to numerocuenta).
      impreso: true,
      impresiones: 1,
      cierre: ctx.now,
      numcheque,
      cambiorepartidor: 0,
      domicilioprogramado: false,
      autorizacionfolio: '',
      pagado: true,
      cambio: 0,
      idturno: idTurno ?? 0,
      usuariopago: usuario,
      propinaincluida: 0,
      saldoanteriormonedero: 0,
      titulartarjetamonedero: '',
      numerocuenta: '',
      [bucket]: paid.pesos,
    },
  );
  const account = { folio, idempresa: idEmpresa, estacion, idmesero: '', mesa, seriefolio: serie };
  // Paid at once: SR deletes an account's handheld rows when it is paid (rows 551-552), so a
  // quick sale never gets them.
  if (lines.length > 0) await insertLines(ctx, account, lines, 0, false);
  const totales = await storeTotals(ctx, folio, totals);
  await ctx.db
    .insertInto('tempchequespagos')
    .values(
      ctx.schema.completeRow('tempchequespagos', {
        folio,
        idformadepago: payment.idformadepago,
        importe: paid.importe,
        propina: 0,
        tipodecambio,
        referencia: '',
        importe_cashdro: 0,
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
  const movimientos = await insertLines(ctx, account, lines, last, await keepsHandheldCopy(ctx, account));
  const totales = await saveTotals(ctx, account.folio, [...existing, ...lines], account.descuento);
  return { folio: account.folio, itemsAgregados: lines.length, movimientos, totales };
});
