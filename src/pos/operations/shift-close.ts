/**
 * Closing a shift ("corte") as Soft Restaurant does it (sr-traces/shift-close-flow.tsv), in one
 * transaction where SR uses several:
 * - the shift's paid and cancelled accounts move from the temporary tables to the history
 *   tables, with every side table SR archives (rows 76-88), pointed at their new folios, the old
 *   one kept in `cheques.foliotempcheques`, marked processed (100-110);
 * - their tables are freed, their table assignments and kitchen rows go (89-94);
 * - the shift gets its close time and the cash the cashier declared (95, 112, 124), and its
 *   station's series restarts its order and production counters (96-97);
 * - the recipe of every product sold is queued for deduction from stock (127-133), with SR's
 *   audit entry (229) and National Soft's sync mark (245-247);
 * - the temporary rows of the moved accounts go (113-123).
 * After the commit, as SR does outside its transactions, the identities of `cheques` and of an
 * empty `tempcheques` are reseeded (69-70, 136-137).
 *
 * Every copy is one INSERT … SELECT, so the work is a fixed number of statements whatever the
 * shift holds. What is deleted is exactly what was copied (found again through
 * `foliotempcheques`), so an account a terminal pays while the close runs is never lost.
 */
import { sql, type Kysely } from 'kysely';
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/shifts.js';
import { logEvent } from '../audit.js';
import type { PosContext } from '../context.js';
import { lockTable, reseedIdentity } from '../sql-dialect.js';
import { implement } from '../operation.js';
import type { PosDb, PosTable } from '../schema.js';
import { readSettings } from '../settings.js';
import { stationOf, terminalsOf } from '../stations.js';
import { markForSync, SYNC_ENTITY_SHIFT, SYNC_UPDATE } from '../sync-marks.js';
import { Dec } from '../totals.js';
import { dec, int, localIso, text } from '../values.js';
import { API_USER } from './account.js';
import { queueInventoryDeduction } from './inventory-deduction.js';

/** `formasdepago.tipo` → the shift total it adds to. */
const TENDER = { 1: 'efectivo', 2: 'tarjeta', 3: 'vales', 4: 'credito' } as const;
type Tender = (typeof TENDER)[keyof typeof TENDER];

interface Shift {
  idturnointerno: number;
  idTurno: number;
  estacion: string;
  idEmpresa: string;
  workspaceId: string | null;
}

