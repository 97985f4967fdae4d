/** Reads of accounts. Each function is one operation of protocol/operations/orders-read.ts. */
import { dateFilterBound } from '../../protocol/common.js';
import type { OpInput } from '../../protocol/operation.js';
import * as ops from '../../protocol/operations/orders-read.js';
import type { PosContext } from '../context.js';
import { likeContains } from '../db.js';
import { implement } from '../operation.js';
import { selectPage } from '../paging.js';
import { querySegment, selectPageAcross } from '../segmented-paging.js';
import { localIso } from '../values.js';
import { CLOSED_TABLES, HEADER_COLUMNS, linesQuery, lineToApi, ordersOf, TEMP_TABLES, type HeaderRow, type OrderTables } from './order-records.js';

/**
 * SQL Server takes at most 2,100 parameters per statement; a thousand shift numbers per
 * statement leave room for the filters and keep each IN list of a reasonable size.
 */
export const SHIFT_IDS_PER_STATEMENT = 1000;

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

/** folio and numcheque are numbers: cast to text (spelled alike in T-SQL and PostgreSQL) they match partially too. */
function whereSearch(q: HeaderQuery, search: string | undefined): HeaderQuery {
  if (!search) return q;
  return q.where((eb) =>
    eb.or([
      likeContains(eb.cast(eb.ref('h.folio'), 'varchar(20)'), search),
      likeContains(eb.cast(eb.ref('h.numcheque'), 'varchar(20)'), search),
      likeContains(eb.ref('h.mesa'), search),
      likeContains(eb.ref('h.estacion'), search),
    ]),
  );
}

function orderFilters(q: HeaderQuery, f: { search?: string; facturado?: boolean }): HeaderQuery {
  const searched = whereSearch(q, f.search);
  return f.facturado === undefined ? searched : whereFlag(searched, 'h.facturado', f.facturado);
}

function bounds(start: string | undefined, end: string | undefined) {
  return [...(start === undefined ? [] : [dateFilterBound(start, 'start')]), ...(end === undefined ? [] : [dateFilterBound(end, 'end')])];
}

type ClosedFilters = Omit<OpInput<typeof ops.listClosedOrders>, 'page' | 'pageSize'>;

/** Closed orders matching the filters, not ordered. */
function closedOrders(ctx: PosContext, f: ClosedFilters): HeaderQuery {
  let q = orderFilters(headers(ctx, CLOSED_TABLES), f);
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

export const listTempOrders = implement(ops.listTempOrders, async (ctx, input) => {
  let q = orderFilters(headers(ctx, TEMP_TABLES), input);
  if (input.folio !== undefined) q = q.where('h.folio', '=', input.folio);
  return withOrders(ctx, TEMP_TABLES, await selectPage(q.orderBy('h.folio'), input, (r) => r));
});

export const listClosedOrders = implement(ops.listClosedOrders, async (ctx, input) => {
  return withOrders(ctx, CLOSED_TABLES, await selectPage(closedOrders(ctx, input).orderBy('h.folio'), input, (r) => r));
});

/**
 * Up to 10,000 shift numbers never go into one statement: sorted and cut into chunks, each chunk
 * is one query ordered by shift and folio, so the chunks follow one another in the result's
 * order and the page is read only from the chunks it overlaps.
 */
export const searchClosedOrdersByShifts = implement(ops.searchClosedOrdersByShifts, async (ctx, input) => {
  const { idTurnos, page, pageSize, ...filters } = input;
  const ids = [...new Set(idTurnos)].sort((a, b) => a - b);
  const segments = [];
  for (let i = 0; i < ids.length; i += SHIFT_IDS_PER_STATEMENT) {
    const chunk = ids.slice(i, i + SHIFT_IDS_PER_STATEMENT);
    segments.push(querySegment(closedOrders(ctx, filters).where('h.idturno', 'in', chunk).orderBy('h.idturno').orderBy('h.folio')));
  }
  return withOrders(ctx, CLOSED_TABLES, await selectPageAcross(segments, { page, pageSize }));
});

function linesPage(ctx: PosContext, tables: OrderTables, input: OpInput<typeof ops.listTempOrderLines>) {
  let q = linesQuery(ctx, tables);
  if (input.folio !== undefined) q = q.where('d.foliodet', '=', input.folio);
  const { search } = input;
  if (search) {
    q = q.where((eb) => eb.or([likeContains(eb.ref('d.idproducto'), search), likeContains(eb.ref('p.descripcion'), search), likeContains(eb.ref('d.comentario'), search)]));
  }
  return selectPage(q, input, lineToApi);
}

export const listTempOrderLines = implement(ops.listTempOrderLines, (ctx, input) => linesPage(ctx, TEMP_TABLES, input));

export const listClosedOrderLines = implement(ops.listClosedOrderLines, (ctx, input) => linesPage(ctx, CLOSED_TABLES, input));

/** [today at dayStartHour, tomorrow at dayStartHour), or from yesterday when `now` is before that hour. */
export function operationalDay(now: Date, dayStartHour: number): { start: Date; end: Date } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate(), dayStartHour);
  if (now < start) start.setDate(start.getDate() - 1);
  const end = new Date(start);
  end.setDate(end.getDate() + 1);
  return { start, end };
}

export const listDayOrders = implement(ops.listDayOrders, async (ctx, input) => {
  const { start, end } = operationalDay(ctx.now, input.dayStartHour);
  const inDay = (q: HeaderQuery) => orderFilters(q, input).where('h.fecha', '>=', start).where('h.fecha', '<', end);
  const closed = inDay(headers(ctx, CLOSED_TABLES)).orderBy('h.folio');
  // A temporary account already copied to the history tables (SR can keep it after the close) is the same sale.
  const temp = inDay(headers(ctx, TEMP_TABLES))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('cheques as c')
            .select('c.folio')
            .whereRef('c.foliotempcheques', '=', 'h.folio')
            .where('c.fecha', '>=', start)
            .where('c.fecha', '<', end),
        ),
      ),
    )
    .orderBy('h.folio');
  const from = (q: HeaderQuery, origen: 'cerrada' | 'temporal') => {
    const s = querySegment(q);
    return { count: s.count, read: async (offset: number, fetch: number) => (await s.read(offset, fetch)).map((row) => ({ row, origen })) };
  };
  const page = await selectPageAcross([from(closed, 'cerrada'), from(temp, 'temporal')], input);
  const closedOrders = await ordersOf(ctx, CLOSED_TABLES, page.data.filter((d) => d.origen === 'cerrada').map((d) => d.row));
  const tempOrders = await ordersOf(ctx, TEMP_TABLES, page.data.filter((d) => d.origen === 'temporal').map((d) => d.row));
  return {
    ...page,
    data: [...closedOrders.map((o) => ({ ...o, origen: 'cerrada' as const })), ...tempOrders.map((o) => ({ ...o, origen: 'temporal' as const }))],
    ventanaInicio: localIso(start)!,
    ventanaFin: localIso(end)!,
  };
});

export const listOpenOrders = implement(ops.listOpenOrders, async (ctx) => {
  let q = headers(ctx, TEMP_TABLES);
  q = whereFlag(whereFlag(q, 'h.pagado', false), 'h.cancelado', false);
  const data = await ordersOf(ctx, TEMP_TABLES, await q.orderBy('h.folio').execute());
  const shifts = await ctx.db.selectFrom('turnos').select('idturno').where('cierre', 'is', null).orderBy('idturno').execute();
  return { totalResults: data.length, data, turnosAbiertos: shifts.map((s) => Number(s.idturno)) };
});
