/** Reads of accounts. Each function is one operation of protocol/operations/orders-read.ts. */
import { dateFilterBound, DEFAULT_DAY_START_HOUR, toPage } from '../../protocol/common.js';
import type { OpInput } from '../../protocol/operation.js';
import * as ops from '../../protocol/operations/orders-read.js';
import type { PosContext } from '../context.js';
import { IN_LIST_LIMIT, inNumbers, likeContains } from '../sql-dialect.js';
import { implementAccountRead } from '../reads-across-closes.js';
import { operationalDay, type OperationalDay } from '../operational-day.js';
import { selectPage } from '../paging.js';
import { querySegment, selectPageAcross } from '../segmented-paging.js';
import { sql } from 'kysely';
import { localIso } from '../values.js';
import {
  CLOSED_TABLES,
  HEADER_COLUMNS,
  linesQuery,
  lineToApi,
  ordersOf,
  ownHistoryRow,
  TEMP_TABLES,
  type HeaderRow,
  type OrderTables,
} from './order-records.js';

/** Headers of either table, aliased `h`; typed as the history table, whose columns include every one used here. */
function headers(ctx: PosContext, tables: OrderTables) {
  return ctx.db
    .selectFrom(`${tables.header} as h` as 'cheques as h')
    .select(HEADER_COLUMNS)
    .$if(tables === CLOSED_TABLES, (q) => q.select('foliotempcheques'));
}

type HeaderQuery = ReturnType<typeof headers>;

/** `false` also takes in NULL: the flag columns are nullable, and a flag never set is not set. */
function whereFlag(q: HeaderQuery, column: 'h.facturado' | 'h.pagado' | 'h.cancelado', value: boolean): HeaderQuery {
  return value ? q.where(column, '=', true) : q.where((eb) => eb.or([eb(column, '=', false), eb(column, 'is', null)]));
}

/** What `search` matches: the seed's fields, with the table for accounts that have one (temporary and operational-day lists). */
type SearchFields = 'withMesa' | 'withoutMesa';

/**
 * folio, numcheque and the total are numbers: cast to text (spelled alike in T-SQL and
 * PostgreSQL) they match partially too. The total is cast at 2 decimals, as the API shows it and
 * whatever scale the column keeps (money on SQL Server prints 2 decimals, numeric(19,4) 4).
 */
function whereSearch(q: HeaderQuery, search: string | undefined, fields: SearchFields): HeaderQuery {
  if (!search) return q;
  return q.where((eb) =>
    eb.or([
      likeContains(eb.cast(eb.ref('h.folio'), 'varchar(20)'), search),
      likeContains(eb.cast(eb.ref('h.numcheque'), 'varchar(20)'), search),
      likeContains(eb.cast(eb.cast(eb.ref('h.total'), 'decimal(19, 2)'), 'varchar(30)'), search),
      ...(fields === 'withMesa' ? [likeContains(eb.ref('h.mesa'), search)] : []),
    ]),
  );
}

function orderFilters(q: HeaderQuery, f: { search?: string; facturado?: boolean }, fields: SearchFields): HeaderQuery {
  const searched = whereSearch(q, f.search, fields);
  return f.facturado === undefined ? searched : whereFlag(searched, 'h.facturado', f.facturado);
}

function bounds(start: string | undefined, end: string | undefined) {
  return [...(start === undefined ? [] : [dateFilterBound(start, 'start')]), ...(end === undefined ? [] : [dateFilterBound(end, 'end')])];
}

type ClosedFilters = Omit<OpInput<typeof ops.listClosedOrders>, 'page' | 'pageSize'>;

/** Closed orders matching the filters, not ordered. */
function closedOrders(ctx: PosContext, f: ClosedFilters): HeaderQuery {
  let q = orderFilters(headers(ctx, CLOSED_TABLES), f, 'withoutMesa');
  for (const b of bounds(f.fechaStart, f.fechaEnd)) q = q.where('h.fecha', b.op, b.at);
  for (const b of bounds(f.cierreStart, f.cierreEnd)) q = q.where('h.cierre', b.op, b.at);
  const apertura = bounds(f.turnoAperturaStart, f.turnoAperturaEnd);
  if (apertura.length > 0) {
    // A subquery rather than a join: a shift number repeated in turnos must not repeat the order.
    q = q.where((eb) => {
      let shifts = eb.selectFrom('turnos as tu').select('tu.idturno');
      for (const b of apertura) shifts = shifts.where('tu.apertura', b.op, b.at);
      return eb('h.idturno', 'in', shifts);
    });
  }
  return q;
}