async function lockShift(ctx: PosContext, input: { idTurno: number; estacion: string; idEmpresa: string }): Promise<Shift> {
  const hasWorkspace = ctx.schema.has('turnos', 'WorkspaceId');
  const row = await ctx.db
    .selectFrom('turnos')
    .select(['idturnointerno', 'idturno', 'idestacion', 'idempresa', 'cierre'])
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
    workspaceId: (row as { WorkspaceId?: string | null }).WorkspaceId ?? null,
  };
  if (shift.estacion !== input.estacion || shift.idEmpresa !== input.idEmpresa) {
    throw new PosError('shift_mismatch', `Shift ${input.idTurno} belongs to station ${shift.estacion} and company ${shift.idEmpresa}.`, {
      estacion: shift.estacion,
      idEmpresa: shift.idEmpresa,
    });
  }
  if (row.cierre !== null) throw new PosError('shift_not_open', `Shift ${input.idTurno} was already closed.`, { cierre: localIso(row.cierre) });
  return shift;
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
 * Accounts no shift holds take this shift before anything is copied: a quick sale paid while no
 * shift was open waits on shift 0 (the seed's `turnDependent: false`), and an account cancelled
 * before it was ever paid keeps 0. SR's own close takes the shift-less accounts of its station
 * the same way (row 75); here those of the station and of the terminals that sell on its shift.
 * Without this, such a sale would be in no cash cut and never reach the history tables.
 */
async function adoptShiftless(ctx: PosContext, shift: Shift): Promise<void> {
  await ctx.db
    .updateTable('tempcheques')
    .set({ idturno: shift.idTurno })
    .where((eb) => eb.or([eb('idturno', '=', 0), eb('idturno', 'is', null)]))
    .where((eb) => eb.or([eb('pagado', '=', true), eb('cancelado', '=', true)]))
    .where((eb) => eb.or([eb('estacion', '=', shift.estacion), eb('estacion', 'in', terminalsOf(ctx, shift.estacion))]))
    .where('idempresa', '=', shift.idEmpresa)
    .execute();
}

/**
 * The POS seen with tables and columns known only at run time: the column lists below come from
 * the installed schema (SR versions differ), which Kysely's types cannot know.
 */
type LooseDb = Kysely<Record<string, Record<string, unknown>>>;
const loose = (ctx: PosContext) => ctx.db as unknown as LooseDb;

/**
 * Copies the closing accounts' headers into `cheques`, tagged with the shift; returns how many,
 * counted in `cheques` rather than taken from the driver's row count, which on SQL Server also
 * counts what triggers on the table write. The accounts copied: paid or cancelled in the shift (row 76).
 */
async function copyHeaders(ctx: PosContext, shift: Shift): Promise<number> {
  const columns = ctx.schema.sharedColumns('tempcheques', 'cheques', ['folio', 'idturno', 'foliotempcheques']);
  const db = loose(ctx);
  await db
    .insertInto('cheques')
    .columns([...columns, 'idturno', 'foliotempcheques'])
    .expression(
      db
        .selectFrom('tempcheques')
        .select((eb) => [
          ...columns.map((c) => `tempcheques.${c}` as const),
          eb.cast(eb.val(shift.idTurno), 'bigint').as('idturno'),
          eb.ref('tempcheques.folio').as('foliotempcheques'),
        ])
        .where((eb) =>
          eb.and([eb('tempcheques.idturno', '=', shift.idTurno), eb.or([eb('tempcheques.pagado', '=', true), eb('tempcheques.cancelado', '=', true)])]),
        ),
    )
    .execute();
  const copied = await ctx.db
    .selectFrom('cheques')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('idturno', '=', shift.idTurno)
    .executeTakeFirstOrThrow();
  return Number(copied.n);
}

/** The side tables of an account that a close archives (rows 80-88), each with the column naming the account. */
const ARCHIVED: ReadonlyArray<readonly [from: PosTable, to: PosTable, folioColumn: string]> = [
  ['tempcheqdet', 'cheqdet', 'foliodet'],
  ['tempchequespagos', 'chequespagos', 'folio'],
  ['tempcancela', 'cancela', 'foliocheque'],
  ['tempcheqpedidos', 'cheqpedidos', 'foliocheque'],
  ['tempbitacoratarjetacredito', 'bitacoratarjetacredito', 'folio'],
  ['tempbitacoraeasygoband', 'bitacoraeasygoband', 'folio'],
  ['tempnumerostarjetas', 'numerostarjetas', 'foliocuenta'],
  ['tempfoliosfacturados', 'foliosfacturados', 'folio'],
];

/**
 * Copies the rows of a side table of the moved accounts, pointed at the new folio, tagged with
 * the closing shift and processed: the state SR's copy (rows 80-88) and its repointing (101-110)
 * leave together.
 */
async function copyChildren(ctx: PosContext, shift: Shift, from: PosTable, to: PosTable, folioColumn: string): Promise<void> {
  const marks = (['idturno_cierre', 'procesado'] as const).filter((c) => ctx.schema.has(to, c));
  const columns = ctx.schema.sharedColumns(from, to, [folioColumn, ...marks]);
  const db = loose(ctx);
  await db
    .insertInto(to)
    .columns([...columns, folioColumn, ...marks])
    .expression(
      db
        .selectFrom(`${from} as src`)
        .innerJoin('cheques as c', 'c.foliotempcheques', `src.${folioColumn}`)
        .select((eb) => [
          ...columns.map((c) => `src.${c}` as const),
          eb.ref('c.folio').as(folioColumn),
          ...marks.map((c) => (c === 'procesado' ? eb.cast(eb.val(true), 'boolean') : eb.cast(eb.val(shift.idTurno), 'bigint')).as(c)),
        ])
        .where('c.idturno', '=', shift.idTurno),
    )
    .execute();
}

function copiedFolios(ctx: PosContext, shift: Shift) {
  return ctx.db.selectFrom('cheques').select('foliotempcheques').where('idturno', '=', shift.idTurno);
}

/** Invoice lines of the moved accounts follow them to their new folios (row 100). */
async function repointInvoiceLines(ctx: PosContext, shift: Shift): Promise<void> {
  if (!ctx.schema.has('facturasmovtos', 'foliodet')) return;
  await ctx.db
    .updateTable('facturasmovtos')
    .set((eb) => ({
      foliodet: eb
        .selectFrom('cheques as c')
        .select('c.folio')
        .whereRef('c.foliotempcheques', '=', 'facturasmovtos.foliodet')
        .where('c.idturno', '=', shift.idTurno),
    }))
    .where('foliodet', 'in', copiedFolios(ctx, shift))
    .where('idfactura', 'in', ctx.db.selectFrom('foliosfacturados as ff').select('ff.idfactura').where('ff.idturno_cierre', '=', shift.idTurno))
    .execute();
}

/**
 * The moved accounts' tables are freed and their table assignments and kitchen rows deleted
 * (rows 89-94); then every table no active assignment holds is free (row 91).
 */
async function releaseTables(ctx: PosContext, shift: Shift): Promise<void> {
  await ctx.db
    .updateTable('mesas')
    .set({ estatus_ocupacion: 0 })
    .where('idmesa', 'in', ctx.db.selectFrom('mesasasignadas').select('idmesa').where('folio', 'in', copiedFolios(ctx, shift)).where('activo', '=', 1))
    .execute();
  await ctx.db.deleteFrom('mesasasignadas').where('folio', 'in', copiedFolios(ctx, shift)).execute();
  await ctx.db
    .updateTable('mesas')
    .set({ estatus_ocupacion: 0 })
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('mesasasignadas as ma').select('ma.idmesa').whereRef('ma.idmesa', '=', 'mesas.idmesa').where('ma.activo', '=', 1))),
    )
    .execute();
  await ctx.db.deleteFrom('productosenproduccion').where('folio', 'in', copiedFolios(ctx, shift)).execute();
}

