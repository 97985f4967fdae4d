/**
 * Reading temporary accounts through the API (GET /temp_ordenes and /temp_ordenes_detalle)
 * from a known order history, and the OpenAPI entry of every order read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totalsToApi } from '../../src/pos/totals.js';
import { localIso } from '../../src/pos/values.js';
import { type WrittenAccount } from '../support/fixtures.js';
import { branchClock, expectValidationError, folios, of, orderReadTools, today, writeOrderHistory } from '../support/order-history.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
let T: Record<string, WrittenAccount>;
const { get, expectSearchModel } = orderReadTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack({ agent: { wallClock: branchClock } });
  ({ T } = await writeOrderHistory(stack.pos.get(BRANCH)!.db));
});

afterAll(async () => {
  await stack?.stop();
});

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
