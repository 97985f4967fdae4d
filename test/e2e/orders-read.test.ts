/** Account reads through the whole path (HTTP → gateway → WebSocket → agent → PostgreSQL), and their rules on the functions. */
import { PostgresQueryCompiler, type KyselyPlugin } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedBranch } from '../../src/demo/seed.js';
import * as ops from '../../src/protocol/operations/orders-read.js';
import type { PosContext } from '../../src/pos/context.js';
import { dialectOf, IN_LIST_LIMIT, TsqlRecorder } from '../../src/pos/sql-dialect.js';
import { type PosDb } from '../../src/pos/schema.js';
import { listClosedOrders, listDayOrders, listOpenOrders, searchClosedOrdersByShifts } from '../../src/pos/operations/orders-read.js';
import { operationalDay } from '../../src/pos/operational-day.js';
import { readPosSchema } from '../../src/pos/runtime.js';
import { totalsToApi } from '../../src/pos/totals.js';
import { localIso } from '../../src/pos/values.js';
import { newPosDatabase, openPosDb } from '../support/databases.js';
import { PosFixtures, type AccountFixture, type WrittenAccount } from '../support/fixtures.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { skipOnBabelfish } from '../support/babelfish.js';

let stack: TestStack;
let f: PosFixtures;

const local = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => new Date(y, mo - 1, d, h, mi, s);
const day = operationalDay(new Date(), 6);
const today = (minutes: number) => new Date(day.start.getTime() + minutes * 60_000);

/** Closed: C1..C5 from January shifts, C7 and C6 of today's closed shift (C6 still has its temporary twin TP5). */
const C: Record<string, WrittenAccount> = {};
/** Temporary: TY open since yesterday, TP1 and TP2 open today, TP3 paid and invoiced, TP4 cancelled, TP5 paid and copied to C6. */
const T: Record<string, WrittenAccount> = {};

beforeAll(async () => {
  stack = await startTestStack();
  f = await PosFixtures.for(stack.pos.get(BRANCH)!.db);
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
});

afterAll(async () => {
  await stack?.stop();
});

const get = (path: string) => stack.api('GET', path);
const folios = (res: ApiResponse): number[] => res.body.data.map((o: { folio: number }) => o.folio);
const of = (group: Record<string, WrittenAccount>, ...names: string[]) => names.map((n) => group[n]!.folio);
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

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

function expectValidationError(res: ApiResponse, path: string) {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('validation_failed');
  const paths: string[] = res.body.errors.map((e: { path: string }) => e.path);
  expect(
    paths.some((p) => p === path || p.startsWith(`${path}.`)),
    paths.join(', '),
  ).toBe(true);
}

