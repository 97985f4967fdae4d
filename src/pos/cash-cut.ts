/**
 * A shift's cash cut ("corte") as Soft Restaurant adds it up, for any shift, open or closed:
 * what it took by tender, and what its cashier declared.
 */
import type { Decimal } from 'decimal.js';
import { sql } from 'kysely';
import type { PosContext } from './context.js';
import { Dec } from './totals.js';
import { dec, int } from './values.js';

/** The four tenders of `formasdepago.tipo` 1-4 (shift-close row 179), as `turnos` names its columns. */
export const TENDERS = ['efectivo', 'tarjeta', 'vales', 'credito'] as const;
export type Tender = (typeof TENDERS)[number];
export type TenderAmounts = Record<Tender, Decimal>;

/** The tender of a `formasdepago.tipo`; none for a value SR does not know. */
export function tenderOf(tipo: number | string | null | undefined): Tender | undefined {
  return TENDERS[Number(tipo) - 1];
}

export const noTakings = (): TenderAmounts => ({ efectivo: new Dec(0), tarjeta: new Dec(0), vales: new Dec(0), credito: new Dec(0) });

/** SQL Server takes at most 2,100 parameters per statement. */
const SHIFTS_PER_STATEMENT = 500;

/**
 * What each shift took, by tender: SR's own sum for a check, `SUM((importe+propina)*tipodecambio)`
 * of its payments by `formasdepago.tipo` (shift-close rows 195-198 on an archived check,
 * order-lifecycle 577-580 on an open one), over the shift's paid, not cancelled accounts. A
 * closed shift's accounts are in the history tables; an open shift's, still in the temporary
 * ones. An account that a close is moving is counted once: its temporary row is left out
 * once its history copy exists. Shifts without payments get zeros.
 */
export async function shiftTakings(ctx: Pick<PosContext, 'db'>, idTurnos: readonly number[]): Promise<Map<number, TenderAmounts>> {
  const out = new Map<number, TenderAmounts>(idTurnos.map((id) => [id, noTakings()]));
  for (let i = 0; i < idTurnos.length; i += SHIFTS_PER_STATEMENT) {
    const chunk = idTurnos.slice(i, i + SHIFTS_PER_STATEMENT);
    const open = takingsQuery(ctx, TEMP_TABLES, chunk).where((eb) =>
      eb.not(eb.exists(eb.selectFrom('cheques as c').select('c.folio').whereRef('c.foliotempcheques', '=', 'h.folio').whereRef('c.idturno', '=', 'h.idturno'))),
    );
    for (const row of await open.unionAll(takingsQuery(ctx, CLOSED_TABLES, chunk)).execute()) {
      const tender = tenderOf(row.tipo);
      const takings = out.get(int(row.idturno) ?? 0);
      if (tender && takings) takings[tender] = takings[tender].plus(dec(row.importe));
    }
  }
  return out;
}

const TEMP_TABLES = { header: 'tempcheques', payments: 'tempchequespagos' } as const;
const CLOSED_TABLES = { header: 'cheques', payments: 'chequespagos' } as const;

/** SR's sum per shift and tender over the paid, not cancelled accounts of one table set (both name these columns alike). */
function takingsQuery(ctx: Pick<PosContext, 'db'>, tables: typeof TEMP_TABLES | typeof CLOSED_TABLES, idTurnos: readonly number[]) {
  return ctx.db
    .selectFrom(`${tables.payments} as p` as 'tempchequespagos as p')
    .innerJoin(`${tables.header} as h` as 'tempcheques as h', 'h.folio', 'p.folio')
    .innerJoin('formasdepago as f', 'f.idformadepago', 'p.idformadepago')
    .select((eb) => [
      'h.idturno',
      'f.tipo',
      eb.fn.sum<string | number | null>(sql`(${eb.ref('p.importe')} + ${eb.ref('p.propina')}) * ${eb.ref('p.tipodecambio')}`).as('importe'),
    ])
    .where('h.idturno', 'in', idTurnos)
    .where('h.pagado', '=', true)
    .where((eb) => eb.or([eb('h.cancelado', '=', false), eb('h.cancelado', 'is', null)]))
    .groupBy(['h.idturno', 'f.tipo']);
}

/**
 * What each shift's cashier declared, by tender: the shift's cash columns, which sum its
 * `declaracioncajero` rows (shift-close row 95 writes them 0 when nothing is declared). A shift
 * with no declaration row has none. An installation without the table keeps only the columns:
 * there a closed shift whose columns are not all 0 has declared.
 */
export async function shiftDeclarations(
  ctx: Pick<PosContext, 'db' | 'schema'>,
  shifts: ReadonlyArray<{ idturnointerno: number; cierre: Date | null } & Record<Tender, string | number | null>>,
): Promise<Map<number, TenderAmounts>> {
  const amounts = (s: (typeof shifts)[number]): TenderAmounts => ({
    efectivo: dec(s.efectivo),
    tarjeta: dec(s.tarjeta),
    vales: dec(s.vales),
    credito: dec(s.credito),
  });
  const out = new Map<number, TenderAmounts>();
  if (!ctx.schema.hasTable('declaracioncajero')) {
    for (const s of shifts) if (s.cierre !== null && TENDERS.some((t) => !dec(s[t]).isZero())) out.set(s.idturnointerno, amounts(s));
    return out;
  }
  const byId = new Map(shifts.map((s) => [s.idturnointerno, s]));
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += SHIFTS_PER_STATEMENT) {
    const declared = await ctx.db
      .selectFrom('declaracioncajero')
      .select('idturnointerno')
      .distinct()
      .where('idturnointerno', 'in', ids.slice(i, i + SHIFTS_PER_STATEMENT))
      .execute();
    for (const d of declared) out.set(Number(d.idturnointerno), amounts(byId.get(Number(d.idturnointerno))!));
  }
  return out;
}
