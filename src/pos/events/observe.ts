/**
 * The detection poll's reads: three small statements, read committed, no lock hint, no
 * transaction, so a terminal never waits on the agent for more than a row's read. Each returns a
 * fingerprint to compare with the last poll's, not the records: those are read only for what
 * changed (records.ts).
 */
import { createHash } from 'node:crypto';
import { sql, type Expression } from 'kysely';
import type { PosDb } from '../schema.js';
import { HEADER_COLUMNS } from '../operations/order-records.js';
import { planOnce, rowFingerprint } from '../sql-dialect.js';
import { int } from '../values.js';

/** impresa: printed and not paid (the check is on the table), until it is paid or reopened. */
export type AccountStatus = 'abierta' | 'impresa' | 'pagada' | 'cancelada';

export interface ObservedAccount {
  folio: number;
  /** tempcheques.fecha as ISO text ('' when null): with the folio it names the account. */
  opened: string;
  status: AccountStatus;
  idturno: number | null;
  /** The server's 16-byte hash of the header and its lines (rowFingerprint), in hex. */
  fingerprint: string;
}

export interface ObservedShift {
  idturno: number;
  idturnointerno: number;
  open: boolean;
  /** apertura and cierre as ISO text: a shift reopened and closed again is a new change. */
  moment: string;
}

export const accountKey = (folio: number, opened: string) => `${folio}|${opened}`;

