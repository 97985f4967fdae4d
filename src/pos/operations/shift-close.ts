/**
 * Closing a shift ("corte") as Soft Restaurant does it (sr-traces/shift-close-flow.tsv), in one
 * transaction where SR uses several:
 * - what SR checks first: accounts printed but unpaid, products gone from the catalogue (rows
 *   29, 66) and, where the branch asks, open accounts (31-33);
 * - the shift's accounts move to history (shift-archive.ts: rows 69-123);
 * - the shift gets its close time and the cashier's declaration (cashier-declaration.ts, rows
 *   95, 112, 124), and its station's series restarts its counters (96-97);
 * - SR's housekeeping beyond the shift (close-housekeeping.ts: rows 107, 134-139);
 * - the stock it consumed is deducted (inventory-deduction.ts: rows 127-133, 229-242), and
 *   National Soft's sync mark is set (245-247).
 * After the commit, as SR does (136-137), an empty `tempcheques` numbers its next account from 1
 * again (from 0 if it never had one: see reseedIdentity).
 */
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/shifts.js';
import { shiftTakings, TENDERS, type TenderAmounts } from '../cash-cut.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import type { PosDb } from '../schema.js';
import { readSettings } from '../settings.js';
import { lockTable, reseedIdentity } from '../sql-dialect.js';
import { requireStation, stationOf, type Station } from '../stations.js';
import { markForSync, SYNC_ENTITY_SHIFT, SYNC_UPDATE } from '../sync-marks.js';
import { amount, sameKey, localIso, text } from '../values.js';
import { API_USER } from './account.js';
import { recordDeclaration } from './cashier-declaration.js';
import { closeHousekeeping } from './close-housekeeping.js';
import { deductInventory } from './inventory-deduction.js';
import { archiveAccounts, type ClosingShift } from './shift-archive.js';

interface Shift extends ClosingShift {
  cajero: string;
  workspaceId: string | null;
}

/**
 * Locks the shift's row and checks it is open and is the one asked for. A close is asked for at
 * the shift's own station or at a terminal that sells on it (SR closes shift 894 of DESKTOP-1601QUU
 * from DESKTOP-7, whose `cajacomandero` names it: shift-close rows 13-14).
 */
async function lockShift(ctx: PosContext, input: { idTurno: number; idEmpresa: string }, station: Station): Promise<Shift> {
  const hasWorkspace = ctx.schema.has('turnos', 'WorkspaceId');
  const row = await ctx.db
    .selectFrom('turnos')
    .select(['idturnointerno', 'idturno', 'idestacion', 'idempresa', 'apertura', 'cierre', 'cajero'])
    .$if(hasWorkspace, (q) => q.select('WorkspaceId'))
    .where('idturno', '=', input.idTurno)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new PosError('shift_not_found', `There is no shift ${input.idTurno}.`, { idTurno: input.idTurno });
  const shift = {
    idturnointerno: Number(row.idturnointerno),
    idTurno: input.idTurno,
    estacion: text(row.idestacion) ?? '',
    idEmpresa: text(row.idempresa) ?? '',
    cajero: text(row.cajero) ?? '',
    workspaceId: (row as { WorkspaceId?: string | null }).WorkspaceId ?? null,
  };
  if ((!sameKey(station.id, shift.estacion) && !sameKey(station.shiftStation, shift.estacion)) || !sameKey(shift.idEmpresa, input.idEmpresa)) {
    throw new PosError('shift_mismatch', `Shift ${input.idTurno} belongs to station ${shift.estacion} and company ${shift.idEmpresa}.`, {
      estacion: shift.estacion,
      idEmpresa: shift.idEmpresa,
    });
  }
  if (row.cierre !== null) throw new PosError('shift_not_open', `Shift ${input.idTurno} was already closed.`, { cierre: localIso(row.cierre) });
  refuseCloseBeforeOpening(ctx, row.apertura);
  return shift;
}

/**
 * SR's terminals write their own clocks: one running ahead of this server can open a shift that,
 * by this clock, has not opened yet. Its close would be recorded before its opening, a period no
 * sale falls in, so it is refused as an opening behind a recorded shift is (shifts.ts), in whole
 * seconds as the agent writes its times.
 */
function refuseCloseBeforeOpening(ctx: PosContext, apertura: Date | null): void {
  if (!(apertura instanceof Date) || Math.floor(apertura.getTime() / 1000) * 1000 <= ctx.now.getTime()) return;
  throw new PosError('clock_behind_last_close', `The clock (${localIso(ctx.now)}) is behind the shift's opening at ${localIso(apertura)}.`, {
    at: localIso(apertura),
  });
}

/**
 * `configuracion.nopermitircerrarturnocuentasabiertas`: SR looks for open accounts across the
 * whole database, whatever their station, and counts a paid account never printed as open
 * (rows 31-33).
 */
async function refuseOpenAccounts(ctx: PosContext): Promise<void> {
  const open = await ctx.db
    .selectFrom('tempcheques')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where((eb) => eb.or([eb.and([eb('pagado', '=', false), eb('cancelado', '=', false)]), eb.and([eb('pagado', '=', true), eb('cierre', 'is', null)])]))
    .executeTakeFirstOrThrow();
  if (Number(open.n) > 0) {
    throw new PosError('open_accounts_remaining', `This branch does not close a shift while ${open.n} account(s) are open.`, { openAccounts: Number(open.n) });
  }
}

/**
 * What SR reads before its close writes anything, about the shift's own accounts: a check
 * printed (handed to the guest) but not paid (row 66), which the close would leave out of the
 * cash cut; and lines of products no longer in the catalogue (row 29), whose sales SR's reports
 * and stock could not name. We refuse the close for either, saying which; SR's answer to them is
 * not in the traces (it found none).
 */
