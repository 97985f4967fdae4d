/**
 * The accounts the order-read end-to-end tests read, written once per test file into an empty
 * branch, and the helpers that read them back through the API.
 */
import { expect } from 'vitest';
import { lastSecondOf, operationalDay } from '../../src/pos/operational-day.js';
import type { PosDb } from '../../src/pos/schema.js';
import { PosFixtures, type AccountFixture, type WrittenAccount } from './fixtures.js';
import { BRANCH, type ApiResponse, type TestStack } from './stack.js';

export const local = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s);
export const day = operationalDay(new Date(), 6);
export const today = (minutes: number) => new Date(day.start.getTime() + minutes * 60_000);
/**
 * The branch's clock in these tests: the real one, kept inside the day the fixtures were written
 * for, so that a run crossing the day's end (06:00) still reads the day they fill.
 */
export const branchClock = () => Math.min(Date.now(), lastSecondOf(day).getTime());

export interface OrderHistory {
  f: PosFixtures;
  /** Closed: C1..C5 from January shifts, C7 and C6 of today's closed shift (C6 still has its temporary twin TP5). */
  C: Record<string, WrittenAccount>;
  /** Temporary: TY open since yesterday, TP1 and TP2 open today, TP3 paid and invoiced, TP4 cancelled, TP5 paid and copied to C6. */
  T: Record<string, WrittenAccount>;
}

/** Replaces the branch's accounts with the history every order-read test reads. */
export async function writeOrderHistory(db: PosDb): Promise<OrderHistory> {
  const C: Record<string, WrittenAccount> = {};
  const T: Record<string, WrittenAccount> = {};
  const f = await PosFixtures.for(db);
  await f.clearAccounts();
  await f.shift({ idturno: 10, apertura: local(2026, 1, 10, 8), cierre: local(2026, 1, 10, 23) });
  await f.shift({ idturno: 1500, apertura: local(2026, 1, 11, 8), cierre: local(2026, 1, 11, 23) });
  await f.shift({ idturno: 9000, apertura: local(2026, 1, 12, 8), cierre: local(2026, 1, 13, 1) });
  await f.shift({ idturno: 9400, apertura: today(1), cierre: today(120) });
  await f.shift({ idturno: 9500, apertura: today(121) });

  C.C1 = await f.closedOrder({
    idturno: 10,
    numcheque: 501,
    mesa: '1',
    fecha: local(2026, 1, 10, 12),
    cierre: local(2026, 1, 10, 12, 45),
    lines: [{ idproducto: '3001', cantidad: 2 }, { idproducto: '1101' }],
  });
  C.C2 = await f.closedOrder({
    idturno: 10,
    numcheque: 5001,
    seriefolio: 'B',
    estacion: 'CAJA2',
    mesa: 'T1',
    nopersonas: 4,
    fecha: local(2026, 1, 10, 20),
    cierre: local(2026, 1, 10, 21, 30),
    facturado: true,
    descuento: 10,
    lines: [{ idproducto: '3005' }, { idproducto: '9004', modificador: true, comentario: 'bien cocido' }, { idproducto: '1103', descuento: 100 }],
    pagos: [{ idformadepago: 'TAR', propina: 30 }],
  });
  C.C3 = await f.closedOrder({
    idturno: 1500,
    numcheque: 502,
    mesa: '2',
    fecha: local(2026, 1, 11, 13),
    cierre: local(2026, 1, 11, 13, 40),
    lines: [{ idproducto: '2003', impuesto1: 8 }, { idproducto: '1005', impuesto2: 8 }, { idproducto: '2001' }],
    pagos: [{ idformadepago: 'USD' }],
  });
  C.C4 = await f.closedOrder({
    idturno: 9000,
    numcheque: 503,
    mesa: '50%',
    fecha: local(2026, 1, 12, 10),
    cierre: local(2026, 1, 12, 10, 30),
    lines: [{ idproducto: '4001' }],
  });
  C.C5 = await f.closedOrder({
    idturno: 9000,
    numcheque: 504,
    mesa: '3',
    fecha: local(2026, 1, 12, 22, 30),
    cierre: local(2026, 1, 13, 0, 15),
    lines: [{ idproducto: '3007' }],
  });
  C.C7 = await f.closedOrder({
    idturno: 9400,
    numcheque: 1000,
    mesa: '10',
    fecha: today(5),
    cierre: today(8),
    lines: [{ idproducto: '1001' }, { idproducto: '4003' }],
  });

  T.TY = await f.tempOrder({ mesa: '6', fecha: new Date(day.start.getTime() - 2 * 3_600_000), lines: [{ idproducto: '1001' }] });
  T.TP1 = await f.tempOrder({ mesa: '5', fecha: today(10), lines: [{ idproducto: '2001' }, { idproducto: '1102', cantidad: 2 }] });
  T.TP2 = await f.tempOrder({
    estacion: 'CAJA2',
    seriefolio: 'B',
    mesa: 'T2',
    idmesero: '02',
    fecha: today(20),
    lines: [{ idproducto: '3002' }, { idproducto: '9002', modificador: true, comentario: 'bien gratinado', hora: today(21) }, { idproducto: '1006' }],
  });
  T.TP3 = await f.tempOrder({
    mesa: '7',
    fecha: today(30),
    idturno: 9500,
    numcheque: 1001,
    pagado: true,
    impreso: true,
    facturado: true,
    cierre: today(35),
    lines: [{ idproducto: '3004' }, { idproducto: '1003' }],
    pagos: [
      { idformadepago: 'TAR', importe: '103.50' },
      { idformadepago: 'EFE', importe: 100 },
    ],
  });
  T.TP4 = await f.tempOrder({ mesa: '8', fecha: today(40), cancelado: true, lines: [{ idproducto: '1005' }] });
  const tp5: AccountFixture = {
    estacion: 'CAJA2',
    seriefolio: 'B',
    mesa: '9',
    fecha: today(50),
    idturno: 9400,
    numcheque: 1002,
    pagado: true,
    impreso: true,
    cierre: today(55),
    lines: [{ idproducto: '3001' }],
    pagos: [{ idformadepago: 'EFE' }],
  };
  T.TP5 = await f.tempOrder(tp5);
  C.C6 = await f.closedCopyOf(T.TP5, { ...tp5, idturno: 9400 });
  return { f, C, T };
}