describe('GET /temp_ordenes', () => {
  it('lists every temporary account by folio in the paginated envelope without jobId', async () => {
    const res = await get(`/temp_ordenes/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, page: 1, pageSize: 50, totalResults: 6, totalPages: 1, hasNextPage: false });
    expect(Date.parse(res.body.dispatchedAt)).not.toBeNaN();
    expect(folios(res)).toEqual(of(T, 'TY', 'TP1', 'TP2', 'TP3', 'TP4', 'TP5'));
  });

  it('returns full orders: header, totals from the stored columns, lines, payments and taxes', async () => {
    const res = await get(`/temp_ordenes/${BRANCH}?folio=${T.TP3!.folio}`);
    const order = res.body.data[0];
    expect(order).toMatchObject({
      folio: T.TP3!.folio,
      numcheque: 1001,
      seriefolio: 'A',
      mesa: '7',
      idMesero: '01',
      noPersonas: 2,
      estacion: 'CAJA1',
      idEmpresa: '0000000001',
      idTurno: 9500,
      fecha: localIso(today(30)),
      cierre: localIso(today(35)),
      pagado: true,
      cancelado: false,
      impreso: true,
      facturado: true,
      tipoDeServicio: 1,
      folioTemporal: null,
    });
    expect(order.totales).toEqual(totalsToApi(T.TP3!.totals));
    expect(order.totales.total).toBe(203.5);
    expect(order.pagos).toEqual([
      { idFormaDePago: 'EFE', descripcion: 'Efectivo', importe: 100, propina: 0, tipoDeCambio: 1 },
      { idFormaDePago: 'TAR', descripcion: 'Tarjeta de crédito/débito', importe: 103.5, propina: 0, tipoDeCambio: 1 },
    ]);
    expect(order.impuestos).toEqual([{ nombre: 'IVA', tasa: 16, importe: order.totales.totalImpuesto1 }]);
    expect(order.productos.map((l: { idProducto: string }) => l.idProducto)).toEqual(['3004', '1003']);
  });

  it('keeps modifiers, comments and line times of an open account', async () => {
    const res = await get(`/temp_ordenes/${BRANCH}?folio=${T.TP2!.folio}`);
    const order = res.body.data[0];
    expect(order).toMatchObject({ numcheque: 0, idTurno: 0, pagado: false, impreso: false, cierre: null, pagos: [], estacion: 'CAJA2', idMesero: '02' });
    expect(order.productos[1]).toEqual({
      folio: T.TP2!.folio,
      movimiento: 2,
      idProducto: '9002',
      descripcion: 'Extra queso',
      cantidad: 1,
      precio: 15,
      precioSinImpuestos: 12.931,
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      descuento: 0,
      cortesia: false,
      modificador: true,
      comentario: 'bien gratinado',
      hora: localIso(today(21)),
    });
    expect(order.productos[0]).toMatchObject({ movimiento: 1, idProducto: '3002', modificador: false, hora: localIso(today(20)) });
    expect(order.totales.total).toBe(135 + 15 + 45);
  });

  it('filters by folio and by invoiced', async () => {
    expect(folios(await get(`/temp_ordenes/${BRANCH}?folio=${T.TP4!.folio}`))).toEqual(of(T, 'TP4'));
    expect(folios(await get(`/temp_ordenes/${BRANCH}?facturado=true`))).toEqual(of(T, 'TP3'));
    expect(folios(await get(`/temp_ordenes/${BRANCH}?facturado=false`))).toEqual(of(T, 'TY', 'TP1', 'TP2', 'TP4', 'TP5'));
    const none = await get(`/temp_ordenes/${BRANCH}?folio=999999`);
    expect(none.body).toMatchObject({ totalResults: 0, totalPages: 0, hasNextPage: false, data: [] });
  });

  it('searches folio, numcheque, mesa and total as text, case-insensitively; not the station (seed)', async () => {
    expect(folios(await get(`/temp_ordenes/${BRANCH}?search=t2`))).toEqual(of(T, 'TP2'));
    expect(folios(await get(`/temp_ordenes/${BRANCH}?search=1002`))).toEqual(of(T, 'TP5'));
    expect(folios(await get(`/temp_ordenes/${BRANCH}?search=${T.TP4!.folio}`))).toContain(T.TP4!.folio);
    expect(folios(await get(`/temp_ordenes/${BRANCH}?search=caja2`))).toEqual([]);
    // TP2: 135 + 15 + 45, shown and searched with 2 decimals.
    expect(folios(await get(`/temp_ordenes/${BRANCH}?search=195.00`))).toEqual(of(T, 'TP2'));
    await expectSearchModel('/temp_ordenes', ['folio', 'numcheque', 'mesa', 'total'], ['1', '5', '.5', '00', '2']);
  });

  it('pages: a middle page, a page past the end, pageSize cut to 500', async () => {
    const second = await get(`/temp_ordenes/${BRANCH}?pageSize=2&page=2`);
    expect(second.body).toMatchObject({ page: 2, pageSize: 2, totalResults: 6, totalPages: 3, hasNextPage: true });
    expect(folios(second)).toEqual(of(T, 'TP2', 'TP3'));
    const past = await get(`/temp_ordenes/${BRANCH}?pageSize=2&page=4`);
    expect(past.body).toMatchObject({ page: 4, totalResults: 6, totalPages: 3, hasNextPage: false, data: [] });
    const cut = await get(`/temp_ordenes/${BRANCH}?pageSize=100000`);
    expect(cut.body.pageSize).toBe(500);
    expect(cut.body.data).toHaveLength(6);
  });

  it.each([
    ['folio=abc', 'querystring.folio'],
    ['folio=-1', 'querystring.folio'],
    ['facturado=maybe', 'querystring.facturado'],
    ['page=0', 'querystring.page'],
  ])('rejects %s', async (query, path) => {
    expectValidationError(await get(`/temp_ordenes/${BRANCH}?${query}`), path);
  });
});

describe('GET /temp_ordenes_detalle', () => {
  it('lists the lines of every temporary account by folio and movimiento, with jobId', async () => {
    const res = await get(`/temp_ordenes_detalle/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({ totalResults: 10, totalPages: 1 });
    const keys = res.body.data.map((l: { folio: number; movimiento: number }) => [l.folio, l.movimiento]);
    expect(keys).toEqual([...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]));
  });

  it('filters by folio and searches product id, description and comment', async () => {
    const lines = await get(`/temp_ordenes_detalle/${BRANCH}?folio=${T.TP2!.folio}`);
    expect(lines.body.data.map((l: { movimiento: number }) => l.movimiento)).toEqual([1, 2, 3]);
    const comment = await get(`/temp_ordenes_detalle/${BRANCH}?search=GRATINADO`);
    expect(comment.body.data.map((l: { folio: number; idProducto: string }) => [l.folio, l.idProducto])).toEqual([[T.TP2!.folio, '9002']]);
    const description = await get(`/temp_ordenes_detalle/${BRANCH}?search=guacamole`);
    expect(description.body.data.map((l: { folio: number }) => l.folio)).toEqual(of(T, 'TP1'));
    const id = await get(`/temp_ordenes_detalle/${BRANCH}?search=3001`);
    expect(id.body.data.map((l: { folio: number }) => l.folio)).toEqual(of(T, 'TP5'));
  });

  it('pages', async () => {
    const last = await get(`/temp_ordenes_detalle/${BRANCH}?pageSize=4&page=3`);
    expect(last.body).toMatchObject({ page: 3, totalPages: 3, hasNextPage: false });
    expect(last.body.data).toHaveLength(2);
  });
});

