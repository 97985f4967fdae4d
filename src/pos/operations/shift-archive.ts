/**
 * The part of a shift close that moves its accounts to history, as Soft Restaurant does
 * (sr-traces/shift-close-flow.tsv): `cheques`' identity reseeded after its highest folio (rows
 * 69-70); the shift's paid and cancelled accounts (and any a terminal paid into a closed shift of
 * the station's) copied with every side table SR archives (76-88), already pointed at their new
 * folios and processed (100-110); their tables freed and their table assignments and kitchen
 * rows deleted (89-94); their temporary rows deleted (113-123).
 *
 * Every copy is one INSERT … SELECT, so the work is a fixed number of statements whatever the
 * shift holds. What is deleted is exactly what was copied (found again through
 * `foliotempcheques`), so an account a terminal pays while the close runs is never lost.
 *
 * The copied accounts are found again as the `cheques` folios above the highest one before the
 * copy (`Archived`), not by their shift: `cheques` is held from before the copy to the commit, so
 * nothing else is above it; and the planner, whose statistics cannot yet know the shift being
 * closed, estimates a range of the key from the index itself. Found by shift, every later
 * statement was planned for one account and looped over the shift's thousands.
 */
import { sql } from 'kysely';
import type { PosContext } from '../context.js';
import { loosely, type PosTable } from '../schema.js';
import { lockTable, reseedIdentity } from '../sql-dialect.js';
import { terminalsOf } from '../stations.js';

export interface ClosingShift {
  idturnointerno: number;
  idTurno: number;
  /** The shift's own (cash) station. */
  estacion: string;
  idEmpresa: string;
}

/** The accounts a close copied to `cheques`: how many, and the folio they are all above. */
export interface Archived {
  count: number;
  folioAbove: number;
}

/** The copied accounts' `cheques` rows. */
export function archivedRows(ctx: PosContext, folioAbove: number) {
  return ctx.db.selectFrom('cheques').where('folio', '>', folioAbove);
}

/**
 * SR reseeds `cheques` after its highest folio before it copies anything into it (rows 69-70),
 * so an identity left behind (a restored backup) cannot make the copy collide with a folio in
 * use. The table is held until the close commits: another close copying meanwhile would have
 * folios above the highest one this close can see, and the reseed would hand them out again.
 * Returns the folio every copied account is above (-1 for an empty table, whose next may be 0).
 */
async function reseedHistory(ctx: PosContext): Promise<number> {
  await lockTable(ctx.db, 'cheques');
  const top = await ctx.db
    .selectFrom('cheques')
    .select((eb) => eb.fn.max('folio').as('folio'))
    .executeTakeFirst();
  const highest = top?.folio === null || top?.folio === undefined ? undefined : Number(top.folio);
  await reseedIdentity(ctx.db, 'cheques', 'folio', highest ?? 0);
  return highest ?? -1;
}

/**
 * Accounts no shift holds take this shift before anything is copied: a quick sale paid while no
 * shift was open waits on shift 0 (the seed's `turnDependent: false`), and an account cancelled
 * before it was ever paid keeps 0. SR's close does the same for a narrower set (row 75: `idturno`
 * NULL, paid and cancelled call-centre accounts of its terminal); here the paid or cancelled
 * accounts of the station and of the terminals that sell on its shift. Without this, such a sale
 * would be in no cash cut and never reach the history tables.
 */
async function adoptShiftless(ctx: PosContext, shift: ClosingShift): Promise<void> {
  const stations = [shift.estacion, ...(await terminalsOf(ctx, shift.estacion))];
  await ctx.db
    .updateTable('tempcheques')
    .set({ idturno: shift.idTurno })
    .where((eb) => eb.or([eb('idturno', '=', 0), eb('idturno', 'is', null)]))
    .where((eb) => eb.or([eb('pagado', '=', true), eb('cancelado', '=', true)]))
    .where('estacion', 'in', stations)
    .where('idempresa', '=', shift.idEmpresa)
    .execute();
}

/**
 * The station's shifts closed before this one. A terminal reads the open shift before its
 * payment's transaction (order-lifecycle rows 510, 514) and holds no lock on it, so it can pay
 * into the shift after the close copied it: left behind, the account stayed in the temporary
 * tables of a closed shift, which no later close moved (a probe: closed with 127.50 taken, 38.50
 * of it in history).
 */
