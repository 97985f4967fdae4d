/** Listing and opening shifts (turnos). Closing is in shift-close.ts. */
import { PosError } from '../../protocol/errors.js';
import { dateFilterBound } from '../../protocol/common.js';
import * as ops from '../../protocol/operations/shifts.js';
import type { PosContext } from '../context.js';
import { likeContains } from '../sql-dialect.js';
import { implement } from '../operation.js';
import { selectPage } from '../paging.js';
import { amount, int, localIso, text } from '../values.js';
import { randomUUID } from 'node:crypto';
import { readSettings } from '../settings.js';
import { openShiftFor, requireStation, shiftWaiter } from '../stations.js';
import { markForSync, SYNC_CREATE, SYNC_ENTITY_SHIFT } from '../sync-marks.js';
import { requireCompany, requireUser, requireWaiter } from './account.js';

/** Shifts with their station's series, as the shift list shows them (newest first). */
export function shiftsQuery(ctx: Pick<PosContext, 'db'>) {
  return ctx.db
    .selectFrom('turnos as t')
    .leftJoin('estaciones as e', 'e.idestacion', 't.idestacion')
    .select([
      't.idturno',
      't.idestacion',
      't.idempresa',
      'e.serie',
      't.apertura',
      't.cierre',
      't.fondo',
      't.cajero',
      't.idmesero',
      't.fondodolares',
      't.efectivo',
      't.tarjeta',
      't.vales',
      't.credito',
    ])
    .orderBy('t.idturno', 'desc');
}

type ShiftRow = Awaited<ReturnType<ReturnType<typeof shiftsQuery>['execute']>>[number];

export function shiftToApi(r: ShiftRow) {
  return {
    idTurno: int(r.idturno) ?? 0,
    estacion: text(r.idestacion),
    idEmpresa: text(r.idempresa),
    serie: text(r.serie),
    apertura: localIso(r.apertura),
    // The seed: "absent for open shifts".
    ...(r.cierre === null ? {} : { cierre: localIso(r.cierre)! }),
    fondo: amount(r.fondo),
    cajero: text(r.cajero),
    idMesero: text(r.idmesero),
    fondoDolares: amount(r.fondodolares),
    efectivo: amount(r.efectivo),
    tarjeta: amount(r.tarjeta),
    vales: amount(r.vales),
    credito: amount(r.credito),
  };
}

export const listShifts = implement(ops.listShifts, async (ctx, input) => {
  let query = shiftsQuery(ctx);
  const { search } = input;
  if (search) {
    const asNumber = /^\d{1,9}$/.test(search.trim()) ? Number(search.trim()) : undefined;
    query = query.where((eb) =>
      eb.or([
        likeContains(eb.ref('t.idestacion'), search),
        likeContains(eb.ref('t.cajero'), search),
        ...(asNumber !== undefined ? [eb('t.idturno', '=', asNumber)] : []),
      ]),
    );
  }
  for (const [column, start, end] of [
    ['t.apertura', input.aperturaStart, input.aperturaEnd],
    ['t.cierre', input.cierreStart, input.cierreEnd],
  ] as const) {
    if (start) {
      const b = dateFilterBound(start, 'start');
      query = query.where(column, b.op, b.at);
    }
    if (end) {
      const b = dateFilterBound(end, 'end');
      query = query.where(column, b.op, b.at);
    }
  }
  return selectPage(query, input, shiftToApi);
});

/** The next operational shift number, under SR's exclusive lock on `parametros`. */
async function nextShiftNumber(ctx: PosContext): Promise<number> {
  const row = await ctx.db.selectFrom('parametros').select('ultimoturno').forUpdate().executeTakeFirst();
  if (!row) throw new Error('parametros has no row: the POS database is not configured');
  const next = (int(row.ultimoturno) ?? 0) + 1;
  await ctx.db.updateTable('parametros').set({ ultimoturno: next }).execute();
  return next;
}

/**
 * Opening a shift as SR does (order-lifecycle rows 31-40): the next shift number under the lock
 * on `parametros`, the shift of the station's cash station, kept for no waiter (`idmesero` '',
 * where SR's terminals look for it) unless the branch keeps a shift per waiter, then National
 * Soft's sync mark and the sales-sending log entry.
 */
export const openShift = implement(ops.openShift, async (ctx, input) => {
  await requireCompany(ctx, input.idEmpresa);
  const cajero = await requireUser(ctx, input.cajero);
  const station = await requireStation(ctx, input.estacion);
  const waiter = await requireWaiter(ctx, input.idMesero ?? '');
  const settings = await readSettings(ctx);
  const idmesero = shiftWaiter(settings.shiftPerWaiter, waiter);
  // The counter lock comes first: two opens for one station queue here, and the second then
  // sees the shift the first one opened.
  const idTurno = await nextShiftNumber(ctx);
  const open = await openShiftFor(ctx, station.shiftStation, input.idEmpresa, waiter);
  if (open !== undefined) {
    throw new PosError('shift_already_open', `Shift ${open} is already open for station ${station.shiftStation} and company ${input.idEmpresa}.`, {
      idTurno: open,
    });
  }
  const workspaceId = randomUUID();
  await ctx.db
    .insertInto('turnos')
    .values(
      ctx.schema.completeRow('turnos', {
        idturno: idTurno,
        fondo: input.fondo.toFixed(2),
        apertura: ctx.now,
        cierre: null,
        idestacion: station.shiftStation,
        cajero,
        efectivo: 0,
        tarjeta: 0,
        vales: 0,
        credito: 0,
        idempresa: input.idEmpresa,
        idmesero,
        fondodolares: input.fondoDolares.toFixed(2),
        offline: false,
        enviadoacentral: false,
        // SR's database gives every shift a WorkspaceId of its own (NEWID() by default), which its sync mark names.
        WorkspaceId: workspaceId,
      }),
    )
    .execute();
  if (ctx.schema.has('turnos', 'WorkspaceId')) await markForSync(ctx, SYNC_ENTITY_SHIFT, workspaceId, SYNC_CREATE);
  if (ctx.schema.hasTable('bitacoraEnvioVentas')) {
    await ctx.db
      .insertInto('bitacoraEnvioVentas')
      .values(ctx.schema.completeRow('bitacoraEnvioVentas', { fechaapertura: ctx.now }))
      .execute();
  }
  return {
    idTurno,
    apertura: localIso(ctx.now)!,
    fondo: input.fondo,
    cajero,
    idMesero: idmesero,
    fondoDolares: input.fondoDolares,
  };
});
