/**
 * NUL characters and lone surrogates, which no database of the product can keep, are refused as
 * 400 validation_failed naming the field, on every route and before anything runs.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
});
afterAll(async () => {
  await stack?.stop();
});

function expectRefused(res: ApiResponse, paths: string[]): void {
  expect(res.status, res.text).toBe(400);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(paths);
}

const order = orderBody({ serie: 'A', idMesero: '01', noPersonas: 2 });
const ordersAtTable = async (mesa: string) => (await db.selectFrom('tempcheques').select('folio').where('mesa', '=', mesa).execute()).length;

describe('every route', () => {
  it('refuses a NUL in the query string of every operation of the API description', async () => {
    const spec = await stack.api('GET', '/openapi.json', { key: null });
    const operations = Object.entries(spec.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => [method.toUpperCase(), path] as const),
    );
    expect(operations.length).toBeGreaterThan(25);
    for (const [method, template] of operations) {
      const path = template
        .replace('{licenseKey}', BRANCH)
        .replace('{id}', randomUUID())
        .replace('{folio}', '1')
        .replace('{idProducto}', '1001')
        .replace('{numCheque}', '1');
      const res = await stack.api(method, `${path}?probe=%00`, { body: method === 'GET' ? undefined : {}, headers: { 'idempotency-key': randomUUID() } });
      expect(res.status, `${method} ${template}: ${res.text}`).toBe(400);
      expect(res.body.errors, `${method} ${template}`).toEqual([expect.objectContaining({ path: 'querystring.probe' })]);
    }
  });
});

describe('queries and path parameters', () => {
  it('a NUL in a search is a 400 naming it, not a 500 from the branch database', async () => {
    expectRefused(await stack.api('GET', `/productos/${BRANCH}?search=caf%00e`), ['querystring.search']);
  });

  it('a NUL in a path parameter is a 400 naming it, and the product is not touched', async () => {
    const before = await db.selectFrom('productos').select(['idproducto', 'descripcion']).orderBy('idproducto').execute();
    const body = {
      idEmpresa: '0000000001',
      descripcionProducto: 'X',
      idGrupo: '1',
      nombreCorto: 'X',
      visibleMenu: true,
      precio: 10,
      impuesto1: 16,
      impuesto2: 0,
      impuesto3: 0,
      bloqueado: false,
      permitirprodcompenmodif: false,
    };
    expectRefused(await stack.api('PUT', `/productos/${BRANCH}/1001%00`, { body, headers: { 'idempotency-key': randomUUID() } }), ['params.idProducto']);
    expect(await db.selectFrom('productos').select(['idproducto', 'descripcion']).orderBy('idproducto').execute()).toEqual(before);
  });
});

describe('JSON bodies', () => {
  it('a NUL in a field of a write is refused before it runs, and its Idempotency-Key stays usable', async () => {
    const mesa = `T${randomUUID().slice(0, 8)}`;
    const key = randomUUID();
    const refused = await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body: { ...order, mesa: `${mesa}\u0000` }, headers: { 'idempotency-key': key } });
    expectRefused(refused, ['body.mesa']);
    expect(await ordersAtTable(mesa)).toBe(0);
    const corrected = await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body: { ...order, mesa }, headers: { 'idempotency-key': key } });
    expect(corrected.status, corrected.text).toBe(201);
    expect(await ordersAtTable(mesa)).toBe(1);
  });

  it('lone surrogates are refused wherever they are, each field named', async () => {
    const mesa = `T${randomUUID().slice(0, 8)}`;
    const body = {
      ...order,
      mesa,
      productos: [
        { movimiento: 1, idProducto: '1001', cantidad: 1, comentario: 'sin \ud800 hielo' },
        { movimiento: 2, idProducto: '1002', cantidad: 1, comentario: '\udfff' },
      ],
    };
    expectRefused(await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body, headers: { 'idempotency-key': randomUUID() } }), [
      'body.productos.0.comentario',
      'body.productos.1.comentario',
    ]);
    expect(await ordersAtTable(mesa)).toBe(0);
  });

  it('a surrogate pair (an emoji) is text like any other', async () => {
    const res = await stack.api('GET', `/productos/${BRANCH}?search=${encodeURIComponent('🌮')}`);
    expect(res.status, res.text).toBe(200);
  });

  it('a property name with a NUL is refused without repeating it', async () => {
    const res = await stack.api('POST', `/temp_ordenes/${BRANCH}`, { body: { ...order, 'x\u0000y': 1 }, headers: { 'idempotency-key': randomUUID() } });
    expectRefused(res, ['body']);
    expect(res.text).not.toContain('x\\u0000y');
  });
});

describe('the printer registry', () => {
  const printers = async () => Number((await sql<{ n: string }>`select count(*) as n from gw_printers`.execute(stack.store.db)).rows[0]!.n);
  const label = { licenseKey: BRANCH, printerIp: '10.0.0.9', kind: 'label' };

  it('refuses a NUL or a lone surrogate in a new printer, and stores nothing', async () => {
    const before = await printers();
    expectRefused(await stack.api('POST', '/print/printers', { body: { ...label, displayName: 'Barra\u0000' } }), ['body.displayName']);
    expectRefused(await stack.api('POST', '/print/printers', { body: { ...label, displayName: 'Barra', sourceId: '\ud83c' } }), ['body.sourceId']);
    expect(await printers()).toBe(before);
  });

  it('refuses them in a change, and keeps the printer as it was', async () => {
    const created = await stack.api('POST', '/print/printers', { body: { ...label, displayName: 'Barra' } });
    expect(created.status).toBe(201);
    expectRefused(await stack.api('PATCH', `/print/printers/${created.body.id}`, { body: { displayName: 'Barra\u0000fría' } }), ['body.displayName']);
    expectRefused(await stack.api('GET', `/print/printers?licenseKey=${BRANCH}%00`), ['querystring.licenseKey']);
    expect((await stack.api('GET', `/print/printers/${created.body.id}`)).body).toEqual(created.body);
  });

  it('refuses them in a print job before any printer is looked up', async () => {
    expectRefused(await stack.api('POST', `/print/${BRANCH}/prueba`, { body: { printerId: randomUUID(), printerName: 'Cocina\u0000' } }), ['body.printerName']);
  });
});
