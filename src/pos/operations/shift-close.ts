/**
 * Closing a shift ("corte"), in one transaction: the shift's paid and cancelled accounts move
 * from the temp tables to the history tables (new folios, the old one kept in
 * `cheques.foliotempcheques`), the temp rows go, tables are freed, the shift gets its close
 * time and tender totals, and the order counters restart. Open accounts stay where they are.
 *
 * Every copy is one INSERT … SELECT, so the work is a fixed number of statements whatever the
 * shift holds. What is deleted is exactly what was copied (found again through
 * `foliotempcheques`), so an account a terminal pays while the close runs is never lost.
 */
import type { ExpressionBuilder } from 'kysely';
import { PosError } from '../../protocol/errors.js';
import * as ops from '../../protocol/operations/shifts.js';
import type { PosContext } from '../context.js';
import { implement } from '../operation.js';
import type { PosDatabase, PosTable } from '../schema.js';
import { readSettings } from '../settings.js';
import { Dec } from '../totals.js';
import { dec, int, localIso, text } from '../values.js';

/** `formasdepago.tipo` → the shift total it adds to. */
const TENDER = { 1: 'efectivo', 2: 'tarjeta', 3: 'vales', 4: 'credito' } as const;

interface Shift {
  idturnointerno: number;
  idTurno: number;
  estacion: string;
  idEmpresa: string;
}