describe('GET /ordenes', () => {
  it('lists closed orders by folio, without jobId', async () => {
    const res = await get(`/ordenes/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).toMatchObject({ totalResults: 7, totalPages: 1, hasNextPage: false });
    expect(folios(res)).toEqual(of(C, 'C1', 'C2', 'C3', 'C4', 'C5', 'C7', 'C6'));
  });

  it('returns a closed order exactly', async () => {
    const res = await get(`/ordenes/${BRANCH}?search=501&fechaEnd=2026-01-10`);
    expect(res.body.data).toHaveLength(1);
    const [order] = res.body.data;
    const tacos = {
      folio: C.C1!.folio,
      idProducto: '3001',
      descripcion: 'Tacos al pastor (3 pzas)',
      precio: 89,
      precioSinImpuestos: 76.7241,
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      descuento: 0,
      cortesia: false,
      modificador: false,
      comentario: '',
      hora: localIso(local(2026, 1, 10, 12)),
    };
    expect(order).toEqual({
      folio: C.C1!.folio,
      numcheque: 501,
      seriefolio: 'A',
      orden: expect.any(Number),
      mesa: '1',
      idMesero: '01',
      noPersonas: 2,
      estacion: 'CAJA1',
      idEmpresa: '0000000001',
      idTurno: 10,
      fecha: localIso(local(2026, 1, 10, 12)),
      cierre: localIso(local(2026, 1, 10, 12, 45)),
      pagado: true,
      cancelado: false,
      impreso: true,
      facturado: false,
      tipoDeServicio: 1,
      folioTemporal: expect.any(Number),
      totales: {
        subtotal: 200.86,
        descuento: 0,
        descuentoImporte: 0,
        subtotalConDescuento: 200.86,
        totalImpuesto1: 32.14,
        totalImpuesto2: 0,
        totalImpuesto3: 0,
        total: 233,
        totalAlimentos: 153.45,
        totalBebidas: 47.41,
        totalOtros: 0,
        totalDescuentos: 0,
        totalCortesias: 0,
        totalDescuentoYCortesia: 0,
        totalSinDescuento: 200.86,
        totalArticulos: 3,
      },
      productos: [
        { ...tacos, movimiento: 1, cantidad: 2 },
        { ...tacos, movimiento: 2, idProducto: '1101', descripcion: 'Cerveza clara 355 ml', cantidad: 1, precio: 55, precioSinImpuestos: 47.4138 },
      ],
      pagos: [{ idFormaDePago: 'EFE', descripcion: 'Efectivo', importe: 233, propina: 0, tipoDeCambio: 1 }],
      impuestos: [{ nombre: 'IVA', tasa: 16, importe: 32.14 }],
    });
  });

  it('reports general discount, courtesy line and tip', async () => {
    const [order] = (await get(`/ordenes/${BRANCH}?search=5001`)).body.data;
    expect(order.folio).toBe(C.C2!.folio);
    expect(order.totales).toEqual({
      subtotal: 249.14,
      descuento: 10,
      descuentoImporte: 24.91,
      subtotalConDescuento: 224.22,
      totalImpuesto1: 35.88,
      totalImpuesto2: 0,
      totalImpuesto3: 0,
      total: 260.1,
      totalAlimentos: 224.22,
      totalBebidas: 0,
      totalOtros: 0,
      totalDescuentos: 0,
      totalCortesias: 99.14,
      totalDescuentoYCortesia: 124.05,
      totalSinDescuento: 348.28,
      totalArticulos: 3,
    });
    expect(order.totales).toEqual(totalsToApi(C.C2!.totals));
    expect(order.productos.map((l: { cortesia: boolean; descuento: number }) => [l.descuento, l.cortesia])).toEqual([
      [0, false],
      [0, false],
      [100, true],
    ]);
    expect(order.productos[1]).toMatchObject({ modificador: true, comentario: 'bien cocido', idProducto: '9004' });
    expect(order.pagos).toEqual([{ idFormaDePago: 'TAR', descripcion: 'Tarjeta de crédito/débito', importe: 260.1, propina: 30, tipoDeCambio: 1 }]);
    expect(order.impuestos).toEqual([{ nombre: 'IVA', tasa: 16, importe: 35.88 }]);
  });

  it('breaks taxes down by tax and rate', async () => {
    const [order] = (await get(`/ordenes/${BRANCH}?search=502&facturado=false&fechaStart=2026-01-11&fechaEnd=2026-01-11`)).body.data;
    expect(order.folio).toBe(C.C3!.folio);
    expect(order.impuestos).toEqual([
      { nombre: 'IVA', tasa: 8, importe: 5.78 },
      { nombre: 'IVA', tasa: 16, importe: 16.96 },
      { nombre: 'Impuesto 2', tasa: 8, importe: 1.93 },
    ]);
    expect(order.totales).toMatchObject({ totalImpuesto1: 22.74, totalImpuesto2: 1.93, total: 202.9 });
    expect(order.pagos).toEqual([{ idFormaDePago: 'USD', descripcion: 'Dólares', importe: 202.9, propina: 0, tipoDeCambio: 17.25 }]);
  });

  it('filters by opening date: a date alone is the whole day, a date-time end is inclusive', async () => {
    expect(folios(await get(`/ordenes/${BRANCH}?fechaStart=2026-01-11&fechaEnd=2026-01-11`))).toEqual(of(C, 'C3'));
    expect(folios(await get(`/ordenes/${BRANCH}?fechaEnd=2026-01-10T20:00:00`))).toEqual(of(C, 'C1', 'C2'));
    expect(folios(await get(`/ordenes/${BRANCH}?fechaEnd=2026-01-10T19:59:59`))).toEqual(of(C, 'C1'));
    expect(folios(await get(`/ordenes/${BRANCH}?fechaStart=2026-01-10T20:00:01&fechaEnd=2026-01-12`))).toEqual(of(C, 'C3', 'C4', 'C5'));
  });

  it('filters by close date', async () => {
    expect(folios(await get(`/ordenes/${BRANCH}?cierreStart=2026-01-12&cierreEnd=2026-01-12`))).toEqual(of(C, 'C4'));
    expect(folios(await get(`/ordenes/${BRANCH}?cierreStart=2026-01-13&cierreEnd=2026-01-13`))).toEqual(of(C, 'C5'));
    expect(folios(await get(`/ordenes/${BRANCH}?fechaStart=2026-01-12&fechaEnd=2026-01-12`))).toEqual(of(C, 'C4', 'C5'));
  });

  it('reads a date with an offset as that instant in branch time', async () => {
    const cierre = local(2026, 1, 10, 21, 30);
    const inZone = (d: Date, minutes: number) => {
      const shifted = new Date(d.getTime() + minutes * 60_000).toISOString().slice(0, 19);
      const sign = minutes < 0 ? '-' : '+';
      const abs = Math.abs(minutes);
      return `${shifted}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    };
    for (const value of [cierre.toISOString(), inZone(cierre, 330), inZone(cierre, -360), localIso(cierre)!]) {
      const res = await get(`/ordenes/${BRANCH}?${q({ cierreStart: value, cierreEnd: value })}`);
      expect(folios(res), value).toEqual(of(C, 'C2'));
    }
    const second = new Date(cierre.getTime() + 1000);
    expect(folios(await get(`/ordenes/${BRANCH}?${q({ cierreStart: inZone(second, 330), cierreEnd: '2026-01-10' })}`))).toEqual([]);
  });

  it("filters by the opening of the order's shift", async () => {
    expect(folios(await get(`/ordenes/${BRANCH}?turnoAperturaStart=2026-01-11T00:00:00&turnoAperturaEnd=2026-01-11T23:59:59`))).toEqual(of(C, 'C3'));
    expect(folios(await get(`/ordenes/${BRANCH}?turnoAperturaStart=2026-01-12`))).toEqual(of(C, 'C4', 'C5', 'C7', 'C6'));
    expect(folios(await get(`/ordenes/${BRANCH}?turnoAperturaEnd=2026-01-10`))).toEqual(of(C, 'C1', 'C2'));
  });

  it('filters by invoiced and searches', async ({ skip }) => {
    skipOnBabelfish(skip, 'likeEscape');
    expect(folios(await get(`/ordenes/${BRANCH}?facturado=true`))).toEqual(of(C, 'C2'));
    expect(folios(await get(`/ordenes/${BRANCH}?facturado=false`))).toEqual(of(C, 'C1', 'C3', 'C4', 'C5', 'C7', 'C6'));
    // The seed's closed-order search: folio, check number or total; neither station nor table.
    expect(folios(await get(`/ordenes/${BRANCH}?search=CAJA2`))).toEqual([]);
    expect(folios(await get(`/ordenes/${BRANCH}?search=${encodeURIComponent('50%')}`))).toEqual([]);
    expect(folios(await get(`/ordenes/${BRANCH}?search=5001`))).toEqual(of(C, 'C2'));
    const c4 = (await get(`/ordenes/${BRANCH}?search=503`)).body.data[0];
    expect(c4.folio).toBe(C.C4!.folio);
    expect(folios(await get(`/ordenes/${BRANCH}?search=${c4.totales.total.toFixed(2)}`))).toContain(C.C4!.folio);
    expect(folios(await get(`/ordenes/${BRANCH}?search=1002&facturado=false&turnoAperturaStart=2026-01-12`))).toEqual(of(C, 'C6'));
    expect(folios(await get(`/ordenes/${BRANCH}?search=1002&facturado=true`))).toEqual([]);
    await expectSearchModel('/ordenes', ['folio', 'numcheque', 'total'], ['1', '5', '.5', '00', '50']);
  });

  it.each([
    ['fechaStart=2026-02-30', 'querystring.fechaStart'],
    ['fechaEnd=yesterday', 'querystring.fechaEnd'],
    ['cierreStart=2026-01-10T25:00', 'querystring.cierreStart'],
    ['cierreEnd=10/01/2026', 'querystring.cierreEnd'],
    [`turnoAperturaStart=${encodeURIComponent('2026-01-10T10:00+25:00')}`, 'querystring.turnoAperturaStart'],
    ['turnoAperturaEnd=2026-13-01', 'querystring.turnoAperturaEnd'],
    ['facturado=si', 'querystring.facturado'],
  ])('rejects %s', async (query, path) => {
    expectValidationError(await get(`/ordenes/${BRANCH}?${query}`), path);
  });
});

