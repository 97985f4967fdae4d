/**
 * Reading closed orders through the API (GET /ordenes and /ordenes_detalle) from a known order
 * history: exact orders, discounts, taxes, date filters and search.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totalsToApi } from '../../src/pos/totals.js';
import { localIso } from '../../src/pos/values.js';
import { type WrittenAccount } from '../support/fixtures.js';
import { branchClock, expectValidationError, folios, local, of, orderReadTools, q, writeOrderHistory } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { skipOnBabelfish } from '../support/babelfish.js';

let stack: TestStack;
let C: Record<string, WrittenAccount>;
const { get, expectSearchModel } = orderReadTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: branchClock } });
  ({ C } = await writeOrderHistory(stack.pos.get(BRANCH)!.db));
});

afterAll(async () => {
  await stack?.stop();
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
