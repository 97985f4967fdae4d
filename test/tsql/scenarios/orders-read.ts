import type { PosDb } from '../../../src/pos/schema.js';
import { PosFixtures } from '../../support/fixtures.js';
import { SCENARIO_NOW } from './clock.js';
import type { Scenario } from './index.js';

/** Shift whose closed orders the scenarios read; far from the seed's shift numbers. */
const SHIFT = 7001;

interface Accounts {
  openFolio: number;
  closedFolio: number;
}
const written = new WeakMap<PosDb, Promise<Accounts>>();

/**
 * An open and a paid (invoiced) temporary account and a closed order, all of now, written once.
 * Other groups' scenarios leave accounts of their own in the database, and a page's line and
 * payment queries have one IN parameter per folio: so every scenario that reads a page either
 * asks for one row or filters down to these accounts (their mesa starts with TSQL), and still
 * reaches its page query and the detail queries.
 */
function accounts(db: PosDb): Promise<Accounts> {
  let done = written.get(db);
  if (!done) {
    done = (async () => {
      const f = await PosFixtures.for(db);
      const now = SCENARIO_NOW;
      // Opened at the same moment: a minute earlier is the day before, a minute after the day's start.
      await f.shift({ idturno: SHIFT, apertura: now, cierre: now });
      const open = await f.tempOrder({
        fecha: now,
        mesa: 'TSQL-4',
        lines: [
          { idproducto: '3001', cantidad: 2 },
          { idproducto: '9001', modificador: true },
        ],
      });
      await f.tempOrder({
        fecha: now,
        mesa: 'TSQL-5',
        idturno: SHIFT,
        numcheque: 1001,
        pagado: true,
        impreso: true,
        facturado: true,
        cierre: now,
        lines: [{ idproducto: '1001' }],
        pagos: [{ idformadepago: 'EFE' }],
      });
      const closed = await f.closedOrder({
        fecha: now,
        mesa: 'TSQL-C',
        idturno: SHIFT,
        numcheque: 1002,
        lines: [{ idproducto: '2001' }, { idproducto: '1101' }],
        pagos: [{ idformadepago: 'TAR', propina: 20 }],
      });
      return { openFolio: open.folio, closedFolio: closed.folio };
    })();
    written.set(db, done);
  }
  return done;
}

const setup = async (db: PosDb) => {
  await accounts(db);
};
const openFolio = async (db: PosDb) => ({ folio: (await accounts(db)).openFolio });
const closedFolio = async (db: PosDb) => ({ folio: (await accounts(db)).closedFolio });

const dateFilters = {
  fechaStart: '2026-01-01',
  fechaEnd: '2099-12-31',
  cierreStart: '2026-01-01T00:00:00-06:00',
  cierreEnd: '2099-12-31T23:59:59Z',
  turnoAperturaStart: '2026-01-01T00:00:00',
  turnoAperturaEnd: '2099-12-31',
};

export const ordersReadScenarios: Scenario[] = [
  { op: 'orders.listTemp', input: { pageSize: 1 }, setup },
  { op: 'orders.listTemp', input: { search: 'tsql', facturado: false, page: 1, pageSize: 10 }, setup: openFolio },
  { op: 'orders.listTempLines', input: { page: 1, pageSize: 20 }, setup },
  { op: 'orders.listTempLines', input: { search: 'pastor' }, setup: openFolio },
  { op: 'orders.listClosed', input: { pageSize: 1 }, setup },
  { op: 'orders.listClosed', input: { search: 'tsql', facturado: false, ...dateFilters }, setup },
  { op: 'orders.searchClosedByShifts', input: { idTurnos: [SHIFT, SHIFT + 1, SHIFT + 2] }, setup },
  // 1,001 shift numbers: two statements of at most 1,000 each; only the second holds orders.
  {
    op: 'orders.searchClosedByShifts',
    input: { idTurnos: Array.from({ length: 1001 }, (_, i) => SHIFT - 1000 + i), search: 'tsql', facturado: false, ...dateFilters },
    setup,
  },
  { op: 'orders.listClosedLines', input: {}, setup },
  { op: 'orders.listClosedLines', input: { search: 'guacamole' }, setup: closedFolio },
  // Closed orders come first: one row is a closed one; the filter leaves only the invoiced temporary account.
  { op: 'orders.listDay', input: { pageSize: 1 }, setup },
  { op: 'orders.listDay', input: { search: 'tsql', facturado: true, dayStartHour: 5 }, setup },
  // Not paginated: the IN lists hold one parameter per open account at this point of the run.
  { op: 'orders.listOpen', input: {}, setup },
];
