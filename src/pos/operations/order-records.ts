/**
 * The API's Order and Line records, read the same way from the temporary tables (tempcheques,
 * tempcheqdet, tempchequespagos) and from the history tables a shift close copies them into
 * (cheques, cheqdet, chequespagos), which keep the same column names.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { z } from 'zod';
import type * as ops from '../../protocol/operations/orders-read.js';
import type { PosContext } from '../context.js';
import { computeTotals, type ApiTotales, type TotalsLine } from '../totals.js';
import { totalsLineOf } from './account.js';
import { amount, dec, flag, int, localIso, text } from '../values.js';

type Order = z.input<typeof ops.orderRecord>;
type Line = z.input<typeof ops.lineRecord>;
type Payment = z.input<typeof ops.paymentRecord>;
type Tax = z.input<typeof ops.taxRecord>;

/**
 * A table set. Both sets name every column read here alike, so each query is typed on one table
 * of its pair: lines and payments on the temporary ones, headers on cheques (the superset).
 */
export interface OrderTables {
  header: 'tempcheques' | 'cheques';
  lines: 'tempcheqdet' | 'cheqdet';
  payments: 'tempchequespagos' | 'chequespagos';
}

export const TEMP_TABLES: OrderTables = { header: 'tempcheques', lines: 'tempcheqdet', payments: 'tempchequespagos' };
export const CLOSED_TABLES: OrderTables = { header: 'cheques', lines: 'cheqdet', payments: 'chequespagos' };

type Raw = string | number | null;
type Text = string | null;

/** A header as read from either table: the record's fields and the stored totals. */
export interface HeaderRow {
  folio: string | number;
  numcheque: Raw;
  seriefolio: Text;
  orden: Raw;
  mesa: Text;
  idmesero: Text;
  nopersonas: Raw;
  estacion: Text;
  idempresa: Text;
  idturno: Raw;
  fecha: Date | null;
  cierre: Date | null;
  pagado: boolean | null;
  cancelado: boolean | null;
  impreso: boolean | null;
  facturado: boolean | null;
  tipodeservicio: Raw;
  subtotal: Raw;
  descuento: Raw;
  descuentoimporte: Raw;
  subtotalcondescuento: Raw;
  totalimpuesto1: Raw;
  totalimpuestod2: Raw;
  totalimpuestod3: Raw;
  total: Raw;
  totalalimentos: Raw;
  totalbebidas: Raw;
  totalotros: Raw;
  totaldescuentos: Raw;
  totalcortesias: Raw;
  totaldescuentoycortesia: Raw;
  totalsindescuento: Raw;
  totalarticulos: Raw;
  /** Only the history table has it. */
  foliotempcheques?: Raw;
}

/** The columns of HeaderRow that both header tables have. */
export const HEADER_COLUMNS = [
  'folio',
  'numcheque',
  'seriefolio',
  'orden',
  'mesa',
  'idmesero',
  'nopersonas',
  'estacion',
  'idempresa',
  'idturno',
  'fecha',
  'cierre',
  'pagado',
  'cancelado',
  'impreso',
  'facturado',
  'tipodeservicio',
  'subtotal',
  'descuento',
  'descuentoimporte',
  'subtotalcondescuento',
  'totalimpuesto1',
  'totalimpuestod2',
  'totalimpuestod3',
  'total',
  'totalalimentos',
  'totalbebidas',
  'totalotros',
  'totaldescuentos',
  'totalcortesias',
  'totaldescuentoycortesia',
  'totalsindescuento',
  'totalarticulos',
] as const satisfies ReadonlyArray<Exclude<keyof HeaderRow, 'foliotempcheques'>>;

interface LineRow {
  foliodet: Raw;
  movimiento: Raw;
  idproducto: Text;
  descripcion: Text;
  clasificacion: Raw;
  cantidad: Raw;
  precio: Raw;
  preciosinimpuestos: Raw;
  impuesto1: Raw;
  impuesto2: Raw;
  impuesto3: Raw;
  descuento: Raw;
  modificador: boolean | null;
  comentario: Text;
  hora: Date | null;
}

/** Lines with their product's description and group classification, ordered by folio and movimiento. */
export function linesQuery(ctx: PosContext, tables: OrderTables) {
  return ctx.db
    .selectFrom(`${tables.lines} as d` as 'tempcheqdet as d')
    .leftJoin('productos as p', 'p.idproducto', 'd.idproducto')
    .leftJoin('grupos as g', 'g.idgrupo', 'p.idgrupo')
    .select([
      'd.foliodet',
      'd.movimiento',
      'd.idproducto',
      'p.descripcion',
      'g.clasificacion',
      'd.cantidad',
      'd.precio',
      'd.preciosinimpuestos',
      'd.impuesto1',
      'd.impuesto2',
      'd.impuesto3',
      'd.descuento',
      'd.modificador',
      'd.comentario',
      'd.hora',
    ])
    .orderBy('d.foliodet')
    .orderBy('d.movimiento');
}

