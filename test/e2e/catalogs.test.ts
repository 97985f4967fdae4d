/** Catalogue reads through the whole path: HTTP → gateway → WebSocket → agent → PostgreSQL. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PRODUCTS } from '../../src/demo/menu.js';
import { SR10 } from '../support/schema-variant.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { skipOnBabelfish } from '../support/babelfish.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
  // Products whose names hold LIKE's special characters, to prove they are taken literally.
  const db = stack.pos.get(BRANCH)!.db;
  for (const [id, name] of <Array<[string, string]>>[
    ['7001', 'Combo [2x1] tacos'],
    ['7002', 'Menu_infantil'],
    ['7003', 'Menuxinfantil'],
  ]) {
    await db
      .insertInto('productos')
      .values({
        idproducto: id,
        descripcion: name,
        nombrecorto: name.slice(0, 20),
        idgrupo: 'OTR',
        descripcion_detalle: '',
        calorias: 0,
        visible_menu: true,
        capturar_pendientes: false,
        id_etiqueta: '',
        id_etiqueta_descripcion: '',
        idprodserv_SAT: '',
        usarVectorPlus: false,
        imagenme_modified: false,
        monitoreo: false,
      })
      .execute();
    await db
      .insertInto('productosdetalle')
      .values({
        idproducto: id,
        idempresa: '0000000001',
        precio: '10.00',
        preciosinimpuestos: '8.6207',
        impuesto1: 16,
        impuesto2: 0,
        impuesto3: 0,
        bloqueado: false,
        ocultarmitades: false,
        dev_impuestoimporte3: false,
        impuestoimporte3: 0,
        usa_imagen_monitor: false,
        comisionprecio: 0,
        usa_bascula: false,
      })
      .execute();
  }
});

afterAll(async () => {
  await stack?.stop();
});

const productCount = DEMO_PRODUCTS.length + 3;
/** The demo's three terminals, three areas and eight tables. */
const STATION_COUNT = 14;