async function withOrders<P extends { data: HeaderRow[] }>(ctx: PosContext, tables: OrderTables, page: P) {
  return { ...page, data: await ordersOf(ctx, tables, page.data) };
}

export const listTempOrders = implementAccountRead(ops.listTempOrders, async (ctx, input) => {
  let q = orderFilters(headers(ctx, TEMP_TABLES), input, 'withMesa');
  if (input.folio !== undefined) q = q.where('h.folio', '=', input.folio);
  return withOrders(ctx, TEMP_TABLES, await selectPage(q.orderBy('h.folio'), input, (r) => r));
});

export const listClosedOrders = implementAccountRead(ops.listClosedOrders, async (ctx, input) => {
  return withOrders(ctx, CLOSED_TABLES, await selectPage(closedOrders(ctx, input).orderBy('h.folio'), input, (r) => r));
});

/** Ascending, each once. A typed array sorts numbers natively: a third of the time of a Set and a compare function. */
function sortedDistinct(numbers: readonly number[]): number[] {
  const sorted = Float64Array.from(numbers).sort();
  const out: number[] = [];
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) out.push(sorted[i]!);
  return out;
}

/**
 * Up to 10,000 shift numbers, sorted and cut into the lists one statement takes (`inNumbers`:
 * on PostgreSQL all of them in one, on SQL Server 2,000 each); each chunk is one query ordered by
 * shift and folio, so the chunks follow one another in the result's order and the page is read
 * only from the chunks it overlaps.
 */
export const searchClosedOrdersByShifts = implementAccountRead(ops.searchClosedOrdersByShifts, async (ctx, input) => {
  const { idTurnos, page, pageSize, ...filters } = input;
  const ids = sortedDistinct(idTurnos);
  if (ids.length === 0) return toPage([], 0, page, pageSize);
  const perStatement = IN_LIST_LIMIT[ctx.dialect];
  const segments = [];
  for (let i = 0; i < ids.length; i += perStatement) {
    const chunk = ids.slice(i, i + perStatement);
    segments.push(
      querySegment(
        closedOrders(ctx, filters)
          .where((eb) => inNumbers(eb, eb.ref('h.idturno'), chunk))
          .orderBy('h.idturno')
          .orderBy('h.folio'),
      ),
    );
  }
  return withOrders(ctx, CLOSED_TABLES, await selectPageAcross(segments, { page, pageSize }));
});

function linesPage(ctx: PosContext, tables: OrderTables, input: OpInput<typeof ops.listTempOrderLines>) {
  // History lines SR has not yet pointed at their account's new folio are under another account's (ownHistoryRow).
  let q = tables === CLOSED_TABLES ? linesQuery(ctx, tables).where((eb) => ownHistoryRow(eb, ctx, 'd')) : linesQuery(ctx, tables);
  if (input.folio !== undefined) q = q.where('d.foliodet', '=', input.folio);
  const { search } = input;
  if (search) {
    q = q.where((eb) =>
      eb.or([likeContains(eb.ref('d.idproducto'), search), likeContains(eb.ref('p.descripcion'), search), likeContains(eb.ref('d.comentario'), search)]),
    );
  }
  return selectPage(q, input, lineToApi);
}

export const listTempOrderLines = implementAccountRead(ops.listTempOrderLines, (ctx, input) => linesPage(ctx, TEMP_TABLES, input));

export const listClosedOrderLines = implementAccountRead(ops.listClosedOrderLines, (ctx, input) => linesPage(ctx, CLOSED_TABLES, input));

/** The shifts an operational day started: a shift belongs to the one day it opened in. */
function shiftsOf(ctx: PosContext, day: OperationalDay) {
  return ctx.db.selectFrom('turnos as tu').select('tu.idturno').where('tu.apertura', '>=', day.start).where('tu.apertura', '<', day.end);
}

/**
 * The day's accounts still in the temporary tables: those paid or cancelled in one of its shifts
 * (not yet closed), and those no shift holds yet (idturno 0: open accounts, quick sales waiting
 * for a close) opened in the day.
 */