/** Deletes the temp rows of exactly the accounts that were copied (rows 113-123). */
async function deleteCopied(ctx: PosContext, shift: Shift): Promise<void> {
  for (const [table, , column] of ARCHIVED) {
    if (ctx.schema.hasTable(table)) await loose(ctx).deleteFrom(table).where(column, 'in', copiedFolios(ctx, shift)).execute();
  }
  await ctx.db.deleteFrom('tempcheques').where('folio', 'in', copiedFolios(ctx, shift)).execute();
}

/**
 * What the shift took, by tender, as SR's cash cut adds it up (rows 195-198): each payment's
 * amount and tip in its own currency times its exchange rate, over the paid, not cancelled
 * accounts.
 */
async function tenderTotals(ctx: PosContext, shift: Shift): Promise<Record<Tender, string>> {
  const rows = await ctx.db
    .selectFrom('chequespagos as p')
    .innerJoin('cheques as c', 'c.folio', 'p.folio')
    .innerJoin('formasdepago as f', 'f.idformadepago', 'p.idformadepago')
    .select((eb) => [
      'f.tipo',
      eb.fn
        .sum<string | number>(sql`(coalesce(${eb.ref('p.importe')}, 0) + coalesce(${eb.ref('p.propina')}, 0)) * coalesce(${eb.ref('p.tipodecambio')}, 1)`)
        .as('importe'),
    ])
    .where('c.idturno', '=', shift.idTurno)
    .where('c.pagado', '=', true)
    .where((eb) => eb.or([eb('c.cancelado', '=', false), eb('c.cancelado', 'is', null)]))
    .groupBy('f.tipo')
    .execute();
  const totals = { efectivo: new Dec(0), tarjeta: new Dec(0), vales: new Dec(0), credito: new Dec(0) };
  for (const r of rows) {
    // Unknown tender types count as credit/other, as SR's own bucket 4 does.
    const bucket = TENDER[int(r.tipo) as keyof typeof TENDER] ?? 'credito';
    totals[bucket] = totals[bucket].plus(dec(r.importe));
  }
  return { efectivo: totals.efectivo.toFixed(2), tarjeta: totals.tarjeta.toFixed(2), vales: totals.vales.toFixed(2), credito: totals.credito.toFixed(2) };
}