export function lineToApi(r: LineRow): Line {
  return {
    folio: int(r.foliodet) ?? 0,
    movimiento: int(r.movimiento) ?? 0,
    idProducto: text(r.idproducto) ?? '',
    descripcion: text(r.descripcion),
    cantidad: amount(r.cantidad, 6),
    precio: amount(r.precio, 4),
    precioSinImpuestos: amount(r.preciosinimpuestos, 4),
    impuesto1: amount(r.impuesto1, 4),
    impuesto2: amount(r.impuesto2, 4),
    impuesto3: amount(r.impuesto3, 4),
    descuento: amount(r.descuento, 4),
    cortesia: dec(r.descuento).gte(100),
    modificador: flag(r.modificador),
    comentario: text(r.comentario),
    hora: localIso(r.hora),
  };
}

/** SR lets each installation name its three taxes outside the tables the agent reads. */
const TAX_NAMES = ['IVA', 'Impuesto 2', 'Impuesto 3'] as const;
const TAX_COLUMNS = ['impuesto1', 'impuesto2', 'impuesto3'] as const;

/**
 * The taxes charged, one entry per tax and rate: docs/totals.md's tax j summed over the lines at that
 * rate, after their own and the general discount, rounded once per entry.
 */
function taxesOf(lines: readonly LineRow[], generalDiscount: Raw): Tax[] {
  return TAX_NAMES.flatMap((nombre, j) => {
    const byRate = new Map<string, TotalsLine[]>();
    for (const line of lines) {
      const rate = dec(line[TAX_COLUMNS[j]!]);
      if (rate.lte(0)) continue;
      const key = rate.toFixed();
      byRate.set(key, [...(byRate.get(key) ?? []), totalsLineOf(line)]);
    }
    return [...byRate.entries()]
      .sort(([a], [b]) => dec(a).comparedTo(dec(b)))
      .map(([rate, group]) => ({ nombre, tasa: amount(rate, 4), importe: amount(computeTotals(group, dec(generalDiscount)).impuestos[j]!.toFixed()) }));
  });
}

/** The totals object from the header's stored columns (it has only the rounded totalimpuestod2/3 for taxes 2 and 3). */
function headerTotals(h: HeaderRow): ApiTotales {
  return {
    subtotal: amount(h.subtotal),
    descuento: amount(h.descuento, 4),
    descuentoImporte: amount(h.descuentoimporte),
    subtotalConDescuento: amount(h.subtotalcondescuento),
    totalImpuesto1: amount(h.totalimpuesto1),
    totalImpuesto2: amount(h.totalimpuestod2),
    totalImpuesto3: amount(h.totalimpuestod3),
    total: amount(h.total),
    totalAlimentos: amount(h.totalalimentos),
    totalBebidas: amount(h.totalbebidas),
    totalOtros: amount(h.totalotros),
    totalDescuentos: amount(h.totaldescuentos),
    totalCortesias: amount(h.totalcortesias),
    totalDescuentoYCortesia: amount(h.totaldescuentoycortesia),
    totalSinDescuento: amount(h.totalsindescuento),
    totalArticulos: amount(h.totalarticulos, 6),
  };
}

function orderToApi(h: HeaderRow, lines: readonly LineRow[], pagos: Payment[]): Order {
  return {
    folio: Number(h.folio),
    numcheque: int(h.numcheque),
    seriefolio: text(h.seriefolio),
    orden: int(h.orden),
    mesa: text(h.mesa),
    idMesero: text(h.idmesero),
    noPersonas: int(h.nopersonas),
    estacion: text(h.estacion),
    idEmpresa: text(h.idempresa),
    idTurno: int(h.idturno),
    fecha: localIso(h.fecha),
    cierre: localIso(h.cierre),
    pagado: flag(h.pagado),
    cancelado: flag(h.cancelado),
    impreso: flag(h.impreso),
    facturado: flag(h.facturado),
    tipoDeServicio: int(h.tipodeservicio),
    folioTemporal: int(h.foliotempcheques),
    totales: headerTotals(h),
    productos: lines.map(lineToApi),
    pagos,
    impuestos: taxesOf(lines, h.descuento),
  };
}

/** A page is at most 500 folios; longer lists (open accounts) are read in slices of this size. */
const FOLIOS_PER_STATEMENT = 500;

function slices<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const map = new Map<number, T[]>();
  for (const row of rows) {
    const k = key(row);
    const group = map.get(k);
    if (group) group.push(row);
    else map.set(k, [row]);
  }
  return map;
}

/**
 * Whether a history row (of cheqdet `d` or chequespagos `t`) is the own row of the account its
 * folio names, rather than a row SR has not yet pointed at another account's new folio. SR
 * commits an account's copy (shift-close-flow rows 74-98) before it repoints its rows (101-102,
 * each autocommitted), matching `foliodet = cheques.foliotempcheques` and `idturno_cierre =
 * cheques.idturno`: in between they carry the account's temporary folio, which, the temporary
 * folios starting again at 1 after every close, is the folio of an old account of the history
 * too. A row is someone else's only while such an account (another folio) waits for it, and
 * never once `procesado` says it was pointed (the copy writes 0, the repointing 1): in a young
 * history one account's new folio can be another's temporary one in the same shift.
 */