export function fingerprintOf(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

export function openedText(fecha: Date | null): string {
  return fecha ? fecha.toISOString() : '';
}

/** What a quiet poll reads: one statement, one row. */
export interface TableSums {
  /** Accounts and their lines (tempcheques, tempcheqdet). */
  accounts: string;
  /** Shifts opened, closed or reopened (turnos). */
  shifts: string;
  /** Company prices, taxes and blocks (productosdetalle). */
  products: string;
  /** Marks of API writes not yet matched to a change (ba_event_origins). */
  marks: number;
}

/**
 * Sums over the tables a poll watches that move with any change it reports: accounts opened,
 * closed, paid, cancelled, printed or invoiced, totals and discounts; lines added, removed or
 * changed; shifts opened and closed; prices. While they stay as they were, nothing is read row
 * by row: this one statement is what a quiet poll costs.
 *
 * Lines are ten times the rows of the rest, and numeric arithmetic is what a sum costs, so they
 * get plain sums and two sums weighted by the line number: one moves when two lines of an account
 * trade quantities, prices or discounts, the other when a line moves to another account. The
 * lines are summed by line number first, and the weights applied to those few groups: the same
 * values as weighting each line, for a third of the work. Lines of different accounts trading
 * values move the headers' totals, which are weighted by folio.
 *
 * Compiled once, and planned once (planOnce): the statement never changes, and building it and
 * planning it cost as much as the lines' sums.
 */
export function tableSumsReader(db: PosDb): () => Promise<TableSums> {
  const statement = planOnce(sumsStatement(db).compile());
  return async () => {
    const [row] = (await db.executeQuery(statement)).rows;
    if (!row) throw new Error('the sums statement returned no row');
    return {
      accounts: fingerprintOf([row.headers, row.lines]),
      shifts: fingerprintOf([row.shifts]),
      products: fingerprintOf([row.products]),
      marks: Number(row.marks),
    };
  };
}

/** A sum as the drivers return it: numeric as text (pg), a number (tedious). */
type Sum = string | number | null;

function sumsStatement(db: PosDb) {
  return db.selectNoFrom((eb) => {
    const text = (values: Array<Expression<unknown>>) =>
      eb.fn<string>(
        'concat',
        values.flatMap((v, i) => (i === 0 ? [v] : [sql.lit('|'), v])),
      );
    const byLineNumber = eb
      .selectFrom('tempcheqdet as d')
      .select((d) => [
        'd.movimiento',
        d.fn.countAll().as('lineas'),
        d.fn.sum<Sum>('d.foliodet').as('folios'),
        d.fn.sum<Sum>('d.cantidad').as('cantidad'),
        d.fn.sum<Sum>('d.precio').as('precio'),
        d.fn.sum<Sum>('d.descuento').as('descuento'),
      ])
      .groupBy('d.movimiento')
      .as('g');
    return [
      eb
        .selectFrom('tempcheques as h')
        .select((h) => {
          const byFolio = (value: Expression<string | number | null>) => h.fn.sum(h(h.ref('h.folio'), '*', value));
          const flag = (c: 'pagado' | 'cancelado' | 'impreso' | 'facturado') => byFolio(h.cast<number>(h.ref(`h.${c}`), 'integer'));
          return text([
            h.fn.countAll(),
            h.fn.sum('h.folio'),
            ...(['total', 'descuento', 'totaldescuentos', 'totalcortesias', 'numcheque', 'idturno', 'nopersonas'] as const).map((c) =>
              byFolio(h.ref(`h.${c}`)),
            ),
            flag('pagado'),
            flag('cancelado'),
            flag('impreso'),
            flag('facturado'),
          ]).as('v');
        })
        .as('headers'),
      eb
        .selectFrom(byLineNumber)
        .select((g) =>
          text([
            g.fn.sum('g.lineas'),
            g.fn.sum(g(g.ref('g.movimiento'), '*', g.ref('g.folios'))),
            ...(['g.cantidad', 'g.precio', 'g.descuento'] as const).map((c) => g.fn.sum(c)),
            g.fn.sum(g(g.ref('g.movimiento'), '*', g.parens(g(g.ref('g.cantidad'), '+', g.ref('g.precio')), '+', g.ref('g.descuento')))),
          ]).as('v'),
        )
        .as('lines'),
      eb
        .selectFrom('turnos as t')
        .select((t) =>
          text([
            t.fn.countAll(),
            t.fn.max('t.idturnointerno'),
            t.fn.count('t.cierre'),
            t.fn.sum(t.case().when('t.cierre', 'is', null).then(t.ref('t.idturnointerno')).else(0).end()),
          ]).as('v'),
        )
        .as('shifts'),
      eb
        .selectFrom('productosdetalle as p')
        .select((p) =>
          text([
            p.fn.countAll(),
            ...(['precio', 'preciosinimpuestos', 'impuesto1', 'impuesto2', 'impuesto3'] as const).map((c) => p.fn.sum(`p.${c}`)),
            p.fn.sum(p.cast(p.ref('p.bloqueado'), 'integer')),
          ]).as('v'),
        )
        .as('products'),
      eb
        .selectFrom('ba_event_origins')
        .select((o) => o.fn.countAll<number>().as('n'))
        .as('marks'),
    ];
  });
}

/**
 * Every account in the temporary tables with a fingerprint of its header (flags, totals,
 * printing, payment) and of its lines, computed by the server so that only short rows travel.
 * SR rewrites unchanged totals many times while an account is on screen (order-lifecycle rows 313, 351, 461, 585): values are compared, never writes. The
 * lines are summarised per account; sums weighted by the line number also change when two lines
 * swap quantities, prices or discounts.
 */
export async function observeAccounts(db: PosDb): Promise<Map<string, ObservedAccount>> {
  const lines = db
    .selectFrom('tempcheqdet as d')
    .select((eb) => [
      'd.foliodet',
      eb.fn.countAll().as('lineas'),
      eb.fn.max('d.movimiento').as('ultimo'),
      eb.fn.sum('d.cantidad').as('cantidad'),
      eb.fn.sum(eb('d.cantidad', '*', eb.ref('d.precio'))).as('importe'),
      eb.fn.sum('d.descuento').as('descuento'),
      eb.fn.sum(eb('d.movimiento', '*', eb.ref('d.cantidad'))).as('mcantidad'),
      eb.fn.sum(eb('d.movimiento', '*', eb.ref('d.precio'))).as('mprecio'),
      eb.fn.sum(eb('d.movimiento', '*', eb.ref('d.descuento'))).as('mdescuento'),
    ])
    .groupBy('d.foliodet')
    .as('l');
  const rows = await db
    .selectFrom('tempcheques as h')
    .leftJoin(lines, 'l.foliodet', 'h.folio')
    .select((eb) => [
      'h.folio',
      'h.fecha',
      'h.pagado',
      'h.cancelado',
      'h.impreso',
      'h.idturno',
      rowFingerprint(eb, [
        ...HEADER_COLUMNS.map((c) => eb.ref(`h.${c}`)),
        ...(['lineas', 'ultimo', 'cantidad', 'importe', 'descuento', 'mcantidad', 'mprecio', 'mdescuento'] as const).map((c) => eb.ref(`l.${c}`)),
      ]).as('fingerprint'),
    ])
    .execute();
  const observed = new Map<string, ObservedAccount>();
  for (const row of rows) {
    const folio = Number(row.folio);
    const opened = openedText(row.fecha);
    const status: AccountStatus = row.cancelado ? 'cancelada' : row.pagado ? 'pagada' : row.impreso ? 'impresa' : 'abierta';
    observed.set(accountKey(folio, opened), { folio, opened, status, idturno: int(row.idturno), fingerprint: row.fingerprint.toString('hex') });
  }
  return observed;
}

/**
 * The open shifts, those opened since `lastShiftId` (turnos.idturnointerno, an identity) even if
 * already closed, and the shifts last seen open, to tell which of them closed.
 */
export async function observeShifts(db: PosDb, lastShiftId: number, lastOpen: readonly number[]): Promise<ObservedShift[]> {
  const rows = await db
    .selectFrom('turnos')
    .select(['idturnointerno', 'idturno', 'apertura', 'cierre'])
    .where((eb) =>
      eb.or([eb('cierre', 'is', null), eb('idturnointerno', '>', lastShiftId), ...(lastOpen.length > 0 ? [eb('idturno', 'in', [...lastOpen])] : [])]),
    )
    .execute();
  return rows.map((r) => ({
    idturno: Number(r.idturno),
    idturnointerno: Number(r.idturnointerno),
    open: r.cierre === null && r.apertura !== null,
    moment: `${openedText(r.apertura)}/${openedText(r.cierre)}`,
  }));
}