describe('POST /ordenes/buscar', () => {
  const search = (body: unknown) => stack.api('POST', `/ordenes/buscar/${BRANCH}`, { body });

  it('returns the closed orders of the shifts sent, by shift then folio, without jobId', async () => {
    const res = await search({ idTurnos: [10] });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, page: 1, pageSize: 50, totalResults: 2, totalPages: 1 });
    expect(folios(res)).toEqual(of(C, 'C1', 'C2'));
    expect(res.body.data[0].productos).toHaveLength(2);
    expect(folios(await search({ idTurnos: [9400, 10, 10, 424242] }))).toEqual(of(C, 'C1', 'C2', 'C7', 'C6'));
  });

  it('applies the same filters', async () => {
    expect(folios(await search({ idTurnos: [10, 9000], facturado: true }))).toEqual(of(C, 'C2'));
    expect(folios(await search({ idTurnos: [9000], cierreStart: '2026-01-13' }))).toEqual(of(C, 'C5'));
    expect(folios(await search({ idTurnos: [10, 1500, 9000], search: '503', fechaStart: '2026-01-12', turnoAperturaEnd: '2026-01-12T08:00:00' }))).toEqual(
      of(C, 'C4'),
    );
  });

  it('takes 10,000 shift numbers and pages across them exactly', async () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => 10_000 - i);
    const all = await search({ idTurnos: ids });
    expect(all.status).toBe(200);
    const expected = of(C, 'C1', 'C2', 'C3', 'C4', 'C5', 'C7', 'C6');
    expect(folios(all)).toEqual(expected);
    const pages: number[] = [];
    for (let page = 1; page <= 4; page++) {
      const res = await search({ idTurnos: ids, page, pageSize: 2 });
      expect(res.body).toMatchObject({ page, pageSize: 2, totalResults: 7, totalPages: 4, hasNextPage: page < 4 });
      pages.push(...folios(res));
    }
    expect(pages).toEqual(expected);
    const past = await search({ idTurnos: ids, page: 5, pageSize: 2 });
    expect(past.body).toMatchObject({ totalResults: 7, data: [] });
  });

  // The chunks are cut for the dialect the context names; the statements run here either way.
  it('never puts more than a chunk of shift numbers in one SQL Server statement', async () => {
    const recorder = new TsqlRecorder();
    const ctx: PosContext = { db: f.db.withPlugin(recorder), dialect: 'mssql', schema: f.schema, log: pino({ level: 'silent' }), now: new Date() };
    const ids = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const page = await searchClosedOrdersByShifts.run(ctx, ops.searchClosedOrdersByShifts.input.parse({ idTurnos: ids, page: 2, pageSize: 3 }));
    expect(page.data.map((o) => o.folio)).toEqual(of(C, 'C4', 'C5', 'C7'));
    const parameters = recorder.statements.map((s) => Math.max(0, ...[...s.matchAll(/@(\d+)/g)].map((m) => Number(m[1]))));
    expect(recorder.statements.filter((s) => s.startsWith('select count(*)'))).toHaveLength(10_000 / IN_LIST_LIMIT.mssql);
    expect(Math.max(...parameters)).toBeLessThanOrEqual(IN_LIST_LIMIT.mssql + 10);
    expect(Math.max(...parameters)).toBeGreaterThan(IN_LIST_LIMIT.mssql);
  });

  it('sends 10,000 shift numbers to PostgreSQL as one array, counted and read once', async ({ skip }) => {
    skip(dialectOf(f.db) !== 'postgres', 'an array parameter is PostgreSQL only; the test above checks the SQL Server statements');
    const statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
    const compiler = new PostgresQueryCompiler();
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        if (args.node.kind === 'SelectQueryNode') statements.push(compiler.compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };
    const ctx: PosContext = { db: f.db.withPlugin(recorder), dialect: 'postgres', schema: f.schema, log: pino({ level: 'silent' }), now: new Date() };
    const ids = Array.from({ length: 10_000 }, (_, i) => i + 1);
    const page = await searchClosedOrdersByShifts.run(ctx, ops.searchClosedOrdersByShifts.input.parse({ idTurnos: ids, page: 2, pageSize: 3 }));
    expect(page.data.map((o) => o.folio)).toEqual(of(C, 'C4', 'C5', 'C7'));
    const searches = statements.filter((s) => s.sql.includes('"h"."idturno" = any($1)'));
    expect(searches.map((s) => s.sql.startsWith('select count(*)'))).toEqual([true, false]);
    for (const s of searches) expect(s.parameters[0]).toEqual(ids);
    expect(Math.max(...statements.map((s) => s.parameters.length))).toBeLessThanOrEqual(10);
  });

  it("stays within SQL Server's 2,100 parameters with every filter beside a chunk", async () => {
    const recorder = new TsqlRecorder();
    const ctx: PosContext = { db: f.db.withPlugin(recorder), dialect: 'mssql', schema: f.schema, log: pino({ level: 'silent' }), now: new Date() };
    const input = ops.searchClosedOrdersByShifts.input.parse({
      idTurnos: Array.from({ length: 10_000 }, (_, i) => i + 1),
      search: '5',
      facturado: true,
      fechaStart: '2026-01-01',
      fechaEnd: '2026-12-31',
      cierreStart: '2026-01-01',
      cierreEnd: '2026-12-31',
      turnoAperturaStart: '2026-01-01',
      turnoAperturaEnd: '2026-12-31',
      page: 1,
      pageSize: 50,
    });
    await searchClosedOrdersByShifts.run(ctx, input);
    const parameters = recorder.statements.map((s) => Math.max(0, ...[...s.matchAll(/@(\d+)/g)].map((m) => Number(m[1]))));
    expect(Math.max(...parameters)).toBeGreaterThan(IN_LIST_LIMIT.mssql);
    expect(Math.max(...parameters)).toBeLessThanOrEqual(2_100);
  });

  it('answers an empty page for an empty list (seed: up to 10,000 ids)', async () => {
    const res = await search({ idTurnos: [] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, totalResults: 0, totalPages: 0, hasNextPage: false, data: [] });
  });

  it.each([
    ['10,001 numbers', { idTurnos: Array.from({ length: 10_001 }, (_, i) => i + 1) }],
    ['text', { idTurnos: ['x'] }],
    ['fractions', { idTurnos: [1.5] }],
    ['no list', {}],
  ])('rejects %s', async (_name, body) => {
    expectValidationError(await search(body), 'body.idTurnos');
  });

  it('rejects a bad date filter in the body', async () => {
    expectValidationError(await search({ idTurnos: [10], fechaStart: '2026-01-32' }), 'body.fechaStart');
  });
});