export function ownHistoryRow<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, ctx: PosContext, alias: 'd' | 't'): Expression<SqlBool> {
  const folio = sql<number>`${sql.ref(alias === 'd' ? 'd.foliodet' : 't.folio')}`;
  const shift = sql<number | null>`${sql.ref(`${alias}.idturno_cierre`)}`;
  const waitedFor = eb.exists(
    ctx.db
      .selectFrom('cheques as oc')
      .select('oc.folio')
      .where((o) => o.and([o(o.ref('oc.foliotempcheques'), '=', folio), o(o.ref('oc.idturno'), '=', shift), o(o.ref('oc.folio'), '<>', folio)])),
  );
  if (!ctx.schema.has(alias === 'd' ? 'cheqdet' : 'chequespagos', 'procesado')) return eb.not(waitedFor);
  return eb.or([eb(sql<boolean | null>`${sql.ref(`${alias}.procesado`)}`, '=', true), eb.not(waitedFor)]);
}

interface Owned {
  foliodet?: Raw;
  folio?: Raw;
  owned?: Raw;
  cierre_turno?: Raw;
}

/**
 * The history rows read for `headers` (by their folios and their temporary ones), each given to
 * its account: its folio's own rows, and rows SR has not yet pointed at their account's new folio
 * (the temporary folio and the shift of a header on the page, and nobody's own). Others are dropped.
 */
function attributed<R extends Owned>(rows: readonly R[], headers: readonly HeaderRow[], folioOf: (r: R) => Raw): Array<R & { owner: number }> {
  const onPage = new Set(headers.map((h) => Number(h.folio)));
  const byTemp = new Map(headers.map((h) => [`${Number(h.foliotempcheques)}|${Number(h.idturno)}`, Number(h.folio)]));
  return rows.flatMap((r) => {
    const folio = Number(folioOf(r));
    const untagged = r.cierre_turno === null || r.cierre_turno === undefined;
    const owner = Number(r.owned) === 1 ? (onPage.has(folio) ? folio : undefined) : untagged ? undefined : byTemp.get(`${folio}|${Number(r.cierre_turno)}`);
    return owner === undefined ? [] : [{ ...r, owner }];
  });
}

/** Completes headers into Orders, reading the lines and the payments of all of them with one statement each. */
export async function ordersOf(ctx: PosContext, tables: OrderTables, headers: readonly HeaderRow[]): Promise<Order[]> {
  const history = tables === CLOSED_TABLES;
  const lines: Array<LineRow & Owned> = [];
  const payments: Array<{ folio: Raw; idformadepago: Text; descripcion: Text; importe: Raw; propina: Raw; tipodecambio: Raw } & Owned> = [];
  for (const slice of slices(headers, FOLIOS_PER_STATEMENT)) {
    const folios = slice.map((h) => Number(h.folio));
    // History accounts: also the rows still under their temporary folio (see ownHistoryRow).
    const read = history
      ? [
          ...new Set([
            ...folios,
            ...slice.flatMap((h) => (h.foliotempcheques === null || h.foliotempcheques === undefined ? [] : [Number(h.foliotempcheques)])),
          ]),
        ]
      : folios;
    const flag = <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, alias: 'd' | 't') => [
      eb
        .case()
        .when(ownHistoryRow(eb, ctx, alias))
        .then(1)
        .else(0)
        .end()
        .as('owned'),
      sql<Raw>`${sql.ref(`${alias}.idturno_cierre`)}`.as('cierre_turno'),
    ];
    lines.push(
      ...(await linesQuery(ctx, tables)
        .$if(history, (q) => q.select((eb) => flag(eb, 'd')))
        .where('d.foliodet', 'in', read)
        .execute()),
    );
    payments.push(
      ...(await ctx.db
        .selectFrom(`${tables.payments} as t` as 'tempchequespagos as t')
        .leftJoin('formasdepago as f', 'f.idformadepago', 't.idformadepago')
        .select(['t.folio', 't.idformadepago', 'f.descripcion', 't.importe', 't.propina', 't.tipodecambio'])
        .$if(history, (q) => q.select((eb) => flag(eb, 't')))
        .where('t.folio', 'in', read)
        .orderBy('t.folio')
        .orderBy('t.idformadepago')
        .execute()),
    );
  }
  const ownLines = history ? attributed(lines, headers, (l) => l.foliodet).map((l) => ({ ...l, foliodet: l.owner })) : lines;
  const ownPayments = history ? attributed(payments, headers, (p) => p.folio).map((p) => ({ ...p, folio: p.owner })) : payments;
  const linesByFolio = groupBy(ownLines, (l) => Number(l.foliodet));
  const paymentsByFolio = groupBy(ownPayments, (p) => Number(p.folio));
  return headers.map((h) =>
    orderToApi(
      h,
      linesByFolio.get(Number(h.folio)) ?? [],
      (paymentsByFolio.get(Number(h.folio)) ?? []).map((p) => ({
        idFormaDePago: text(p.idformadepago) ?? '',
        descripcion: text(p.descripcion),
        importe: amount(p.importe),
        propina: amount(p.propina),
        tipoDeCambio: amount(p.tipodecambio, 4),
      })),
    ),
  );
}
