/**
 * Writes on accounts through the whole path, each asserting the database afterwards: create
 * (open and closed), add lines, cancel lines, discounts, the open-account rule and atomicity.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { SR10 } from '../support/schema-variant.js';
import { BRANCH, OTHER_USERS_BRANCH, startTestStack, STRICT_BRANCH, type ApiResponse, type TestStack } from '../support/stack.js';

let stack: TestStack;
let db: PosDb;
let strictDb: PosDb;

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  strictDb = stack.pos.get(STRICT_BRANCH)!.db;
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown, opts: { key?: string; branch?: string } = {}): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', opts.branch ?? BRANCH), { body, headers: { 'idempotency-key': opts.key ?? randomUUID() } });
}

const base = { estacion: 'CAJA1', serie: 'A', idEmpresa: '0000000001', noPersonas: 2 };

async function openOrder(productos?: unknown[], extra: Record<string, unknown> = {}, branch = BRANCH): Promise<number> {
  const res = await write('/temp_ordenes/{lk}', { ...base, mesa: '', idMesero: '01', ...extra, ...(productos ? { productos } : {}) }, { branch });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.folio;
}

async function header(folio: number, on = db) {
  return on.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
}

async function lines(folio: number, on = db) {
  return on.selectFrom('tempcheqdet').selectAll().where('foliodet', '=', folio).orderBy('movimiento').execute();
}

async function counts(on = db) {
  const count = async (table: 'tempcheques' | 'tempcheqdet' | 'tempcancela' | 'productosenproduccion' | 'bitacorasistema' | 'tempchequespagos') =>
    Number(
      (
        await on
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const folios = await on.selectFrom('folios').select(['serie', 'ultimofolio', 'ultimaorden']).orderBy('serie').execute();
  return {
    tempcheques: await count('tempcheques'),
    tempcheqdet: await count('tempcheqdet'),
    tempcancela: await count('tempcancela'),
    productosenproduccion: await count('productosenproduccion'),
    bitacorasistema: await count('bitacorasistema'),
    tempchequespagos: await count('tempchequespagos'),
    folios: folios.map((f) => `${f.serie}:${f.ultimofolio}:${f.ultimaorden}`).join(','),
  };
}

const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 };
const sinCebolla = { movimiento: 2, idProducto: '9001', cantidad: 1, modificador: true };
const refresco = { movimiento: 3, idProducto: '1005', cantidad: 3 };

describe('create an open order', () => {
  it("takes the seed's exact path, POST /temp_ordenes, with the branch's licenseKey in the body", async () => {
    const res = await write('/temp_ordenes', { ...base, licenseKey: STRICT_BRANCH, productos: [tacos] });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ jobId: expect.any(String), folio: expect.any(Number), movimientos: [1] });
    expect(await header(res.body.folio, strictDb)).toMatchObject({ estacion: 'CAJA1', total: '178.0000' });

    for (const licenseKey of [undefined, 'SHORT']) {
      const refused = await write('/temp_ordenes', { ...base, licenseKey });
      expect(refused.status).toBe(400);
      expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.licenseKey']);
    }
    const foreign = await write('/temp_ordenes', { ...base, licenseKey: OTHER_USERS_BRANCH });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('branch_forbidden');
  });

  it('writes the header, the lines with modifiers and the kitchen queue, and leaves the table as SR does', async () => {
    const before = await db.selectFrom('folios').select('ultimaorden').where('serie', '=', 'A').executeTakeFirstOrThrow();
    const res = await write('/temp_ordenes/{lk}', { ...base, mesa: '3', idMesero: '01', productos: [tacos, sinCebolla, refresco] });
    expect(res.status).toBe(201);
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    const folio = res.body.folio;
    expect(res.body.movimientos).toEqual([1, 2, 3]);
    // 2 × 89.00 + 0 + 3 × 29.90 = 267.70 with IVA included
    expect(res.body.totales).toMatchObject({
      total: 267.7,
      subtotal: 230.78,
      totalImpuesto1: 36.92,
      totalAlimentos: 153.45,
      totalBebidas: 77.33,
      totalArticulos: 6,
    });

    const h = await header(folio);
    expect(h).toMatchObject({
      pagado: false,
      cancelado: false,
      impreso: false,
      idturno: 0,
      mesa: '3',
      idmesero: '01',
      estacion: 'CAJA1',
      idempresa: '0000000001',
      nopersonas: 2,
      seriefolio: 'A',
      tipodeservicio: 1,
      usuarioapertura: 'API',
      cierre: null,
    });
    expect(Number(h.orden)).toBe(Number(before.ultimaorden) + 1);
    expect(h.total).toBe('267.7000');
    expect(h.subtotal).toBe('230.7800');
    expect(h.totalimpuestod1).toBe('36.9241');
    // A NOT NULL column without default, filled with a new GUID; SR 10 has no such column.
    if (SR10) expect(h).not.toHaveProperty('WorkspaceId');
    else expect(h.WorkspaceId).toMatch(/^[0-9a-f-]{36}$/);

    const l = await lines(folio);
    expect(l.map((x) => [Number(x.movimiento), x.idproducto, x.modificador, x.idproductocompuesto, x.productocompuestoprincipal])).toEqual([
      [1, '3001', false, '3001', true],
      [2, '9001', true, '3001', false],
      [3, '1005', false, '', false],
    ]);
    expect(l[0]).toMatchObject({
      precio: '89.0000',
      preciosinimpuestos: '76.7241',
      impuesto1: '16.00',
      descuento: SR10 ? '0.00' : '0.0000',
      cantidad: '2.000000',
      idestacion: 'CAJA1',
      idmeseroproducto: '01',
    });
    expect(l[1]!.precio).toBe('0.0000');

    // One production number and priority for the lines sent together; each on its product's monitor, in the open shift.
    expect(l.map((x) => [Number(x.folioproduccion), x.prioridadproduccion])).toEqual([
      [1, 'A'],
      [1, 'A'],
      [1, 'A'],
    ]);
    const queue = await db.selectFrom('productosenproduccion').selectAll().where('folio', '=', folio).orderBy('movimiento').execute();
    expect(queue.map((q) => [Number(q.movimiento), q.idproducto, q.idmonitor, q.prioridad, Number(q.idturno_cierre), q.cancelado])).toEqual([
      [1, '3001', '01', 'A', 2, null],
      [2, '9001', '01', 'A', 2, null],
      [3, '1005', '02', 'A', 2, null],
    ]);
    // As order-lifecycle row 230 writes them: minutes 0 and 0, and no production time here or on the line (row 221).
    expect(queue.map((q) => [q.minutospreparacion, q.minutosalerta, q.horaproduccion])).toEqual(Array.from({ length: 3 }, () => ['0.0', '0.0', null]));
    expect(l.map((x) => x.horaproduccion)).toEqual([null, null, null]);
    // SR opens an account without writing mesasasignadas or mesas (order-lifecycle rows 87-97).
    const table = await db.selectFrom('mesas').select('estatus_ocupacion').where('idmesa', '=', '3').executeTakeFirstOrThrow();
    expect(table.estatus_ocupacion).toBe(0);
    expect(await db.selectFrom('mesasasignadas').selectAll().where('folio', '=', folio).execute()).toEqual([]);
  });

  it('prices a modifier with the price registered for its base', async () => {
    const folio = await openOrder([
      { movimiento: 1, idProducto: '3002', cantidad: 1 },
      { movimiento: 2, idProducto: '9002', cantidad: 1, modificador: true },
    ]);
    const l = await lines(folio);
    expect(l.map((x) => x.precio)).toEqual(['135.0000', '15.0000']);
  });

  it('takes the price and taxes sent instead of the catalogue', async () => {
    const folio = await openOrder([{ movimiento: 1, idProducto: '1001', cantidad: 1.5, precio: 40, impuesto1: 8 }]);
    const [line] = await lines(folio);
    expect(line).toMatchObject({ precio: '40.0000', impuesto1: '8.00', preciosinimpuestos: '37.0370', preciocatalogo: '40.0000', cantidad: '1.500000' });
    expect((await header(folio)).total).toBe('60.0000');
  });

  it('creates an empty account with zero totals', async () => {
    const res = await write('/temp_ordenes/{lk}', { ...base, mesa: 'T1', idMesero: '02' });
    expect(res.status).toBe(201);
    expect(res.body.totales.total).toBe(0);
    expect(await lines(res.body.folio)).toHaveLength(0);
  });

  it('turnDependent needs an open shift for the station and company', async () => {
    const before = await counts();
    const refused = await write('/temp_ordenes/{lk}', { ...base, estacion: 'CAJA2', turnDependent: true });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('shift_not_open');
    expect(await counts()).toEqual(before);
    const ok = await write('/temp_ordenes/{lk}', { ...base, turnDependent: true });
    expect(ok.status).toBe(201);
  });

  it.each([
    [{ idEmpresa: '0000000099' }, 422, 'company_not_found'],
    [{ usuario: 'NADIE' }, 422, 'user_not_found'],
    [{ productos: [tacos, { movimiento: 2, idProducto: 'NOPE', cantidad: 1 }] }, 404, 'product_not_found'],
    [{ productos: [{ movimiento: 1, idProducto: '3009', cantidad: 1 }] }, 422, 'product_blocked'],
  ])('refuses %j with %i %s and writes nothing', async (extra, status, code) => {
    const before = await counts();
    const res = await write('/temp_ordenes/{lk}', { ...base, ...extra });
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['movimiento not consecutive', { productos: [tacos, { ...refresco, movimiento: 3 }] }, 'body.productos.1.movimiento'],
    ['a modifier first', { productos: [{ ...sinCebolla, movimiento: 1 }] }, 'body.productos.0.modificador'],
    ['cantidad 0', { productos: [{ ...tacos, cantidad: 0 }] }, 'body.productos.0.cantidad'],
    ['a price with 5 decimals', { productos: [{ ...tacos, precio: 1.00001 }] }, 'body.productos.0.precio'],
    ['no station', { estacion: undefined }, 'body.estacion'],
  ])('400 for %s', async (_what, extra, path) => {
    const before = await counts();
    const res = await write('/temp_ordenes/{lk}', { ...base, ...extra });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await counts()).toEqual(before);
  });

  it('400 idempotency_key_missing without an Idempotency-Key', async () => {
    const res = await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body: base });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('idempotency_key_missing');
  });
});

describe('references', () => {
  it.each(['<script>alert(1)</script>', '\r\nX-Injected', '"; SELECT pg_sleep(10); --', 'CAJA9'])(
    'refuses the unknown station %j with 422 station_not_found naming the field, never its value, writing nothing',
    async (estacion) => {
      const before = await counts();
      for (const [path, body] of [
        ['/temp_ordenes/{lk}', { ...base, estacion }],
        ['/ordenes/{lk}', { ...base, estacion, idFormaDePago: 'EFE', productos: [tacos] }],
      ] as const) {
        const res = await write(path, body);
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(res.body).toMatchObject({ code: 'station_not_found', field: 'estacion' });
        expect(JSON.stringify(res.body)).not.toContain(estacion.trim().slice(0, 8));
      }
      expect(await counts()).toEqual(before);
    },
  );

  it("writes a look-alike station the server's collation matches under the branch's own spelling, or refuses it", async () => {
    // SQL Server's case- and width-insensitive collations, which also ignore format characters,
    // may find CAJA1 for these; PostgreSQL does not.
    for (const estacion of ['ＣＡＪＡ１', 'caja1', 'CAJA1\u202e']) {
      const res = await write('/temp_ordenes/{lk}', { ...base, estacion });
      if (res.status === 422) {
        expect(res.body.code).toBe('station_not_found');
      } else {
        expect(res.status).toBe(201);
        expect((await header(res.body.folio)).estacion).toBe('CAJA1');
      }
    }
  });

  it('refuses an unknown waiter with 422 waiter_not_found, writing nothing', async () => {
    const before = await counts();
    const res = await write('/temp_ordenes/{lk}', { ...base, idMesero: '99' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'waiter_not_found', field: 'idMesero' });
    expect(await counts()).toEqual(before);
  });

  it("stores text outside the branch's code page as '?', as SQL Server stores it in its varchar columns", async () => {
    const folio = await openOrder([{ ...tacos, comentario: 'sin 🌶 por favor' }], { mesa: 'Ā😀' });
    expect((await header(folio)).mesa).toBe('???');
    expect((await lines(folio))[0]!.comentario).toBe('sin ?? por favor');
  });
});

describe('create a closed order', () => {
  it('creates it paid, printed, numbered and paid in full in the open shift', async () => {
    const before = await db.selectFrom('folios').select('ultimofolio').where('serie', '=', 'A').executeTakeFirstOrThrow();
    const res = await write('/ordenes/{lk}', {
      ...base,
      idFormaDePago: 'TAR',
      productos: [refresco, { movimiento: 2, idProducto: '4001', cantidad: 1 }].map((p, i) => ({ ...p, movimiento: i + 1 })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.numcheque).toBe(Number(before.ultimofolio) + 1);
    expect(res.body.idTurno).toBe(2);
    const h = await header(res.body.folio);
    expect(h).toMatchObject({
      pagado: true,
      impreso: true,
      cancelado: false,
      impresiones: 1,
      tipodeservicio: 3,
      total: '144.7000',
      tarjeta: '144.7000',
      efectivo: '0.0000',
      usuariopago: 'API',
    });
    expect(Number(h.idturno)).toBe(2);
    expect(Number(h.numcheque)).toBe(res.body.numcheque);
    expect(h.cierre).toBeInstanceOf(Date);
    const pagos = await db.selectFrom('tempchequespagos').selectAll().where('folio', '=', res.body.folio).execute();
    expect(pagos.map((p) => [p.idformadepago, p.importe])).toEqual([['TAR', '144.7000']]);
  });

  it('refuses an unknown payment method and writes nothing', async () => {
    const before = await counts();
    const res = await write('/ordenes/{lk}', { ...base, idFormaDePago: 'BTC', productos: [tacos] });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('payment_method_not_found');
    expect(await counts()).toEqual(before);
  });

  it("takes the seed's body, without lines: an empty sale paid with a payment of 0", async () => {
    const res = await write('/ordenes/{lk}', {
      turnDependent: false,
      estacion: 'CAJA1',
      serie: 'A',
      idEmpresa: '0000000001',
      noPersonas: 1,
      idFormaDePago: 'EFE',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ folio: expect.any(Number), numcheque: expect.any(Number) });
    expect(await header(res.body.folio)).toMatchObject({ pagado: true, impreso: true, total: '0.0000', tipodeservicio: 3 });
    expect(await lines(res.body.folio)).toEqual([]);
    const pagos = await db.selectFrom('tempchequespagos').selectAll().where('folio', '=', res.body.folio).execute();
    expect(pagos.map((p) => [p.idformadepago, p.importe])).toEqual([['EFE', '0.0000']]);
  });

  it('an empty list of lines is refused: send none or at least one', async () => {
    const res = await write('/ordenes/{lk}', { ...base, idFormaDePago: 'EFE', productos: [] });
    expect(res.status).toBe(400);
  });
});

describe('add lines', () => {
  it('continues the numbering, keeps modifiers after their base and returns numbers in the order sent', async () => {
    const folio = await openOrder([tacos, { ...refresco, movimiento: 2 }]);
    const before = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, {
      productos: [
        { movimiento: 1, idProducto: '3005', cantidad: 1 },
        { movimiento: 2, idProducto: '9004', cantidad: 1, modificador: true },
        { movimiento: 3, idProducto: '1101', cantidad: 2 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ folio, itemsAgregados: 3, movimientos: [3, 4, 5] });
    expect(res.body.totales.total).toBe(666.7);
    const l = await lines(folio);
    expect(l.map((x) => [Number(x.movimiento), x.idproducto, x.modificador])).toEqual([
      [1, '3001', false],
      [2, '1005', false],
      [3, '3005', false],
      [4, '9004', true],
      [5, '1101', false],
    ]);
    expect((await header(folio)).total).toBe('666.7000');
    // Seed rule 5: only the temporary account; no sale (no payment, no check number) and no print.
    expect(await header(folio)).toMatchObject({ pagado: false, impreso: false, impresiones: 0, numcheque: 0 });
    expect(await counts()).toMatchObject({ tempcheques: before.tempcheques, tempchequespagos: before.tempchequespagos, folios: before.folios });
  });

  it('keeps the general discount and applies it to the new subtotal', async () => {
    const folio = await openOrder([{ movimiento: 1, idProducto: '3002', cantidad: 1 }]);
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 10 })).status).toBe(200);
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [{ movimiento: 1, idProducto: '3002', cantidad: 1 }] });
    expect(res.body.totales).toMatchObject({ descuento: 10, total: 243 });
    expect((await header(folio)).descuento).toBe('10.0000');
  });

  it('refuses a missing product without writing anything', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, {
      productos: [refresco, { movimiento: 2, idProducto: 'NOPE', cantidad: 1 }].map((p, i) => ({ ...p, movimiento: i + 1 })),
    });
    expect(res.status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('404 account_not_found for a folio that does not exist; 400 for a folio that is not a number', async () => {
    expect((await write('/temp_ordenes/{lk}/999999/productos', { productos: [tacos] })).body.code).toBe('account_not_found');
    const bad = await write('/temp_ordenes/{lk}/abc/productos', { productos: [tacos] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('params.folio');
  });
});

/** One request of each write on an open account (add, cancel, both discounts) for an account holding tacos. */
function changesOf(folio: number): Array<[string, Record<string, unknown>]> {
  return [
    [`/temp_ordenes/{lk}/${folio}/productos`, { productos: [refresco].map((p) => ({ ...p, movimiento: 1 })) }],
    [`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }] }],
    [`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 }],
    [`/temp_ordenes/{lk}/${folio}/descuento_productos`, { productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 5 }] }],
  ];
}