describe('GET /ordenes_detalle', () => {
  it('lists closed lines with jobId, by folio and movimiento, with the courtesy flag', async () => {
    const res = await get(`/ordenes_detalle/${BRANCH}?folio=${C.C2!.folio}`);
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.data.map((l: { movimiento: number; idProducto: string; cortesia: boolean }) => [l.movimiento, l.idProducto, l.cortesia])).toEqual([
      [1, '3005', false],
      [2, '9004', false],
      [3, '1103', true],
    ]);
    expect(res.body.data[2]).toMatchObject({ descuento: 100, precio: 115, descripcion: 'Piña colada' });
    const all = await get(`/ordenes_detalle/${BRANCH}`);
    expect(all.body.totalResults).toBe(13);
  });

  it('searches and pages', async () => {
    const comment = await get(`/ordenes_detalle/${BRANCH}?search=cocido`);
    expect(comment.body.data.map((l: { folio: number; movimiento: number }) => [l.folio, l.movimiento])).toEqual([[C.C2!.folio, 2]]);
    const page = await get(`/ordenes_detalle/${BRANCH}?pageSize=5&page=3`);
    expect(page.body).toMatchObject({ totalResults: 13, totalPages: 3, hasNextPage: false });
    expect(page.body.data).toHaveLength(3);
  });
});