/**
 * The shift's row: its close time, and in the cash columns what the cashier declared, 0 for
 * what was not declared (row 95); SR's cash cut compares them with the payments. Then SR's
 * processed marks (rows 112, 124).
 */
async function closeShiftRow(ctx: PosContext, shift: Shift, declared: Partial<Record<Tender, number>>): Promise<void> {
  const cash = (t: Tender) => new Dec(declared[t] ?? 0).toFixed(2);
  await ctx.db
    .updateTable('turnos')
    .set(
      ctx.schema.fitRow('turnos', {
        cierre: ctx.now,
        efectivo: cash('efectivo'),
        tarjeta: cash('tarjeta'),
        vales: cash('vales'),
        credito: cash('credito'),
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
  await ctx.db.updateTable('folios').set({ ultimaorden: 0, ultimofolioproduccion: 0 }).where('serie', '=', series).execute();
  if (ctx.schema.has('parametros', 'ultimofolioimprimirformatoconcuenta')) {
    await ctx.db.updateTable('parametros').set({ ultimofolioimprimirformatoconcuenta: 0 }).execute();
  }
}

/**
 * After the commit, as SR does (rows 69-70, 136-137): `cheques`' identity continues from its
 * highest folio, and an empty `tempcheques` numbers its next account 1 again. The table is held
 * while it is found empty and reseeded, so a terminal opening an account meanwhile waits.
 */
async function reseedIdentities(db: PosDb): Promise<void> {
  const top = await db
    .selectFrom('cheques')
    .select((eb) => eb.fn.max('folio').as('folio'))
    .executeTakeFirst();
  await reseedIdentity(db, 'cheques', 'folio', Number(top?.folio ?? 0));
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
  const shift = await lockShift(ctx, input);
  const settings = await readSettings(ctx);
  if (settings.forbidCloseWithOpenAccounts) await refuseOpenAccounts(ctx);

  await adoptShiftless(ctx, shift);
  const migratedCheques = await copyHeaders(ctx, shift);
  for (const [from, to, folioColumn] of ARCHIVED) {
    if (ctx.schema.hasTable(from) && ctx.schema.hasTable(to)) await copyChildren(ctx, shift, from, to, folioColumn);
  }
  await repointInvoiceLines(ctx, shift);
  await releaseTables(ctx, shift);
  await deleteCopied(ctx, shift);

  const tenders = await tenderTotals(ctx, shift);
  await closeShiftRow(ctx, shift, input.declaracion ?? {});
  await resetSeries(ctx, shift, input.serie);
  if (!settings.noInventoryDeduction) await queueInventoryDeduction(ctx, shift.idTurno);
  await logEvent(ctx, {
    usuario: API_USER,
    evento: 'Aplicando Insumos pendientes por descargar',
    valores: `Turno: ${shift.idTurno}`,
    estacion: shift.estacion,
    idempresa: shift.idEmpresa,
  });
  if (shift.workspaceId) await markForSync(ctx, SYNC_ENTITY_SHIFT, shift.workspaceId, SYNC_UPDATE);
  ctx.afterCommit?.(reseedIdentities);

  return {
    idTurno: shift.idTurno,
    cierre: localIso(ctx.now)!,
    migratedCheques,
    efectivo: Number(tenders.efectivo),
    tarjeta: Number(tenders.tarjeta),
    vales: Number(tenders.vales),
    credito: Number(tenders.credito),
  };
});