function closedShiftsOf(ctx: PosContext, shift: ClosingShift) {
  return ctx.db
    .selectFrom('turnos')
    .select('idturno')
    .where('idestacion', '=', shift.estacion)
    .where('idempresa', '=', shift.idEmpresa)
    .where('cierre', 'is not', null);
}

/**
 * Copies the closing accounts' headers into `cheques`, each under its own shift; returns how
 * many, counted in `cheques` rather than taken from the driver's row count, which on SQL Server
 * also counts what triggers on the table write. The accounts copied: paid or cancelled in the
 * shift (row 76), and those left behind in the station's closed shifts (`closedShiftsOf`), but
 * none whose copy under its shift is there already: SR's close, in several transactions, can stop
 * between its copy and its deletes, and a second copy would be counted twice in the shift's cut.
 *
 * Their rows are held (UPDLOCK/FOR UPDATE) to the commit: the close deletes them later, and a
 * terminal's change in between went with them (a probe: a paid sale cancelled at a terminal after
 * the copy stayed paid in history, and its 89.00 in the cut).
 */
async function copyHeaders(ctx: PosContext, shift: ClosingShift, folioAbove: number): Promise<number> {
  const columns = ctx.schema.sharedColumns('tempcheques', 'cheques', ['folio', 'idturno', 'foliotempcheques']);
  const db = loosely(ctx.db);
  await db
    .insertInto('cheques')
    .columns([...columns, 'idturno', 'foliotempcheques'])
    .expression(
      db
        .selectFrom('tempcheques')
        .select((eb) => [...columns.map((c) => `tempcheques.${c}` as const), 'tempcheques.idturno', eb.ref('tempcheques.folio').as('foliotempcheques')])
        .where((eb) =>
          eb.and([
            eb.or([eb('tempcheques.idturno', '=', shift.idTurno), eb('tempcheques.idturno', 'in', closedShiftsOf(ctx, shift))]),
            eb.or([eb('tempcheques.pagado', '=', true), eb('tempcheques.cancelado', '=', true)]),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('cheques as c')
                  .select('c.folio')
                  .whereRef('c.foliotempcheques', '=', 'tempcheques.folio')
                  .whereRef('c.idturno', '=', 'tempcheques.idturno'),
              ),
            ),
          ]),
        )
        .forUpdate(),
    )
    .execute();
  const copied = await archivedRows(ctx, folioAbove)
    .select((eb) => eb.fn.countAll().as('n'))
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
 * the account's shift and processed: the state SR's copy (rows 80-88) and its repointing (101-110)
 * leave together. SR's repointing finds an account's rows by `idturno_cierre = cheques.idturno`,
 * so an account left in a closed shift carries that shift's number, not the closing one's.
 */
async function copyChildren(ctx: PosContext, folioAbove: number, from: PosTable, to: PosTable, folioColumn: string): Promise<void> {
  const marks = (['idturno_cierre', 'procesado'] as const).filter((c) => ctx.schema.has(to, c));
  const columns = ctx.schema.sharedColumns(from, to, [folioColumn, ...marks]);
  const db = loosely(ctx.db);
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
          ...marks.map((c) => (c === 'procesado' ? eb.cast(eb.val(true), 'boolean') : eb.ref('c.idturno')).as(c)),
        ])
        .where('c.folio', '>', folioAbove),
    )
    .execute();
}

function copiedFolios(ctx: PosContext, folioAbove: number) {
  return archivedRows(ctx, folioAbove).select('foliotempcheques');
}

/** Invoice lines of the moved accounts follow them to their new folios (row 100). */
async function repointInvoiceLines(ctx: PosContext, folioAbove: number): Promise<void> {
  if (!ctx.schema.has('facturasmovtos', 'foliodet')) return;
  await ctx.db
    .updateTable('facturasmovtos')
    .set((eb) => ({
      foliodet: eb
        .selectFrom('cheques as c')
        .select('c.folio')
        .whereRef('c.foliotempcheques', '=', 'facturasmovtos.foliodet')
        .where('c.folio', '>', folioAbove),
    }))
    .where('foliodet', 'in', copiedFolios(ctx, folioAbove))
    .where(
      'idfactura',
      'in',
      ctx.db.selectFrom('foliosfacturados as ff').select('ff.idfactura').where('ff.folio', 'in', archivedRows(ctx, folioAbove).select('folio')),
    )
    .execute();
}