describe('GET /ordenes_dia', () => {
  it("lists today's closed orders then today's temporary ones, the copied account once, with the window", async () => {
    const res = await get(`/ordenes_dia/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).toMatchObject({ ventanaInicio: localIso(day.start), ventanaFin: localIso(day.end), totalResults: 6, totalPages: 1 });
    expect(res.body.data.map((o: { folio: number; origen: string }) => [o.folio, o.origen])).toEqual([
      [C.C7!.folio, 'cerrada'],
      [C.C6!.folio, 'cerrada'],
      [T.TP1!.folio, 'temporal'],
      [T.TP2!.folio, 'temporal'],
      [T.TP3!.folio, 'temporal'],
      [T.TP4!.folio, 'temporal'],
    ]);
    const copy = res.body.data[1];
    expect(copy).toMatchObject({ folioTemporal: T.TP5!.folio, estacion: 'CAJA2', pagado: true, idTurno: 9400 });
    expect(copy.productos.map((l: { idProducto: string }) => l.idProducto)).toEqual(['3001']);
    expect(res.body.data[4].pagos).toHaveLength(2);
  });

  it('pages across the closed and the temporary part', async () => {
    const pageOf = async (page: number, pageSize: number) => folios(await get(`/ordenes_dia/${BRANCH}?page=${page}&pageSize=${pageSize}`));
    expect(await pageOf(2, 1)).toEqual(of(C, 'C6'));
    expect(await pageOf(3, 1)).toEqual(of(T, 'TP1'));
    expect(await pageOf(1, 4)).toEqual([...of(C, 'C7', 'C6'), ...of(T, 'TP1', 'TP2')]);
    expect(await pageOf(2, 4)).toEqual(of(T, 'TP3', 'TP4'));
    const past = await get(`/ordenes_dia/${BRANCH}?page=3&pageSize=4`);
    expect(past.body).toMatchObject({ totalResults: 6, totalPages: 2, hasNextPage: false, data: [] });
  });

  it('filters by invoiced and searches both parts', async () => {
    expect(folios(await get(`/ordenes_dia/${BRANCH}?facturado=true`))).toEqual(of(T, 'TP3'));
    expect(folios(await get(`/ordenes_dia/${BRANCH}?search=t2`))).toEqual(of(T, 'TP2'));
    expect(folios(await get(`/ordenes_dia/${BRANCH}?search=1002`))).toEqual(of(C, 'C6'));
    expect(folios(await get(`/ordenes_dia/${BRANCH}?search=zzz`))).toEqual([]);
  });

  it('applies dayStartHour', async () => {
    const hour = 23;
    const res = await get(`/ordenes_dia/${BRANCH}?dayStartHour=${hour}`);
    const window = operationalDay(new Date(), hour);
    expect(res.body).toMatchObject({ ventanaInicio: localIso(window.start), ventanaFin: localIso(window.end) });
    expect(new Date(window.start).getHours()).toBe(hour);
  });

  it.each(['24', '-1', 'x', '1.5'])('rejects dayStartHour=%s', async (value) => {
    expectValidationError(await get(`/ordenes_dia/${BRANCH}?dayStartHour=${value}`), 'querystring.dayStartHour');
  });

  it('documents the default of dayStartHour', async () => {
    const spec = await stack.api('GET', '/openapi.json', { key: null });
    const param = spec.body.paths['/ordenes_dia/{licenseKey}'].get.parameters.find((p: { name: string }) => p.name === 'dayStartHour');
    expect(param.description ?? param.schema?.description).toMatch(/default 6/);
  });
});

describe('GET /temp_ordenes/{licenseKey}/abiertas', () => {
  it("lists the operational day's accounts not cancelled, paid ones included, with only the seed's fields", async () => {
    const res = await get(`/temp_ordenes/${BRANCH}/abiertas`);
    expect(res.status).toBe(200);
    // The seed: workerId, dispatchedAt, totalResults and the records; nothing else (no jobId, no paging, no turnosAbiertos).
    expect(Object.keys(res.body).sort()).toEqual(['data', 'dispatchedAt', 'totalResults', 'workerId']);
    // Not TY (opened before the day began), TP4 (cancelled) nor TP5 (paid in shift 9400, which has closed).
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, totalResults: 3 });
    expect(folios(res)).toEqual(of(T, 'TP1', 'TP2', 'TP3'));
    expect(res.body.data[0].productos.map((l: { idProducto: string }) => l.idProducto)).toEqual(['2001', '1102']);
    expect(res.body.data[2]).toMatchObject({ pagado: true, cancelado: false, idTurno: 9500 });
  });

  it('still lists them when no shift is open', async () => {
    await f.db
      .updateTable('turnos')
      .set({ cierre: today(200) })
      .where('idturno', '=', 9500)
      .execute();
    try {
      const res = await get(`/temp_ordenes/${BRANCH}/abiertas`);
      expect(folios(res)).toEqual(of(T, 'TP1', 'TP2'));
    } finally {
      await f.db.updateTable('turnos').set({ cierre: null }).where('idturno', '=', 9500).execute();
    }
  });
});

describe('OpenAPI', () => {
  it('describes every order read', async () => {
    const spec = await stack.api('GET', '/openapi.json', { key: null });
    for (const [path, method] of [
      ['/temp_ordenes/{licenseKey}', 'get'],
      ['/temp_ordenes/{licenseKey}/abiertas', 'get'],
      ['/temp_ordenes_detalle/{licenseKey}', 'get'],
      ['/ordenes/{licenseKey}', 'get'],
      ['/ordenes/buscar/{licenseKey}', 'post'],
      ['/ordenes_detalle/{licenseKey}', 'get'],
      ['/ordenes_dia/{licenseKey}', 'get'],
    ] as const) {
      expect(spec.body.paths[path]?.[method], path).toBeDefined();
    }
  });
});

describe('demo history (seedHistory)', () => {
  let db: PosDb;
  let close: () => Promise<void>;
  let ctx: PosContext;
  const now = new Date();

  beforeAll(async () => {
    const pos = await openPosDb(await newPosDatabase('empty'));
    db = pos.db;
    close = pos.close;
    const schema = await readPosSchema(db, pos.dialect);
    await seedBranch(db, schema, { name: 'Sucursal Historia', forceCancelReason: false, forceDiscountType: false, now });
    ctx = { db, dialect: pos.dialect, schema, log: pino({ level: 'silent' }), now };
  });

  afterAll(async () => {
    await close?.();
  });

  it('closes shift 1 earlier and keeps the open shift on CAJA1 as number 2', async () => {
    const shifts = await db
      .selectFrom('turnos')
      .select(['idturno', 'idestacion', 'apertura', 'cierre', 'efectivo', 'tarjeta', 'vales', 'credito'])
      .orderBy('idturno')
      .execute();
    expect(shifts.map((s) => [Number(s.idturno), s.idestacion, s.cierre === null])).toEqual([
      [1, 'CAJA1', false],
      [2, 'CAJA1', true],
    ]);
    expect(shifts[0]!.cierre!.getTime()).toBeLessThanOrEqual(shifts[1]!.apertura!.getTime());
    const settings = await db.selectFrom('parametros').select('ultimoturno').executeTakeFirstOrThrow();
    expect(Number(settings.ultimoturno)).toBe(2);

    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    const paid = closed.data.flatMap((o) => o.pagos).reduce((sum, p) => sum + Math.round(p.importe * 100), 0);
    const buckets = ['efectivo', 'tarjeta', 'vales', 'credito'] as const;
    expect(buckets.reduce((sum, b) => sum + Math.round(Number(shifts[0]![b]) * 100), 0)).toBe(paid);
  });

  it('has three closed orders of shift 1, printed, paid in full, one invoiced', async () => {
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    expect(closed.totalResults).toBe(3);
    expect(closed.data.map((o) => [o.numcheque, o.idTurno, o.pagado, o.impreso, o.cancelado])).toEqual([
      [998, 1, true, true, false],
      [999, 1, true, true, false],
      [1000, 1, true, true, false],
    ]);
    for (const order of closed.data) {
      expect(order.productos.length).toBeGreaterThan(0);
      expect(order.pagos.reduce((sum, p) => sum + Math.round(p.importe * 100), 0)).toBe(Math.round(order.totales.total * 100));
    }
    expect(closed.data.filter((o) => o.facturado)).toHaveLength(1);
  });

  it('links the invoiced order to a CFDI 4.0 with its totals', async () => {
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({ facturado: true }));
    const [order] = closed.data;
    const link = await db.selectFrom('foliosfacturados').select(['idfactura', 'folio']).execute();
    expect(link.map((l) => Number(l.folio))).toEqual([order!.folio]);
    const invoice = await db
      .selectFrom('facturas')
      .select(['idfactura', 'femexxmlvalido', 'total', 'idempresa'])
      .where('idfactura', '=', link[0]!.idfactura)
      .executeTakeFirstOrThrow();
    expect(invoice.idempresa).toBe('0000000001');
    const xml = invoice.femexxmlvalido!;
    expect(xml).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<cfdi:Comprobante /);
    expect(xml).toContain('Version="4.0"');
    expect(xml).toContain(`Total="${order!.totales.total.toFixed(2)}"`);
    expect(xml).toContain(`TotalImpuestosTrasladados="${order!.totales.totalImpuesto1.toFixed(2)}"`);
    expect(xml).toContain(`SubTotal="${order!.totales.subtotalConDescuento.toFixed(2)}"`);
    expect(xml.match(/<(\/?)cfdi:Comprobante/g)).toEqual(['<cfdi:Comprobante', '</cfdi:Comprobante']);
  });

  it("lists today's two open accounts and the one paid in the open shift on CAJA1, none named by a closed order", async () => {
    const open = await listOpenOrders.run(ctx, {});
    expect(open.data.map((o) => [o.estacion, o.orden, o.idTurno, o.pagado, o.productos.length > 0])).toEqual([
      ['CAJA1', 1, 0, false, true],
      ['CAJA1', 2, 0, false, true],
      ['CAJA1', 3, 2, true, true],
    ]);
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    const names = new Set(closed.data.map((o) => o.folioTemporal));
    expect(open.data.filter((o) => names.has(o.folio))).toEqual([]);
    const folio = await db.selectFrom('folios').select(['ultimaorden', 'ultimofolio']).where('serie', '=', 'A').executeTakeFirstOrThrow();
    expect([Number(folio.ultimaorden), Number(folio.ultimofolio)]).toEqual([3, 1001]);
  });

  it('puts the night shift and its 03:00 sale in the operational day before, outside today', async () => {
    const day = await listDayOrders.run(ctx, ops.listDayOrders.input.parse({}));
    expect(day.data.map((o) => [o.origen, o.idTurno])).toEqual([
      ['temporal', 0],
      ['temporal', 0],
      ['temporal', 2],
    ]);
    const closed = await listClosedOrders.run(ctx, ops.listClosedOrders.input.parse({}));
    const night = closed.data.find((o) => o.numcheque === 1000)!;
    expect(night.fecha).toMatch(/T03:00:00/);
  });
});
