/** Listing and opening shifts (turnos). Closing is in shift-close.ts. */
import { PosError } from '../../protocol/errors.js';
import { dateFilterBound } from '../../protocol/common.js';
import * as ops from '../../protocol/operations/shifts.js';
import type { PosContext } from '../context.js';
import { likeContains } from '../sql-dialect.js';
import { implement } from '../operation.js';
import { selectPage } from '../paging.js';
import { amount, dec, int, localIso, text } from '../values.js';
import { noTakings, shiftDeclarations, shiftTakings, type TenderAmounts } from '../cash-cut.js';
import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { openShiftFor, requireStation } from '../stations.js';
import { markForSync, SYNC_CREATE, SYNC_ENTITY_SHIFT } from '../sync-marks.js';
import { requireCompany, requireUser, requireWaiter } from './account.js';

/** Shifts with their station's series, as the shift list shows them (newest first). */
export function shiftsQuery(ctx: Pick<PosContext, 'db'>) {
  return (
    ctx.db
      .selectFrom('turnos as t')
      .leftJoin('estaciones as e', 'e.idestacion', 't.idestacion')
      .select([
        't.idturnointerno',
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
      .orderBy('t.idturno', 'desc')
      // idturno is not the key (a number can repeat, or be null): the key makes the page order total.
      .orderBy('t.idturnointerno', 'desc')
  );
}

type ShiftRow = Awaited<ReturnType<ReturnType<typeof shiftsQuery>['execute']>>[number];

const tenderAmounts = (t: TenderAmounts) => ({
  efectivo: amount(t.efectivo.toFixed()),
  tarjeta: amount(t.tarjeta.toFixed()),
  vales: amount(t.vales.toFixed()),
  credito: amount(t.credito.toFixed()),
});

/**
 * Shift records: `efectivo`, `tarjeta`, `vales`, `credito` are what the shift took, as SR's cash
 * cut adds it up, open or closed (the seed's "payment totals"); `declaracion` is what the cashier
 * declared at the close, null when nothing was.
 */
export async function shiftsToApi(ctx: Pick<PosContext, 'db' | 'schema'>, rows: readonly ShiftRow[]) {
  const numbered = rows.map((r) => ({ ...r, idturnointerno: Number(r.idturnointerno), idTurno: int(r.idturno) ?? 0 }));
  // One after the other: run together, the two statements reach the database in either order,
  // and the saved T-SQL of the operations that list shifts changed from run to run.
  const takings = await shiftTakings(
    ctx,
    numbered.map((r) => r.idTurno),
  );
  const declarations = await shiftDeclarations(ctx, numbered);
  return numbered.map((r) => {
    const declared = declarations.get(r.idturnointerno);
    return {
      idTurno: r.idTurno,
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
      ...tenderAmounts(takings.get(r.idTurno) ?? noTakings()),
      declaracion: declared ? tenderAmounts(declared) : null,
    };
  });
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
  const page = await selectPage(query, input, (r) => r);
  return { ...page, data: await shiftsToApi(ctx, page.data) };
});

/** The next operational shift number, under SR's exclusive lock on `parametros`. */
async function nextShiftNumber(ctx: PosContext): Promise<number> {
  const row = await ctx.db.selectFrom('parametros').select('ultimoturno').forUpdate().executeTakeFirst();
  if (!row) throw new Error('parametros has no row: the POS database is not configured');
  const next = (int(row.ultimoturno) ?? 0) + 1;
  await ctx.db.updateTable('parametros').set({ ultimoturno: next }).execute();
  return next;
}

/** Seconds an opening waits for, at most, when shifts of its company opened in the seconds before. */
const MAX_SECONDS_WAITED = 5;

/**
 * What SR reads before it opens a shift, where it changes the outcome (order-lifecycle rows
 * 13, 26, 28-30), read under the `parametros` lock so that two opens see each other. What SR
 * does on each is not in the traces (none applied there); these are our decisions:
 * - a fixed cash float (`configuracion.fondofijocaja`, row 13): another float is refused (422),
 *   as SR's screen would not let the cashier type one;
 * - the last close (rows 28-30): a shift opened before the station's last close, or before the
 *   latest opening, would fall inside another shift's period: the clock is behind (409);
 * - a shift of the company opened in the same second (row 26): SR's reports and its sales log
 *   (`bitacoraenvioventas`, row 38) know a shift by its opening time, so this one opens at the
 *   next free second, once the clock has reached it. Returns the opening time.
 */
async function openingTime(ctx: PosContext, shiftStation: string, idEmpresa: string, fondo: number): Promise<Date> {
  if (ctx.schema.has('configuracion', 'fondofijocaja')) {
    const config = await ctx.db.selectFrom('configuracion').select('fondofijocaja').executeTakeFirst();
    const fixed = dec(config?.fondofijocaja);
    if (fixed.gt(0) && !fixed.eq(fondo)) {
      throw new PosError('fixed_cash_float', `This branch opens every shift with a fixed float of ${fixed.toFixed(2)}.`, { fondo: amount(fixed.toFixed()) });
    }
  }
  const [latest, lastClose] = await Promise.all([
    ctx.db
      .selectFrom('turnos')
      .select((eb) => eb.fn.max('apertura').as('apertura'))
      .executeTakeFirst(),
    ctx.db
      .selectFrom('turnos')
      .select((eb) => eb.fn.max('cierre').as('cierre'))
      .where('idestacion', '=', shiftStation)
      .where('idempresa', '=', idEmpresa)
      .executeTakeFirst(),
  ]);
  const from = clockPastRecorded(ctx, [latest?.apertura, lastClose?.cierre]);
  for (let waited = 0; ; waited++) {
    const at = new Date(from.getTime() + waited * 1000);
    const taken = await ctx.db.selectFrom('turnos').select('idturno').where('apertura', '=', at).where('idempresa', '=', idEmpresa).executeTakeFirst();
    if (!taken) return at;
    if (waited === MAX_SECONDS_WAITED) {
      throw new PosError('shift_opened_same_second', 'Shifts of the company in idEmpresa opened in each of the last seconds; retry shortly.', {
        idTurno: Number(taken.idturno),
      });
    }
    await setTimeout(Math.min(1000, Math.max(0, at.getTime() + 1000 - Date.now())));
  }
}

/**
 * The time to open from: `now`, unless a recorded opening or close is later. The job took `now`
 * before it queued for the `parametros` lock, and an opening that got the lock first may have
 * recorded a later second meanwhile: the clock read again is then the opening time. Only a clock
 * still behind what is recorded is refused. Whole seconds, as the agent writes its times: SR's
 * own may carry a fraction.
 */
function clockPastRecorded(ctx: PosContext, recorded: ReadonlyArray<Date | null | undefined>): Date {
  const second = (at: Date) => Math.floor(at.getTime() / 1000) * 1000;
  const later = (clock: Date) => recorded.find((at) => at instanceof Date && second(at) > clock.getTime());
  if (!later(ctx.now)) return ctx.now;
  const clock = ctx.clock?.() ?? ctx.now;
  const behind = later(clock);
  if (behind) {
    throw new PosError('clock_behind_last_close', `The clock (${localIso(clock)}) is behind a shift already recorded at ${localIso(behind)}.`, {
      at: localIso(behind),
    });
  }
  return clock;
}

/**
 * Opening a shift as SR does (order-lifecycle rows 31-40): the next shift number under the lock
 * on `parametros`, the shift of the station's cash station, kept for no waiter (`idmesero` '')
 * where every lookup of SR's finds it (rows 4, 25, 27, 201, 433, 510; shift-close 14, 41, 60),
 * then National Soft's sync mark and the sales-sending log entry. `parametros3.turnoxmesero`
 * does not change it: SR reads that setting only for its cash-cut report after a close
 * (shift-close row 267), and a waiter's shift its terminals cannot find would take no sales.
 */
export const openShift = implement(ops.openShift, async (ctx, input) => {
  const idEmpresa = await requireCompany(ctx, input.idEmpresa);
  const cajero = await requireUser(ctx, input.cajero, 'cajero');
  const station = await requireStation(ctx, input.estacion);
  // The seed's body names a waiter: a wrong one is refused, and none is stored (see above).
  await requireWaiter(ctx, input.idMesero ?? '');
  // The counter lock comes first: two opens for one station queue here, and the second then
  // sees the shift the first one opened.
  const idTurno = await nextShiftNumber(ctx);
  const open = await openShiftFor(ctx, station.shiftStation, idEmpresa);
  if (open !== undefined) {
    throw new PosError('shift_already_open', `Shift ${open} is already open for station ${station.shiftStation} and the company in idEmpresa.`, {
      idTurno: open,
    });
  }
  const apertura = await openingTime(ctx, station.shiftStation, idEmpresa, input.fondo);
  const workspaceId = randomUUID();
  await ctx.db
    .insertInto('turnos')
    .values(
      ctx.schema.completeRow('turnos', {
        idturno: idTurno,
        fondo: input.fondo.toFixed(2),
        apertura,
        cierre: null,
        idestacion: station.shiftStation,
        cajero,
        efectivo: 0,
        tarjeta: 0,
        vales: 0,
        credito: 0,
        idempresa: idEmpresa,
        idmesero: '',
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
      .values(ctx.schema.completeRow('bitacoraEnvioVentas', { fechaapertura: apertura }))
      .execute();
  }
  return {
    idTurno,
    apertura: localIso(apertura)!,
    fondo: input.fondo,
    cajero,
    idMesero: '',
    fondoDolares: input.fondoDolares,
  };
});