async function refuseUnsettled(ctx: PosContext, shift: Shift): Promise<void> {
  const printed = await ctx.db
    .selectFrom('tempcheques')
    .select('folio')
    .where('idturno', '=', shift.idTurno)
    .where('impreso', '=', true)
    .where('pagado', '=', false)
    .where('cancelado', '=', false)
    .orderBy('folio')
    .execute();
  if (printed.length > 0) {
    const folios = printed.map((p) => Number(p.folio));
    throw new PosError('printed_accounts_unpaid', `Shift ${shift.idTurno} has printed accounts not paid: ${folios.join(', ')}.`, { folios });
  }
  const orphans = await ctx.db
    .selectFrom('tempcheqdet as d')
    .innerJoin('tempcheques as h', 'h.folio', 'd.foliodet')
    .select(['d.foliodet', 'd.idproducto'])
    .where('h.idturno', '=', shift.idTurno)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('productos as p').select('p.idproducto').whereRef('p.idproducto', '=', 'd.idproducto'))))
    .orderBy('d.foliodet')
    .execute();
  if (orphans.length > 0) {
    const lines = orphans.map((o) => ({ folio: Number(o.foliodet), idProducto: text(o.idproducto) ?? '' }));
    throw new PosError('products_not_in_catalogue', `Shift ${shift.idTurno} sold products that are no longer in the catalogue.`, { lines });
  }
}

/**
 * The shift's row: its close time and, in its cash columns, what the cashier declared (0 for
 * what was not, row 95). Then SR's processed marks (rows 112, 124).
 */
async function closeShiftRow(ctx: PosContext, shift: Shift, declared: TenderAmounts): Promise<void> {
  await ctx.db
    .updateTable('turnos')
    .set(
      ctx.schema.fitRow('turnos', {
        cierre: ctx.now,
        ...Object.fromEntries(TENDERS.map((t) => [t, declared[t].toDecimalPlaces(4).toFixed(4)])),
        corte_enviado: false,
        eliminartemporalesencierre: true,
      }),
    )
    .where('idturnointerno', '=', shift.idturnointerno)
    .execute();
  if (ctx.schema.has('turnos', 'procesado')) {
    await ctx.db.updateTable('turnos').set({ procesado: true }).where('cierre', 'is not', null).where('procesado', '=', false).execute();
  }
}

/** The series the close restarts (row 96): the one asked for, or the shift's station's. */
async function resetSeries(ctx: PosContext, shift: Shift, serie: string | undefined): Promise<void> {
  const series = serie ?? (await stationOf(ctx, shift.estacion)).serie;
  const reset = await ctx.db.updateTable('folios').set({ ultimaorden: 0, ultimofolioproduccion: 0 }).where('serie', '=', series).executeTakeFirst();
  // A series named that the branch does not have would leave the real one counting on into the
  // next shift, unnoticed; a station's own series may be none at all.
  if (serie !== undefined && Number(reset.numUpdatedRows) === 0) {
    throw new PosError('series_not_found', 'The branch has no folio series (folios) by the name in serie.', { field: 'serie' });
  }
  if (ctx.schema.has('parametros', 'ultimofolioimprimirformatoconcuenta')) {
    await ctx.db.updateTable('parametros').set({ ultimofolioimprimirformatoconcuenta: 0 }).execute();
  }
}

/**
 * After the commit, as SR does (rows 136-137): a `tempcheques` left empty is reseeded to 0. The
 * table is held while it is found empty and reseeded, so a terminal opening an account meanwhile
 * waits.
 */
async function reseedEmptyAccounts(db: PosDb): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockTable(trx, 'tempcheques');
    const left = await trx
      .selectFrom('tempcheques')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    if (Number(left.n) === 0) await reseedIdentity(trx, 'tempcheques', 'folio', 0);
  });
}

export const closeShift = implement(ops.closeShift, async (ctx, input) => {
  const station = await requireStation(ctx, input.estacion);
  const shift = await lockShift(ctx, input, station);
  const settings = await readSettings(ctx);
  await refuseUnsettled(ctx, shift);
  if (settings.forbidCloseWithOpenAccounts) await refuseOpenAccounts(ctx);

  const archived = await archiveAccounts(ctx, shift);
  const declared = await recordDeclaration(ctx, shift, input.declaracion ?? []);
  await closeShiftRow(ctx, shift, declared);
  await resetSeries(ctx, shift, input.serie);
  await closeHousekeeping(ctx);
  // SR's audit entries name the user at the terminal and the terminal itself (row 229); the
  // trace's user is the shift's cashier (order-lifecycle row 34).
  if (!settings.noInventoryDeduction) await deductInventory(ctx, shift, archived, { usuario: shift.cajero || API_USER, estacion: station.id });
  if (shift.workspaceId) await markForSync(ctx, SYNC_ENTITY_SHIFT, shift.workspaceId, SYNC_UPDATE);
  ctx.afterCommit?.(reseedEmptyAccounts);

  const takings = (await shiftTakings(ctx, [shift.idTurno])).get(shift.idTurno)!;
  return {
    idTurno: shift.idTurno,
    cierre: localIso(ctx.now)!,
    migratedCheques: archived.count,
    efectivo: amount(takings.efectivo.toFixed()),
    tarjeta: amount(takings.tarjeta.toFixed()),
    vales: amount(takings.vales.toFixed()),
    credito: amount(takings.credito.toFixed()),
  };
});