describe('GET /productos', () => {
  it('returns the paginated envelope with every product field', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?pageSize=5`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({
      workerId: `agent-${BRANCH}`,
      page: 1,
      pageSize: 5,
      totalResults: productCount,
      totalPages: Math.ceil(productCount / 5),
      hasNextPage: true,
    });
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(res.body.dispatchedAt)).not.toBeNaN();
    expect(res.body.data).toHaveLength(5);
    expect(res.body.data[0]).toEqual({
      idProducto: '1001',
      idEmpresa: '0000000001',
      descripcionProducto: 'Café americano',
      idGrupo: 'BEB',
      clasificacion: 1,
      nombreCorto: 'Americano',
      visibleMenu: true,
      precio: 35,
      precioSinImpuestos: 30.1724,
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      bloqueado: false,
      permitirprodcompenmodif: false,
    });
  });

  it('filters by group, classification and menu visibility', async () => {
    const byGroup = await stack.api('GET', `/productos/${BRANCH}?idGrupo=POS`);
    expect(byGroup.body.data.map((p: { idProducto: string }) => p.idProducto)).toEqual(['4001', '4002', '4003', '4004']);

    const beverages = await stack.api('GET', `/productos/${BRANCH}?clasificacion=1&pageSize=500`);
    expect(beverages.body.totalResults).toBe(DEMO_PRODUCTS.filter((p) => ['BEB', 'BAR'].includes(p.idgrupo)).length);
    expect(beverages.body.data.every((p: { clasificacion: number }) => p.clasificacion === 1)).toBe(true);

    const hidden = await stack.api('GET', `/productos/${BRANCH}?visibleMenu=false`);
    expect(hidden.body.data.map((p: { idProducto: string }) => p.idProducto)).toEqual(['4004']);

    const combined = await stack.api('GET', `/productos/${BRANCH}?idGrupo=PLA&visibleMenu=true&search=pollo`);
    expect(combined.body.data.map((p: { descripcionProducto: string }) => p.descripcionProducto)).toEqual(['Mole poblano con pollo']);
  });

  it('reports blocked products and modifier permission from the company detail row', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?search=cochinita`);
    expect(res.body.data[0]).toMatchObject({ idProducto: '3009', bloqueado: true });
    const modifier = await stack.api('GET', `/productos/${BRANCH}?search=extra%20queso`);
    expect(modifier.body.data[0]).toMatchObject({ idProducto: '9002', permitirprodcompenmodif: true, precio: 15 });
  });

  it('searches case-insensitively across id, description and short name', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?search=TACOS`);
    expect(res.body.data.map((p: { idProducto: string }) => p.idProducto).sort()).toEqual(['3001', '7001']);
    const byId = await stack.api('GET', `/productos/${BRANCH}?search=300`);
    expect(byId.body.totalResults).toBe(9);
  });

  it('takes %, _ and [ in search literally', async ({ skip }) => {
    skipOnBabelfish(skip, 'likeEscape');
    const percent = await stack.api('GET', `/productos/${BRANCH}?search=${encodeURIComponent('100%')}`);
    expect(percent.body.data.map((p: { idProducto: string }) => p.idProducto)).toEqual(['9501']);
    const underscore = await stack.api('GET', `/productos/${BRANCH}?search=${encodeURIComponent('menu_')}`);
    expect(underscore.body.data.map((p: { idProducto: string }) => p.idProducto)).toEqual(['7002']);
    const bracket = await stack.api('GET', `/productos/${BRANCH}?search=${encodeURIComponent('[2x1]')}`);
    expect(bracket.body.data.map((p: { idProducto: string }) => p.idProducto)).toEqual(['7001']);
    const lone = await stack.api('GET', `/productos/${BRANCH}?search=${encodeURIComponent('%')}`);
    expect(lone.body.totalResults).toBe(1);
  });

  it('returns an empty page past the end, with the totals', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?page=99&pageSize=10`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      page: 99,
      pageSize: 10,
      totalResults: productCount,
      totalPages: Math.ceil(productCount / 10),
      hasNextPage: false,
      data: [],
    });
  });

  it('cuts pageSize to 500 and reports the applied value', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?pageSize=100000`);
    expect(res.status).toBe(200);
    expect(res.body.pageSize).toBe(500);
    expect(res.body.data).toHaveLength(productCount);
  });

  it('reports totalPages 0 when nothing matches', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?search=zzzz-nothing`);
    expect(res.body).toMatchObject({ totalResults: 0, totalPages: 0, hasNextPage: false, data: [] });
  });

  it('the last page is exactly full and has no next page', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?pageSize=${productCount}`);
    expect(res.body).toMatchObject({ totalPages: 1, hasNextPage: false });
    expect(res.body.data).toHaveLength(productCount);
  });

  it.each([
    ['page=0', 'querystring.page'],
    ['page=-1', 'querystring.page'],
    ['page=abc', 'querystring.page'],
    ['pageSize=0', 'querystring.pageSize'],
    ['pageSize=1.5', 'querystring.pageSize'],
    ['clasificacion=4', 'querystring.clasificacion'],
    ['visibleMenu=maybe', 'querystring.visibleMenu'],
  ])('rejects %s with a 400 problem naming the field', async (query, path) => {
    const res = await stack.api('GET', `/productos/${BRANCH}?${query}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: 'validation_failed', instance: `/productos/${BRANCH}` });
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('other catalogues', () => {
  it('lists groups and searches them by classification name', async () => {
    const all = await stack.api('GET', `/grupos/${BRANCH}`);
    expect(all.body.totalResults).toBe(7);
    expect(all.body.data[0]).toEqual({ idGrupo: 'BAR', descripcion: 'Bar y coctelería', clasificacion: 1 });
    const beverages = await stack.api('GET', `/grupos/${BRANCH}?search=bebidas`);
    expect(beverages.body.data.map((g: { idGrupo: string }) => g.idGrupo)).toEqual(['BAR', 'BEB']);
    const byNumber = await stack.api('GET', `/grupos/${BRANCH}?search=3`);
    expect(byNumber.body.data.map((g: { idGrupo: string }) => g.idGrupo)).toEqual(['MOD', 'OTR']);
  });

  it('lists stations with paging and search', async () => {
    const res = await stack.api('GET', `/estaciones/${BRANCH}?pageSize=1&page=2`);
    expect(res.body).toMatchObject({ page: 2, pageSize: 1, totalResults: STATION_COUNT, totalPages: STATION_COUNT, hasNextPage: true });
    expect(res.body.data).toEqual([{ tipo: 'terminal', idEstacion: 'CAJA2', descripcion: 'Caja terraza', serie: 'B', seriefolio: 'B', ip: '127.0.0.1' }]);
    const search = await stack.api('GET', `/estaciones/${BRANCH}?search=principal`);
    expect(search.body.data.map((s: { idEstacion: string }) => s.idEstacion)).toEqual(['CAJA1']);
  });

  it('lists terminals, areas and tables, a table with its area and the account that holds it (seed: "Stations are tables, areas and terminals")', async () => {
    const db = stack.pos.get(BRANCH)!.db;
    const opened = await stack.api('POST', `/temp_ordenes/${BRANCH}`, {
      body: orderBody({ serie: 'A', noPersonas: 2, mesa: '6', idMesero: '01' }),
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(opened.status, opened.text).toBe(201);
    const all = await stack.api('GET', `/estaciones/${BRANCH}?pageSize=100`);
    expect(all.status).toBe(200);
    expect(all.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    const ids = all.body.data.map((s: { tipo: string; idEstacion: string }) => `${s.tipo}:${s.idEstacion}`);
    expect(ids).toEqual([
      ...['CAJA1', 'CAJA2', 'TERM1'].map((id) => `terminal:${id}`),
      ...['01', '02', '03'].map((id) => `area:${id}`),
      ...['1', '2', '3', '4', '5', '6', 'T1', 'T2'].map((id) => `mesa:${id}`),
    ]);
    const byId = (id: string) => all.body.data.find((s: { idEstacion: string }) => s.idEstacion === id);
    expect(byId('01')).toEqual({ tipo: 'area', idEstacion: '01', descripcion: 'Comedor', tipoDeServicio: 1 });
    expect(byId('3')).toEqual({ tipo: 'mesa', idEstacion: '3', descripcion: null, idArea: '01', personas: 4, ocupada: false, folio: null });
    expect(byId('6')).toEqual({ tipo: 'mesa', idEstacion: '6', descripcion: null, idArea: '01', personas: 4, ocupada: true, folio: opened.body.folio });
    // The demo's own open accounts hold tables 1 and 2.
    const demoHolder = async (mesa: string) =>
      Number((await db.selectFrom('tempcheques').select('folio').where('mesa', '=', mesa).where('pagado', '=', false).executeTakeFirstOrThrow()).folio);
    expect(byId('1')).toMatchObject({ ocupada: true, folio: await demoHolder('1') });
    expect(byId('2')).toMatchObject({ ocupada: true, folio: await demoHolder('2') });

    // Paging and search run across the three kinds.
    const page2 = await stack.api('GET', `/estaciones/${BRANCH}?pageSize=4&page=2`);
    expect(page2.body).toMatchObject({ page: 2, pageSize: 4, totalResults: STATION_COUNT, totalPages: 4, hasNextPage: true });
    expect(page2.body.data.map((s: { idEstacion: string }) => s.idEstacion)).toEqual(['02', '03', '1', '2']);
    const ones = await stack.api('GET', `/estaciones/${BRANCH}?search=1`);
    expect(ones.body.data.map((s: { tipo: string; idEstacion: string }) => `${s.tipo}:${s.idEstacion}`)).toEqual([
      'terminal:CAJA1',
      'terminal:TERM1',
      'area:01',
      'mesa:1',
      'mesa:T1',
    ]);
    const dining = await stack.api('GET', `/estaciones/${BRANCH}?search=COMEDOR`);
    expect(dining.body.data.map((s: { idEstacion: string }) => s.idEstacion)).toEqual(['01']);

    // Paid, the account no longer holds the table.
    await db.updateTable('tempcheques').set({ pagado: true }).where('folio', '=', opened.body.folio).execute();
    const freed = await stack.api('GET', `/estaciones/${BRANCH}?search=6`);
    expect(freed.body.data).toEqual([expect.objectContaining({ idEstacion: '6', ocupada: false, folio: null })]);
  });

  it('lists waiters without paging and without jobId', async () => {
    const res = await stack.api('GET', `/meseros/${BRANCH}`);
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body).not.toHaveProperty('page');
    expect(res.body).toMatchObject({ workerId: `agent-${BRANCH}`, totalResults: 2 });
    expect(res.body.data).toEqual([
      { idMesero: '01', nombre: 'Juan Pérez', visible: true },
      { idMesero: '02', nombre: 'María López', visible: true },
    ]);
    const search = await stack.api('GET', `/meseros/${BRANCH}?search=maría`);
    expect(search.body.data.map((w: { idMesero: string }) => w.idMesero)).toEqual(['02']);
  });

  it('lists companies without jobId', async () => {
    const res = await stack.api('GET', `/empresas/${BRANCH}`);
    expect(res.body).not.toHaveProperty('jobId');
    expect(res.body.data).toEqual([{ idEmpresa: '0000000001', nombre: 'Sucursal Centro', razonSocial: 'Restaurantes Demo S.A. de C.V.', rfc: 'RDE010101AB1' }]);
  });

  it('lists payment methods of every tipo', async () => {
    const res = await stack.api('GET', `/formas_pago/${BRANCH}`);
    expect(res.body.jobId).toBeDefined();
    expect(res.body.data.map((f: { tipo: number }) => f.tipo).sort()).toEqual([1, 1, 2, 3, 4]);
    expect(res.body.data.find((f: { idFormaDePago: string }) => f.idFormaDePago === 'USD')).toEqual({
      idFormaDePago: 'USD',
      descripcion: 'Dólares',
      tipo: 1,
      tipoDeCambio: 17.25,
      visible: true,
    });
    const search = await stack.api('GET', `/formas_pago/${BRANCH}?search=vales`);
    expect(search.body.data.map((f: { idFormaDePago: string }) => f.idFormaDePago)).toEqual(['VAL']);
  });

  it('lists only visible discount types, with maximoActivado', async () => {
    const res = await stack.api('GET', `/tipos_descuento/${BRANCH}`);
    expect(res.body).not.toHaveProperty('page');
    expect(res.body.data).toEqual([
      // SR 10 has no maximum columns: no type has a ceiling there.
      { idTipoDescuento: 'EMP', descripcion: 'Empleado', descuento: 10, maximoActivado: !SR10 },
      { idTipoDescuento: 'LIB', descripcion: 'Libre', descuento: 0, maximoActivado: false },
    ]);
  });

  it('non-paginated lists carry only workerId, dispatchedAt, totalResults and the records; discount types also jobId (seed)', async () => {
    const keys = async (path: string) => Object.keys((await stack.api('GET', `${path}/${BRANCH}`)).body).sort();
    const envelope = ['data', 'dispatchedAt', 'totalResults', 'workerId'];
    expect(await keys('/meseros')).toEqual(envelope);
    expect(await keys('/empresas')).toEqual(envelope);
    expect(await keys('/tipos_descuento')).toEqual(['jobId', ...envelope].sort());
  });
});