describe('the open-account rule', () => {
  it('a printed account that SR reopened takes changes again', async () => {
    const folio = await openOrder([tacos]);
    // SR's reopening clears the printed flag and counts the reopening.
    await db.updateTable('tempcheques').set({ impreso: false, reabiertas: 1, numcheque: 4242 }).where('folio', '=', folio).execute();
    const res = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [{ ...refresco, movimiento: 1 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it.each([
    [{ pagado: true }, 'paid'],
    [{ cancelado: true }, 'cancelled'],
    [{ cuentaenuso: true }, 'in_use'],
    [{ impreso: true }, 'printed'],
  ])('409 account_not_open when %j, saying which, and nothing changes', async (state, which) => {
    const folio = await openOrder([tacos]);
    await db.updateTable('tempcheques').set(state).where('folio', '=', folio).execute();
    const before = await counts();
    for (const [path, body] of changesOf(folio)) {
      const res = await write(path, body);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'account_not_open', state: which });
      expect(res.body.detail).toMatch(new RegExp(`${which === 'in_use' ? 'in use' : which === 'paid' ? 'paid' : which}`));
    }
    expect(await counts()).toEqual(before);
  });

  it('422 user_not_found for a usuario not in the users catalog, on both discounts, add and cancel, and nothing changes (seed errors)', async () => {
    const folio = await openOrder([tacos]);
    const before = await counts();
    for (const [path, body] of changesOf(folio)) {
      const res = await write(path, { ...body, usuario: 'NADIE' });
      expect(res.status, path).toBe(422);
      expect(res.body.code).toBe('user_not_found');
    }
    expect(await counts()).toEqual(before);
  });
});

describe('cancel lines', () => {
  it('removes the lines and their modifiers, renumbers survivors, and records the cancellation', async () => {
    const folio = await openOrder(
      [
        tacos,
        sinCebolla,
        { movimiento: 3, idProducto: '9003', cantidad: 1, modificador: true },
        { ...refresco, movimiento: 4 },
        { movimiento: 5, idProducto: '4001', cantidad: 1 },
      ],
      { mesa: '4' },
    );
    const bitacora = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [{ movimiento: 1, idProducto: '3001' }],
      razon: 'El cliente cambió de opinión',
      usuario: 'CAJERO',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ folio, itemsCancelados: 3, movimientos: [1, 2, 3] });
    expect(res.body.totales.total).toBe(144.7);

    const l = await lines(folio);
    expect(l.map((x) => [Number(x.movimiento), x.idproducto])).toEqual([
      [1, '1005'],
      [2, '4001'],
    ]);
    const cancelled = await db.selectFrom('tempcancela').selectAll().where('foliocheque', '=', folio).orderBy('clave').execute();
    expect(cancelled.map((c) => [c.clave, c.cantidad, c.precio, c.razon, c.usuario])).toEqual([
      ['3001', '2.000', '89.0000', 'El cliente cambió de opinión Mesa: 4', 'CAJERO'],
      ['9001', '1.000', '0.0000', 'El cliente cambió de opinión Mesa: 4', 'CAJERO'],
      ['9003', '1.000', '0.0000', 'El cliente cambió de opinión Mesa: 4', 'CAJERO'],
    ]);
    const queue = await db
      .selectFrom('productosenproduccion')
      .select(['movimiento', 'idproducto', 'cancelado'])
      .where('folio', '=', folio)
      .orderBy('idproducto')
      .execute();
    // The survivors take their new numbers; the cancelled rows stay on the monitor at 0, a
    // number no line has, so no address of a live line is also a cancelled row's.
    expect(queue.map((q) => [q.idproducto, Number(q.movimiento), q.cancelado === true])).toEqual([
      ['1005', 1, false],
      ['3001', 0, true],
      ['4001', 2, false],
      ['9001', 0, true],
      ['9003', 0, true],
    ]);
    expect((await counts()).bitacorasistema).toBe(bitacora.bitacorasistema + 1);
    const event = await db.selectFrom('bitacorasistema').selectAll().orderBy('bitacorasistemaid', 'desc').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ evento: 'Comedor - Cancelación de productos', usuario: 'CAJERO', estacion: 'CAJA1' });
    expect(event.valores).toMatch(/^Cuenta: 4, /);
    expect((await header(folio)).total).toBe('144.7000');
  });

  it('stores the reason alone for a sale without a table (seed rule 1)', async () => {
    const folio = await openOrder([tacos, { ...refresco, movimiento: 2 }], { mesa: '' });
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [{ movimiento: 2, idProducto: '1005' }],
      razon: 'ERROR DE CAPTURA',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cancelled = await db.selectFrom('tempcancela').select(['razon', 'idmotivocancela']).where('foliocheque', '=', folio).execute();
    // A suggested reason is only text: no key of the reason catalogue goes with it (seed).
    expect(cancelled.map((c) => [c.razon, c.idmotivocancela])).toEqual([['ERROR DE CAPTURA', '']]);
  });

  it('cancelling every line leaves the account open and empty with zero totals, not cancelled (seed rule 10)', async () => {
    const folio = await openOrder([tacos, sinCebolla, { ...refresco, movimiento: 3 }], { mesa: '5' });
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [
        { movimiento: 1, idProducto: '3001' },
        { movimiento: 3, idProducto: '1005' },
      ],
      razon: 'SERVICIO LENTO',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ itemsCancelados: 3, movimientos: [1, 2, 3] });
    expect(res.body.totales).toMatchObject({ subtotal: 0, total: 0, totalImpuesto1: 0, totalArticulos: 0 });
    expect(await lines(folio)).toEqual([]);
    expect(await header(folio)).toMatchObject({ cancelado: false, pagado: false, total: '0.0000' });
    const more = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [tacos] });
    expect(more.status).toBe(200);
  });

  it('cuts a long reason, never the table after it, to the width of tempcancela.razon (seed rule 1)', async () => {
    const stored = async (mesa: string, razon: string) => {
      const folio = await openOrder([tacos], { mesa });
      const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }], razon });
      expect(res.status).toBe(200);
      const [row] = await db.selectFrom('tempcancela').select('razon').where('foliocheque', '=', folio).execute();
      return row!.razon;
    };
    const razon = `${'x'.repeat(150)}${'y'.repeat(50)}`;
    // 100 characters: the first 91 of the reason, then " Mesa: T2".
    expect(await stored('T2', razon)).toBe(`${'x'.repeat(91)} Mesa: T2`);
    expect(await stored('6', 'x'.repeat(101))).toBe(`${'x'.repeat(92)} Mesa: 6`);
    expect(await stored('', razon)).toBe('x'.repeat(100));
  });

  it('rejects the whole request when one line does not exist, changing nothing', async () => {
    const folio = await openOrder([tacos, refresco].map((p, i) => ({ ...p, movimiento: i + 1 })));
    const before = await counts();
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, {
      productos: [
        { movimiento: 1, idProducto: '3001' },
        { movimiento: 2, idProducto: '3001' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('line_not_found');
    expect(res.body.fields).toEqual(['productos.1']);
    expect(await counts()).toEqual(before);
    expect(await lines(folio)).toHaveLength(2);
  });

  it('a branch that forces a reason refuses an empty one', async () => {
    const folio = await openOrder([tacos], {}, STRICT_BRANCH);
    const before = await counts(strictDb);
    const res = await write(
      `/temp_ordenes/{lk}/${folio}/cancelar_productos`,
      { productos: [{ movimiento: 1, idProducto: '3001' }], razon: '  ' },
      { branch: STRICT_BRANCH },
    );
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('reason_required');
    expect(await counts(strictDb)).toEqual(before);
    const ok = await write(
      `/temp_ordenes/{lk}/${folio}/cancelar_productos`,
      { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'Error de captura' },
      { branch: STRICT_BRANCH },
    );
    expect(ok.status).toBe(200);
  });

  it('400 for a reason over 200 characters', async () => {
    const res = await write('/temp_ordenes/{lk}/1/cancelar_productos', { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'x'.repeat(201) });
    expect(res.status).toBe(400);
  });
});

describe('general discount', () => {
  let folio: number;
  beforeEach(async () => {
    folio = await openOrder([tacos, refresco].map((p, i) => ({ ...p, movimiento: i + 1 })));
  });
  const original = { total: 267.7, subtotal: 230.78, totalImpuesto1: 36.92, descuento: 0, descuentoImporte: 0 };

  it('a percentage discounts every line proportionally', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, {
      modo: 'porcentaje',
      valor: 10,
      idTipoDescuento: 'EMP',
      comentario: 'Empleado del mes',
      usuario: 'ADMIN',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ folio, itemsAfectados: 0, forzarDescuento: false });
    expect(res.body.totales).toMatchObject({ descuento: 10, total: 240.93, subtotal: 230.78, descuentoImporte: 23.08, subtotalConDescuento: 207.7 });
    expect(await header(folio)).toMatchObject({
      descuento: '10.0000',
      desc_porc_original: '10.0000',
      desc_imp_original: null,
      idtipodescuento: 'EMP',
      usuariodescuento: 'ADMIN',
      comentariodescuento: 'Empleado del mes',
      total: '240.9300',
    });
  });

  it('marks the account for Soft Restaurant to process the discount (seed rule 5), removing it too', async () => {
    expect((await header(folio)).procesar_descuento_sr).toBe(false);
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 })).status).toBe(200);
    expect((await header(folio)).procesar_descuento_sr).toBe(true);
    await db.updateTable('tempcheques').set({ procesar_descuento_sr: false }).where('folio', '=', folio).execute();
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 0 })).status).toBe(200);
    expect((await header(folio)).procesar_descuento_sr).toBe(true);
  });

  it('an amount on the subtotal lowers the pre-tax subtotal by that amount', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'importe', valor: 50 });
    expect(res.body.totales.subtotalConDescuento).toBeCloseTo(230.78 - 50, 2);
    expect(Math.abs(res.body.totales.descuentoImporte - 50)).toBeLessThanOrEqual(0.01);
    expect((await header(folio)).desc_imp_original).toBe('50.0000');
  });

  it('an amount on the total lowers the total by that amount', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'importe', base: 'total', valor: 67.7 });
    expect(Math.abs(res.body.totales.total - 200)).toBeLessThanOrEqual(0.01);
  });

  it('replaces instead of accumulating, and 0 restores every total', async () => {
    await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 20 });
    const second = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 });
    expect(second.body.totales.descuento).toBe(5);
    const cleared = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 0 });
    expect(cleared.body.totales).toMatchObject(original);
    expect(await header(folio)).toMatchObject({ descuento: '0.0000', idtipodescuento: '', desc_porc_original: '0.0000', total: '267.7000' });
  });

  it('100 % is a courtesy', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 100 });
    expect(res.body.totales).toMatchObject({ total: 0, descuentoImporte: 0, totalCortesias: 230.78 });
  });

  it.each<[Record<string, unknown>, number, string]>([
    [{ modo: 'importe', valor: 230.79 }, 422, 'discount_exceeds_base'],
    [{ modo: 'importe', base: 'total', valor: 267.71 }, 422, 'discount_exceeds_base'],
    ...(SR10
      ? []
      : ([[{ modo: 'porcentaje', valor: 15, idTipoDescuento: 'EMP' }, 422, 'discount_exceeds_maximum']] as Array<[Record<string, unknown>, number, string]>)),
    [{ modo: 'porcentaje', valor: 15, idTipoDescuento: 'XYZ' }, 422, 'discount_type_not_found'],
    [{ modo: 'porcentaje', valor: 101 }, 400, 'validation_failed'],
    [{ modo: 'porcentaje', valor: 5, usuario: 'NADIE' }, 422, 'user_not_found'],
  ])('refuses %j with %i %s and changes nothing', async (body, status, code) => {
    const before = await header(folio);
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, body);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(await header(folio)).toEqual(before);
  });

  it('SR 10 has no discount maximum columns: no type limits the percentage there', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 15, idTipoDescuento: 'EMP' });
    expect(res.status).toBe(SR10 ? 200 : 422);
  });

  it('LIB has no ceiling', async () => {
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 60, idTipoDescuento: 'LIB' });
    expect(res.status).toBe(200);
  });

  it('a branch that forces a discount type refuses a discount without one, but allows removing it', async () => {
    const strictFolio = await openOrder([tacos], {}, STRICT_BRANCH);
    const res = await write(`/temp_ordenes/{lk}/${strictFolio}/descuento`, { modo: 'porcentaje', valor: 5 }, { branch: STRICT_BRANCH });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('discount_type_required');
    const typed = await write(
      `/temp_ordenes/{lk}/${strictFolio}/descuento`,
      { modo: 'porcentaje', valor: 5, idTipoDescuento: 'LIB' },
      { branch: STRICT_BRANCH },
    );
    expect(typed.status).toBe(200);
    // forzarDescuento is parametros3.forzardescuento (off here), not the forced discount type.
    expect(typed.body.forzarDescuento).toBe(false);
    const removed = await write(`/temp_ordenes/{lk}/${strictFolio}/descuento`, { modo: 'porcentaje', valor: 0 }, { branch: STRICT_BRANCH });
    expect(removed.status).toBe(200);
  });

  it('answers forzarDescuento as parametros3.forzardescuento is, and never blocks on it (seed)', async () => {
    await db.updateTable('parametros3').set({ forzardescuento: true }).execute();
    try {
      const general = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 5 });
      expect(general.status).toBe(200);
      expect(general.body.forzarDescuento).toBe(true);
      const perLine = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
        productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10 }],
      });
      expect(perLine.status).toBe(200);
      expect(perLine.body.forzarDescuento).toBe(true);
      expect(await header(folio)).toMatchObject({ descuento: '5.0000', idtipodescuento: '' });
    } finally {
      await db.updateTable('parametros3').set({ forzardescuento: false }).execute();
    }
  });
});