/**
 * The moved accounts' tables are freed and their table assignments and kitchen rows deleted
 * (rows 89-90, 94); then every table no active assignment holds is free (row 91). SR then reads
 * every assignment (92) and frees every table (93): after row 91 that changes a table only if an
 * active assignment holds it, which we take 92 to rule out (else 91 would be pointless), so 93
 * is not repeated here.
 */
async function releaseTables(ctx: PosContext, folioAbove: number): Promise<void> {
  await ctx.db
    .updateTable('mesas')
    .set({ estatus_ocupacion: 0 })
    .where('idmesa', 'in', ctx.db.selectFrom('mesasasignadas').select('idmesa').where('folio', 'in', copiedFolios(ctx, folioAbove)).where('activo', '=', 1))
    .execute();
  await ctx.db.deleteFrom('mesasasignadas').where('folio', 'in', copiedFolios(ctx, folioAbove)).execute();
  await ctx.db
    .updateTable('mesas')
    .set({ estatus_ocupacion: 0 })
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('mesasasignadas as ma').select('ma.idmesa').whereRef('ma.idmesa', '=', 'mesas.idmesa').where('ma.activo', '=', 1))),
    )
    .execute();
  await ctx.db.deleteFrom('productosenproduccion').where('folio', 'in', copiedFolios(ctx, folioAbove)).execute();
}

/** Deletes the temp rows of exactly the accounts that were copied (rows 113-123): of the side tables in use. */
async function deleteCopied(ctx: PosContext, folioAbove: number, inUse: Set<PosTable>): Promise<void> {
  for (const [table, , column] of ARCHIVED) {
    if (inUse.has(table)) await loosely(ctx.db).deleteFrom(table).where(column, 'in', copiedFolios(ctx, folioAbove)).execute();
  }
  await ctx.db.deleteFrom('tempcheques').where('folio', 'in', copiedFolios(ctx, folioAbove)).execute();
}

/**
 * The installed side tables that hold rows of the copied accounts, asked in one statement: most
 * branches use few of them (no card terminal, no invoices), and a copy and a delete per unused
 * table would be two round trips each that write nothing. A table is first asked for any row, so
 * that an empty one costs no lookup of the shift's accounts in the history; then for one of the
 * copied accounts, found as the copy finds them.
 */
async function sideTablesInUse(ctx: PosContext, folioAbove: number): Promise<Set<PosTable>> {
  const installed = ARCHIVED.filter(([from]) => ctx.schema.hasTable(from));
  if (installed.length === 0) return new Set();
  const row = await loosely(ctx.db)
    .selectNoFrom((eb) =>
      installed.map(([from, , folioColumn]) =>
        eb
          .case()
          .when(
            eb.and([
              eb.exists(eb.selectFrom(from).select(sql.lit(1).as('one'))),
              eb.exists(
                eb
                  .selectFrom('cheques as c')
                  .innerJoin(`${from} as src`, `src.${folioColumn}`, 'c.foliotempcheques')
                  .select(sql.lit(1).as('one'))
                  .where('c.folio', '>', folioAbove),
              ),
            ]),
          )
          .then(1)
          .else(0)
          .end()
          .as(from),
      ),
    )
    .executeTakeFirstOrThrow();
  return new Set(installed.map(([from]) => from).filter((t) => Number((row as Record<string, unknown>)[t]) === 1));
}

/** Moves the shift's paid and cancelled accounts to the history tables. */
export async function archiveAccounts(ctx: PosContext, shift: ClosingShift): Promise<Archived> {
  const folioAbove = await reseedHistory(ctx);
  await adoptShiftless(ctx, shift);
  const count = await copyHeaders(ctx, shift, folioAbove);
  const inUse = await sideTablesInUse(ctx, folioAbove);
  for (const [from, to, folioColumn] of ARCHIVED) {
    if (inUse.has(from) && ctx.schema.hasTable(to)) await copyChildren(ctx, folioAbove, from, to, folioColumn);
  }
  await repointInvoiceLines(ctx, folioAbove);
  await releaseTables(ctx, folioAbove);
  await deleteCopied(ctx, folioAbove, inUse);
  return { count, folioAbove };
}