async function lockShift(ctx: PosContext, input: { idTurno: number; estacion: string; idEmpresa: string }): Promise<Shift> {
  const row = await ctx.db
    .selectFrom('turnos')
    .select(['idturnointerno', 'idturno', 'idestacion', 'idempresa', 'cierre'])
    .where('idturno', '=', input.idTurno)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new PosError('shift_not_found', `There is no shift ${input.idTurno}.`, { idTurno: input.idTurno });
  const shift = { idturnointerno: Number(row.idturnointerno), idTurno: input.idTurno, estacion: text(row.idestacion) ?? '', idEmpresa: text(row.idempresa) ?? '' };
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
 * Accounts no shift holds take this shift before anything is copied: a quick sale paid while no
 * shift was open at its station waits on shift 0 (the seed's `turnDependent: false`), and an
 * account cancelled before it was ever paid keeps 0. Soft Restaurant's own close takes the
 * shift-less accounts of its station the same way (shift-close row 75). Without this, such a
 * sale would be in no cash cut and never reach the history tables.
 */
async function adoptShiftless(ctx: PosContext, shift: Shift): Promise<void> {
  await ctx.db
    .updateTable('tempcheques')
    .set({ idturno: shift.idTurno })
    .where((eb) => eb.or([eb('idturno', '=', 0), eb('idturno', 'is', null)]))
    .where((eb) => eb.or([eb('pagado', '=', true), eb('cancelado', '=', true)]))
    .where('estacion', '=', shift.estacion)
    .where('idempresa', '=', shift.idEmpresa)
    .execute();
}

/** The accounts this close moves: paid or cancelled in the shift (shift-close row 76). */
function closing(shift: Shift) {
  return (eb: ExpressionBuilder<PosDatabase, 'tempcheques'>) =>
    eb.and([eb('tempcheques.idturno', '=', shift.idTurno), eb.or([eb('tempcheques.pagado', '=', true), eb('tempcheques.cancelado', '=', true)])]);
}

// Kysely cannot type column lists known only at run time; the names come from the installed schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/**
 * Copies the closing accounts' headers into `cheques`, tagged with the shift; returns how many,
 * counted in `cheques` rather than taken from the driver's row count, which on SQL Server also
 * counts what triggers on the table write.
 */
async function copyHeaders(ctx: PosContext, shift: Shift): Promise<number> {
  const columns = ctx.schema.sharedColumns('tempcheques', 'cheques', ['folio', 'idturno', 'foliotempcheques']);
  await ctx.db
    .insertInto('cheques')
    .columns([...columns, 'idturno', 'foliotempcheques'] as Loose)
    .expression(
      (ctx.db.selectFrom('tempcheques') as Loose)
        .select((eb: Loose) => [...columns.map((c) => eb.ref(`tempcheques.${c}`)), eb.cast(eb.val(shift.idTurno), 'bigint').as('idturno'), eb.ref('tempcheques.folio').as('foliotempcheques')])
        .where(closing(shift)),
    )
    .execute();
  const copied = await ctx.db.selectFrom('cheques').select((eb) => eb.fn.countAll().as('n')).where('idturno', '=', shift.idTurno).executeTakeFirstOrThrow();
  return Number(copied.n);
}

/**
 * Copies the rows of a child table of the moved accounts, pointing them at the new folio and
 * the closing shift.
 */
async function copyChildren(ctx: PosContext, shift: Shift, from: PosTable, to: PosTable, folioColumn: string): Promise<void> {
  const closeColumn = ctx.schema.has(to, 'idturno_cierre') ? ['idturno_cierre'] : [];
  const columns = ctx.schema.sharedColumns(from, to, [folioColumn, ...closeColumn]);
  await ctx.db
    .insertInto(to as Loose)
    .columns([...columns, folioColumn, ...closeColumn])
    .expression(
      (ctx.db.selectFrom(`${from} as src` as Loose) as Loose)
        .innerJoin('cheques as c', 'c.foliotempcheques', `src.${folioColumn}`)
        .select((eb: Loose) => [
          ...columns.map((c) => eb.ref(`src.${c}`)),
          eb.ref('c.folio').as(folioColumn),
          ...closeColumn.map((c) => eb.cast(eb.val(shift.idTurno), 'bigint').as(c)),
        ])
        .where('c.idturno', '=', shift.idTurno),
    )
    .execute();
}

/** Deletes the temp rows of exactly the accounts that were copied. */
async function deleteCopied(ctx: PosContext, shift: Shift, table: PosTable, folioColumn: string): Promise<void> {
  await (ctx.db.deleteFrom(table as Loose) as Loose).where(folioColumn, 'in', copiedFolios(ctx, shift)).execute();
}

function copiedFolios(ctx: PosContext, shift: Shift) {
  return ctx.db.selectFrom('cheques').select('foliotempcheques').where('idturno', '=', shift.idTurno);
}

async function freeTables(ctx: PosContext, shift: Shift): Promise<void> {
  await ctx.db.updateTable('mesasasignadas').set({ activo: 0 }).where('folio', 'in', copiedFolios(ctx, shift)).execute();
  // A table stays occupied while an account that is still open sits at it.
  await ctx.db
    .updateTable('mesas')
    .set({ estatus_ocupacion: 0 })
    .where('idmesa', 'in', ctx.db.selectFrom('cheques').select('mesa').where('idturno', '=', shift.idTurno).where('mesa', 'is not', null))
    .where(
      'idmesa',
      'not in',
      ctx.db.selectFrom('tempcheques').select('mesa').where('mesa', 'is not', null).where('pagado', '=', false).where('cancelado', '=', false),
    )
    .execute();
}

async function tenderTotals(ctx: PosContext, shift: Shift): Promise<Record<(typeof TENDER)[keyof typeof TENDER], string>> {
  const rows = await ctx.db
    .selectFrom('chequespagos as p')
    .innerJoin('cheques as c', 'c.folio', 'p.folio')
    .innerJoin('formasdepago as f', 'f.idformadepago', 'p.idformadepago')
    .select((eb) => ['f.tipo', eb.fn.sum<string | number>('p.importe').as('importe')])
    .where('c.idturno', '=', shift.idTurno)
    .where('c.pagado', '=', true)
    .where('c.cancelado', '=', false)
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

export const closeShift = implement(ops.closeShift, async (ctx, input) => {
  const shift = await lockShift(ctx, input);
  const settings = await readSettings(ctx.db);
  if (settings.forbidCloseWithOpenAccounts) {
    const open = await ctx.db
      .selectFrom('tempcheques')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('pagado', '=', false)
      .where('cancelado', '=', false)
      .where('estacion', '=', shift.estacion)
      .where('idempresa', '=', shift.idEmpresa)
      .executeTakeFirstOrThrow();
    if (Number(open.n) > 0) {
      throw new PosError('open_accounts_remaining', `This branch does not close a shift while ${open.n} account(s) are open at station ${shift.estacion}.`, {
        openAccounts: Number(open.n),
      });
    }
  }

  await adoptShiftless(ctx, shift);
  const migratedCheques = await copyHeaders(ctx, shift);
  await copyChildren(ctx, shift, 'tempcheqdet', 'cheqdet', 'foliodet');
  await copyChildren(ctx, shift, 'tempchequespagos', 'chequespagos', 'folio');
  await copyChildren(ctx, shift, 'tempcancela', 'cancela', 'foliocheque');
  await copyChildren(ctx, shift, 'tempfoliosfacturados', 'foliosfacturados', 'folio');
  await ctx.db.updateTable('productosenproduccion').set({ idturno_cierre: shift.idTurno }).where('folio', 'in', copiedFolios(ctx, shift)).execute();
  await freeTables(ctx, shift);
  for (const [table, column] of [
    ['tempcheqdet', 'foliodet'],
    ['tempchequespagos', 'folio'],
    ['tempcancela', 'foliocheque'],
    ['tempfoliosfacturados', 'folio'],
    ['tempcheques', 'folio'],
  ] as const) {
    await deleteCopied(ctx, shift, table, column);
  }

  const tenders = await tenderTotals(ctx, shift);
  await ctx.db
    .updateTable('turnos')
    .set({ cierre: ctx.now, ...tenders })
    .where('idturnointerno', '=', shift.idturnointerno)
    .execute();
  let counters = ctx.db.updateTable('folios').set({ ultimaorden: 0, ultimofolioproduccion: 0 });
  if (input.serie !== undefined) counters = counters.where('serie', '=', input.serie);
  await counters.execute();

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