describe('discount per line', () => {
  it('percentages and per-unit amounts on chosen lines; 100 % is a courtesy', async () => {
    const folio = await openOrder([tacos, refresco, { movimiento: 3, idProducto: '4001', cantidad: 1 }].map((p, i) => ({ ...p, movimiento: i + 1 })));
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      idTipoDescuento: 'LIB',
      comentario: 'Promoción',
      productos: [
        { movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 50 },
        { movimiento: 2, idProducto: '1005', modo: 'importe', base: 'total', valor: 9.9 },
        { movimiento: 3, idProducto: '4001', modo: 'importe', base: 'total', valor: 55 },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.itemsAfectados).toBe(3);
    // 89 + 3 × 20.00 + 0 = 149.00
    expect(res.body.totales).toMatchObject({ total: 149, totalCortesias: 47.41 });
    const l = await lines(folio);
    // SR 10 stores line discounts as numeric(6,2): the percentage is rounded to what it keeps.
    expect(l.map((x) => [x.descuento, x.idtipodescuento, x.comentariodescuento])).toEqual(
      SR10
        ? [
            ['50.00', 'LIB', 'Promoción'],
            ['33.11', 'LIB', 'Promoción'],
            ['100.00', 'LIB', 'Promoción'],
          ]
        : [
            ['50.0000', 'LIB', 'Promoción'],
            ['33.1104', 'LIB', 'Promoción'],
            ['100.0000', 'LIB', 'Promoción'],
          ],
    );
    // Seed rule 10: an audit entry.
    const event = await db.selectFrom('bitacorasistema').selectAll().orderBy('bitacorasistemaid', 'desc').executeTakeFirstOrThrow();
    expect(event).toMatchObject({ evento: 'Comedor - Descuento de productos', usuario: 'API', estacion: 'CAJA1', idempresa: '0000000001' });
    expect(event.valores).toBe(
      `Cuenta: , Folio: ${folio}, Productos: 1 3001 50%, 2 1005 ${SR10 ? '33.11' : '33.1104'}%, 3 4001 100%, Tipo: LIB, Comentario: Promoción`,
    );
    const cleared = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 0 }],
    });
    expect((await lines(folio))[0]).toMatchObject({ descuento: SR10 ? '0.00' : '0.0000', idtipodescuento: '' });
    expect(cleared.body.totales.total).toBe(238);
  });

  it('refuses an amount above the unit price and a missing line, changing nothing', async () => {
    const folio = await openOrder([tacos]);
    const before = await lines(folio);
    const above = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      productos: [{ movimiento: 1, idProducto: '3001', modo: 'importe', base: 'total', valor: 89.01 }],
    });
    expect(above.body.code).toBe('discount_exceeds_base');
    const missing = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      productos: [
        { movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10 },
        { movimiento: 9, idProducto: '3001', modo: 'porcentaje', valor: 10 },
      ],
    });
    expect(missing.status).toBe(422);
    expect(missing.body.code).toBe('line_not_found');
    expect(await lines(folio)).toEqual(before);
  });

  it('respects the ceiling of the discount type where the installation has one', async () => {
    const folio = await openOrder([tacos]);
    const res = await write(`/temp_ordenes/{lk}/${folio}/descuento_productos`, {
      idTipoDescuento: 'EMP',
      productos: [{ movimiento: 1, idProducto: '3001', modo: 'porcentaje', valor: 10.01 }],
    });
    if (SR10) expect(res.status).toBe(200);
    else expect(res.body.code).toBe('discount_exceeds_maximum');
  });
});
