/**
 * PUT /productos/{licenseKey}/{idProducto} through the whole path: the columns replaced and
 * only those, the price log, the self-modifier price, the system log and the sync mark.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { SYNC_CREATE, SYNC_ENTITY_PRODUCT, SYNC_UPDATE } from '../../src/pos/sync-marks.js';
import { addEmptyCompany, COMPANY, EMPTY_COMPANY, PRICE_COLUMNS, PRODUCT_COLUMNS, productTools, seeded, tacos, without } from '../support/products.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { SR10 } from '../support/schema-variant.js';

let stack: TestStack;
let db: PosDb;
const { put, productRow, priceRows, syncMarks, priceLog } = productTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  await addEmptyCompany(stack);
});
afterAll(async () => {
  await stack?.stop();
});

describe('PUT /productos: the update', () => {
  it('replaces the product and its company price, touches no other column, and logs the price change', async () => {
    const productBefore = await productRow('3001');
    const [priceBefore] = await priceRows('3001');
    const syncBefore = await syncMarks();
    const res = await put('3001', tacos);
    expect(res.status, res.text).toBe(200);
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body).toMatchObject({
      idProducto: '3001',
      idEmpresa: COMPANY,
      descripcionProducto: tacos.descripcionProducto,
      idGrupo: 'ENT',
      clasificacion: 2,
      nombreCorto: 'Tacos piña',
      visibleMenu: false,
      precio: 95.5,
      precioSinImpuestos: 82.3276,
      impuesto1: 16,
      bloqueado: true,
      permitirprodcompenmodif: true,
      precioAnterior: 89,
      precioCambiado: true,
    });

    const product = await productRow('3001');
    expect(product).toMatchObject({ descripcion: tacos.descripcionProducto, idgrupo: 'ENT', nombrecorto: 'Tacos piña', visible_menu: false });
    // The product had no WorkspaceId: it gets one for its sync mark to point at (SR 11).
    expect(without(product, [...PRODUCT_COLUMNS, 'WorkspaceId'])).toEqual(without(productBefore, [...PRODUCT_COLUMNS, 'WorkspaceId']));
    const [price] = await priceRows('3001');
    expect(price).toMatchObject({
      precio: '95.5000',
      preciosinimpuestos: '82.3276',
      impuesto1: '16.00',
      impuesto2: '0.00',
      impuesto3: '0.00',
      bloqueado: true,
      permitirprodcompenmodif: true,
    });
    expect(without(price!, PRICE_COLUMNS)).toEqual(without(priceBefore!, PRICE_COLUMNS));

    const log = await priceLog('3001');
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ precioanterior: '89.0000', precionuevo: '95.5000', usuario: 'API', idempresa: COMPANY });
    expect(Math.abs(log[0]!.fecha!.getTime() - Date.now())).toBeLessThan(60_000);

    const audit = await db
      .selectFrom('bitacorasistema')
      .selectAll()
      .where('evento', '=', 'Catálogo - Modificación de producto')
      .orderBy('fecha', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({
      usuario: 'API',
      idempresa: COMPANY,
      valores: `Producto: 3001 ${tacos.descripcionProducto}, Empresa: ${COMPANY}, Precio: 89.00 -> 95.50`,
    });

    // The sync mark points at the product: its new WorkspaceId, queued as SR queues an entity it never synced. SR 10 has no sync marks.
    const marks = (await syncMarks()).slice(syncBefore.length);
    if (SR10) {
      expect(marks).toHaveLength(0);
    } else {
      expect(product.WorkspaceId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(marks).toHaveLength(1);
      expect(marks[0]).toMatchObject({
        WorkspaceId: product.WorkspaceId,
        EntityType: SYNC_ENTITY_PRODUCT,
        OperationType: SYNC_CREATE,
        IsSync: false,
        Attempts: 0,
      });
    }

    // The catalogue read shows the new values.
    const listed = await stack.api('GET', `/productos/${BRANCH}?search=3001`);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ idProducto: '3001', precio: 95.5, precioSinImpuestos: 82.3276, clasificacion: 2, bloqueado: true }),
    ]);
  });

  it.skipIf(SR10)(
    "marks the sync with the product's own WorkspaceId, as SR queues an entity: once, again after it synced (SR 11; SR 10 has no WorkspaceId)",
    async () => {
      const workspace = randomUUID();
      await db.updateTable('productos').set({ WorkspaceId: workspace }).where('idproducto', '=', '2001').execute();
      const marksOf = () => db.selectFrom('nsplatformcontrol').selectAll().where('WorkspaceId', '=', workspace).execute();
      expect((await put('2001', { ...seeded('Guacamole con totopos', 'Guacamole', 'ENT', 99) })).status).toBe(200);
      expect(await marksOf()).toEqual([expect.objectContaining({ EntityType: SYNC_ENTITY_PRODUCT, OperationType: SYNC_CREATE, IsSync: false, Attempts: 0 })]);
      expect((await productRow('2001')).WorkspaceId).toBe(workspace);

      // Still waiting to sync: left as it is.
      expect((await put('2001', { ...seeded('Guacamole con totopos', 'Guacamole', 'ENT', 98) })).status).toBe(200);
      expect(await marksOf()).toEqual([expect.objectContaining({ OperationType: SYNC_CREATE, IsSync: false })]);

      // Synced: queued again as an update, still one row.
      await db.updateTable('nsplatformcontrol').set({ IsSync: true, Attempts: 2 }).where('WorkspaceId', '=', workspace).execute();
      expect((await put('2001', { ...seeded('Guacamole con totopos', 'Guacamole', 'ENT', 97) })).status).toBe(200);
      expect(await marksOf()).toEqual([expect.objectContaining({ EntityType: SYNC_ENTITY_PRODUCT, OperationType: SYNC_UPDATE, IsSync: false, Attempts: 0 })]);
    },
  );

  it('keeps the price of a product that is its own modifier equal to its price, and no other modifier price', async () => {
    // 9002 as a base offering another modifier: that price is not 9002's.
    await db.insertInto('modificadores').values({ idproducto: '9002', idmodificador: '9001', precio: '0.0000', idempresa: COMPANY }).execute();
    const res = await put('9002', { ...seeded('Extra queso', 'Extra queso', 'MOD', 18) });
    expect(res.status, res.text).toBe(200);
    const rows = await db.selectFrom('modificadores').select(['idproducto', 'precio']).where('idmodificador', '=', '9002').orderBy('idproducto').execute();
    // Registered under other bases, 9002 keeps the price SR set there.
    expect(rows.map((r) => [r.idproducto, r.precio])).toEqual([
      ['2005', '15.0000'],
      ['3002', '15.0000'],
      ['9002', '18.0000'],
    ]);
    const asBase = await db
      .selectFrom('modificadores')
      .select('precio')
      .where('idproducto', '=', '9002')
      .where('idmodificador', '=', '9001')
      .executeTakeFirstOrThrow();
    expect(asBase.precio).toBe('0.0000');
    // A self-modifier row of no company is shared by every company: kept in step too; another company's is not.
    await db.deleteFrom('modificadores').where('idproducto', '=', '9002').where('idmodificador', '=', '9002').execute();
    await db
      .insertInto('modificadores')
      .values([
        { idproducto: '9002', idmodificador: '9002', precio: '15.0000', idempresa: null },
        { idproducto: '9002', idmodificador: '9002', precio: '15.0000', idempresa: '0000000099' },
      ])
      .execute();
    expect((await put('9002', { ...seeded('Extra queso', 'Extra queso', 'MOD', 19) })).status).toBe(200);
    const selfRows = await db
      .selectFrom('modificadores')
      .select(['idempresa', 'precio'])
      .where('idproducto', '=', '9002')
      .where('idmodificador', '=', '9002')
      .orderBy('idempresa')
      .execute();
    expect(selfRows.map((r) => [r.idempresa, r.precio]).sort()).toEqual(
      [
        ['0000000099', '15.0000'],
        [null, '19.0000'],
      ].sort(),
    );
    expect((await priceLog('9002')).map((l) => [l.precioanterior, l.precionuevo])).toEqual([
      ['15.0000', '18.0000'],
      ['18.0000', '19.0000'],
    ]);
  });

  it('an unchanged price writes no price log but still recomputes the price without taxes', async () => {
    const before = (await priceLog('1001')).length;
    const res = await put('1001', { ...seeded('Café americano', 'Americano', 'BEB', 35), impuesto1: 8 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ precio: 35, precioAnterior: 35, precioCambiado: false, precioSinImpuestos: 32.4074, impuesto1: 8 });
    expect((await priceRows('1001'))[0]).toMatchObject({ precio: '35.0000', preciosinimpuestos: '32.4074', impuesto1: '8.00' });
    expect(await priceLog('1001')).toHaveLength(before);
    const audit = await db.selectFrom('bitacorasistema').select('valores').where('valores', 'like', 'Producto: 1001 %').executeTakeFirstOrThrow();
    expect(audit.valores).toBe(`Producto: 1001 Café americano, Empresa: ${COMPANY}, Precio: 35.00`);
  });

  it('records the usuario sent in the price log and the system log', async () => {
    const res = await put('4001', { ...seeded('Flan napolitano', 'Flan', 'POS', 58), usuario: 'ADMIN' });
    expect(res.status, res.text).toBe(200);
    expect((await priceLog('4001')).map((l) => l.usuario)).toEqual(['ADMIN']);
    const audit = await db.selectFrom('bitacorasistema').select('usuario').where('valores', 'like', 'Producto: 4001 %').execute();
    expect(audit.map((a) => a.usuario)).toEqual(['ADMIN']);
  });

  it('updates only the company sent', async () => {
    const schema = stack.agents.get(BRANCH)!.pos.schema;
    await db
      .insertInto('productosdetalle')
      .values(
        schema.completeRow('productosdetalle', {
          idproducto: '4002',
          idempresa: EMPTY_COMPANY,
          precio: '70.0000',
          preciosinimpuestos: '60.3448',
          impuesto1: 16,
          impuesto2: 0,
          impuesto3: 0,
          bloqueado: false,
        }),
      )
      .execute();
    const res = await put('4002', { ...seeded('Churros con cajeta', 'Churros', 'POS', 66), idEmpresa: EMPTY_COMPANY });
    expect(res.status, res.text).toBe(200);
    expect((await priceRows('4002')).map((r) => [r.idempresa, r.precio])).toEqual([
      [COMPANY, '65.0000'],
      [EMPTY_COMPANY, '66.0000'],
    ]);
    expect((await priceLog('4002')).map((l) => [l.idempresa, l.precioanterior, l.precionuevo])).toEqual([[EMPTY_COMPANY, '70.0000', '66.0000']]);
  });
});
