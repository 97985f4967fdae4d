/**
 * A shift's cash cut ("corte") as Soft Restaurant adds it up, for any shift, open or closed:
 * what it took by tender, and what its cashier declared.
 */
import type { Decimal } from 'decimal.js';
import { sql } from 'kysely';
import type { PosContext } from './context.js';
import { Dec } from './totals.js';
import { collationKey, dec, int } from './values.js';

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
 * ones. Shifts without payments get zeros.
 */
export async function shiftTakings(ctx: Pick<PosContext, 'db'>, idTurnos: readonly number[]): Promise<Map<number, TenderAmounts>> {
  const out = new Map<number, TenderAmounts>(idTurnos.map((id) => [id, noTakings()]));
  for (let i = 0; i < idTurnos.length; i += SHIFTS_PER_STATEMENT) {
    const chunk = idTurnos.slice(i, i + SHIFTS_PER_STATEMENT);
    const query = (tables: PaymentTables) =>
      paidPayments(ctx, tables, chunk)
        .select((eb) => [
          'h.idturno',
          'f.tipo',
          eb.fn.sum<string | number | null>(sql`(${eb.ref('p.importe')} + ${eb.ref('p.propina')}) * ${eb.ref('p.tipodecambio')}`).as('importe'),
        ])
        .groupBy(['h.idturno', 'f.tipo']);
    for (const row of await query(TEMP_TABLES).unionAll(query(CLOSED_TABLES)).execute()) {
      const tender = tenderOf(row.tipo);
      const takings = out.get(int(row.idturno) ?? 0);
      if (tender && takings) takings[tender] = takings[tender].plus(dec(row.importe));
    }
  }
  return out;
}

export interface MethodTakings {
  idformadepago: string;
  descripcion: string;
  tipo: number;
  /** Amount and tips in the method's own currency. */
  importe: Decimal;
  /** The same in pesos, as SR adds it up. */
  pesos: Decimal;
  /** The tips alone, in pesos (shift-close row 199). */
  propina: Decimal;
}

/** What one shift took by payment method, over the same accounts as `shiftTakings`. */
export async function shiftTakingsByMethod(ctx: Pick<PosContext, 'db'>, idTurno: number): Promise<MethodTakings[]> {
  const query = (tables: PaymentTables) =>
    paidPayments(ctx, tables, [idTurno])
      .select((eb) => [
        'p.idformadepago',
        'f.descripcion',
        'f.tipo',
        eb.fn.sum<string | number | null>(sql`${eb.ref('p.importe')} + ${eb.ref('p.propina')}`).as('importe'),
        eb.fn.sum<string | number | null>(sql`(${eb.ref('p.importe')} + ${eb.ref('p.propina')}) * ${eb.ref('p.tipodecambio')}`).as('pesos'),
        eb.fn.sum<string | number | null>(sql`${eb.ref('p.propina')} * ${eb.ref('p.tipodecambio')}`).as('propina'),
      ])
      .groupBy(['p.idformadepago', 'f.descripcion', 'f.tipo']);
  const byMethod = new Map<string, MethodTakings>();
  for (const row of await query(TEMP_TABLES).unionAll(query(CLOSED_TABLES)).execute()) {
    const id = row.idformadepago ?? '';
    const seen = byMethod.get(collationKey(id));
    const add = { importe: dec(row.importe), pesos: dec(row.pesos), propina: dec(row.propina) };
    if (seen) for (const k of ['importe', 'pesos', 'propina'] as const) seen[k] = seen[k].plus(add[k]);
    else byMethod.set(collationKey(id), { idformadepago: id, descripcion: row.descripcion ?? '', tipo: int(row.tipo) ?? 0, ...add });
  }
  return [...byMethod.values()].sort((a, b) => a.tipo - b.tipo || (a.idformadepago < b.idformadepago ? -1 : 1));
}

const TEMP_TABLES = { header: 'tempcheques', payments: 'tempchequespagos' } as const;
const CLOSED_TABLES = { header: 'cheques', payments: 'chequespagos' } as const;
type PaymentTables = typeof TEMP_TABLES | typeof CLOSED_TABLES;

/**
 * The payments of the shifts' paid, not cancelled accounts in one table set (both name these
 * columns alike). An account that a close is moving is counted once: its temporary row is left
 * out once its history copy exists.
 */
function paidPayments(ctx: Pick<PosContext, 'db'>, tables: PaymentTables, idTurnos: readonly number[]) {
  const query = ctx.db
    .selectFrom(`${tables.payments} as p` as 'tempchequespagos as p')
    .innerJoin(`${tables.header} as h` as 'tempcheques as h', 'h.folio', 'p.folio')
    .innerJoin('formasdepago as f', 'f.idformadepago', 'p.idformadepago')
    .where('h.idturno', 'in', idTurnos)
    .where('h.pagado', '=', true)
    .where((eb) => eb.or([eb('h.cancelado', '=', false), eb('h.cancelado', 'is', null)]));
  if (tables !== TEMP_TABLES) return query;
  return query.where((eb) =>
    eb.not(eb.exists(eb.selectFrom('cheques as c').select('c.folio').whereRef('c.foliotempcheques', '=', 'h.folio').whereRef('c.idturno', '=', 'h.idturno'))),
  );
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