function dayTempOrders(ctx: PosContext, day: OperationalDay, q: HeaderQuery): HeaderQuery {
  return q.where((eb) =>
    eb.or([
      eb.and([
        eb('h.idturno', 'in', shiftsOf(ctx, day)),
        // A temporary account already copied to the history tables (SR can keep it after the close) is the same sale.
        eb.not(
          eb.exists(eb.selectFrom('cheques as c').select('c.folio').whereRef('c.foliotempcheques', '=', 'h.folio').whereRef('c.idturno', '=', 'h.idturno')),
        ),
      ]),
      eb.and([eb.or([eb('h.idturno', '=', 0), eb('h.idturno', 'is', null)]), eb('h.fecha', '>=', day.start), eb('h.fecha', '<', day.end)]),
    ]),
  );
}

/**
 * The operational day's orders, as Soft Restaurant's day reports gather them: from the shifts the
 * day started, closed or still open (see `shiftsOf` and `dayTempOrders`). A sale is never in two
 * days nor in none.
 *
 * One order over both tables, by when each account was opened and then its temporary folio
 * (`foliotempcheques` once in history): what a close changes of a sale (its table, its folio)
 * is not part of it, so a close between two pages moves no sale from one page to another. By
 * table first, a sale closed after the client read the first page moved to the closed part, ahead
 * of where the client had got to, and another was shown twice in its place. `fecha` is the
 * terminal's clock (order-lifecycle row 91) and never rewritten: a new account lands at the end
 * unless its terminal's clock is behind the others', then where that clock puts it.
 */
export const listDayOrders = implementAccountRead(ops.listDayOrders, async (ctx, input) => {
  const day = operationalDay(ctx.now, input.dayStartHour);
  const closed = orderFilters(headers(ctx, CLOSED_TABLES), input, 'withMesa')
    .where('h.idturno', 'in', shiftsOf(ctx, day))
    .select([sql.lit('cerrada').as('origen'), sql<number>`coalesce(${sql.ref('h.foliotempcheques')}, ${sql.ref('h.folio')})`.as('foliopaso')]);
  const temp = dayTempOrders(ctx, day, orderFilters(headers(ctx, TEMP_TABLES), input, 'withMesa')).select([
    sql<number | null>`null`.as('foliotempcheques'),
    sql.lit('temporal').as('origen'),
    sql<number>`${sql.ref('h.folio')}`.as('foliopaso'),
  ]);
  const both = ctx.db
    .selectFrom(closed.unionAll(temp as unknown as typeof closed).as('u'))
    .selectAll()
    .orderBy('u.fecha')
    .orderBy('u.foliopaso')
    .orderBy('u.origen')
    .orderBy('u.folio');
  const page = await selectPage(both, input, (row) => ({
    row,
    origen: row.origen === 'cerrada' ? ('cerrada' as const) : ('temporal' as const),
  }));
  const of = async (origen: 'cerrada' | 'temporal') => {
    const rows = page.data.filter((d) => d.origen === origen).map((d) => d.row);
    const orders = await ordersOf(ctx, origen === 'cerrada' ? CLOSED_TABLES : TEMP_TABLES, rows);
    return new Map(orders.map((o) => [o.folio, { ...o, origen }]));
  };
  const closedOrders = await of('cerrada');
  const tempOrders = await of('temporal');
  return {
    ...page,
    data: page.data.map((d) => (d.origen === 'cerrada' ? closedOrders : tempOrders).get(Number(d.row.folio))!),
    ventanaInicio: localIso(day.start)!,
    ventanaFin: localIso(day.end)!,
  };
});

/**
 * The seed's open orders of the current shift: "all active (not cancelled) accounts of the
 * current operational day". An account is of the day when it was opened in the day (`fecha`),
 * whichever shift holds it, so the sales of a shift left open overnight are listed; or when a
 * shift the day started holds it (opened at 05:50, paid at 06:10). Not cancelled, paid ones
 * included, still in the temporary tables, and not left behind by a shift that has closed.
 */
export const listOpenOrders = implementAccountRead(ops.listOpenOrders, async (ctx) => {
  const day = operationalDay(ctx.now, DEFAULT_DAY_START_HOUR);
  const q = whereFlag(headers(ctx, TEMP_TABLES), 'h.cancelado', false)
    .where((eb) => eb.or([eb.and([eb('h.fecha', '>=', day.start), eb('h.fecha', '<', day.end)]), eb('h.idturno', 'in', shiftsOf(ctx, day))]))
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('turnos as tu').select('tu.idturno').whereRef('tu.idturno', '=', 'h.idturno').where('tu.cierre', 'is not', null))),
    );
  const data = await ordersOf(ctx, TEMP_TABLES, await q.orderBy('h.folio').execute());
  return { totalResults: data.length, data };
});