export const folios = (res: ApiResponse): number[] => res.body.data.map((o: { folio: number }) => o.folio);
export const of = (group: Record<string, WrittenAccount>, ...names: string[]) => names.map((n) => group[n]!.folio);
export const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

export function expectValidationError(res: ApiResponse, path: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('validation_failed');
  const paths: string[] = res.body.errors.map((e: { path: string }) => e.path);
  expect(
    paths.some((p) => p === path || p.startsWith(`${path}.`)),
    paths.join(', '),
  ).toBe(true);
}

/** The reads bound to a test file's stack. */
export function orderReadTools(stack: () => TestStack) {
  const get = (path: string) => stack().api('GET', path);

  /**
   * `search` against a model of the seed's rule: an order matches when one of `fields`, as the API
   * shows it (the total with 2 decimals), contains the text, whatever the letter case.
   */
  async function expectSearchModel(list: string, fields: Array<'folio' | 'numcheque' | 'mesa' | 'total'>, samples: string[]) {
    const all = (await get(`${list}/${BRANCH}?pageSize=500`)).body.data as Array<{
      folio: number;
      numcheque: number | null;
      mesa: string | null;
      totales: { total: number };
    }>;
    const shown = (o: (typeof all)[number], field: (typeof fields)[number]) =>
      field === 'total' ? o.totales.total.toFixed(2) : field === 'mesa' ? (o.mesa ?? '').toLowerCase() : String(o[field] ?? '');
    for (const sample of samples) {
      const expected = all.filter((o) => fields.some((field) => shown(o, field).includes(sample.toLowerCase()))).map((o) => o.folio);
      expect(folios(await get(`${list}/${BRANCH}?pageSize=500&search=${encodeURIComponent(sample)}`)), sample).toEqual(expected);
    }
  }

  return { get, expectSearchModel };
}
