/**
 * PUT /productos/{licenseKey}/{idProducto} through the whole path: the columns replaced and
 * only those, the price log, the self-modifier price, the system log, the sync mark, every
 * refusal leaving the database as it was, exactly-once and the product row lock; and the same
 * operation run by an agent's job runner on a Soft Restaurant 10 database.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import type { PosDb } from '../../src/pos/schema.js';
import { updateProduct } from '../../src/pos/operations/update-product.js';
import { SYNC_CREATE, SYNC_ENTITY_PRODUCT, SYNC_UPDATE } from '../../src/pos/sync-marks.js';
import { openPos } from '../../src/pos/runtime.js';
import { newPosDatabase, withTerminal } from '../support/databases.js';
import { BRANCH, OTHER_USERS_BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { SR10 } from '../support/schema-variant.js';
import { skipOnBabelfish } from '../support/babelfish.js';

let stack: TestStack;
let db: PosDb;

const COMPANY = '0000000001';
/** A company of the branch that has no prices (productosdetalle) for any product. */
const EMPTY_COMPANY = '0000000002';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  const schema = stack.agents.get(BRANCH)!.pos.schema;
  await db
    .insertInto('empresas')
    .values(schema.completeRow('empresas', { idempresa: EMPTY_COMPANY, nombre: 'Sin menú' }))
    .execute();
});
afterAll(async () => {
  await stack?.stop();
});

function put(idProducto: string, body: unknown, opts: { key?: string; branch?: string } = {}): Promise<ApiResponse> {
  return stack.api('PUT', `/productos/${opts.branch ?? BRANCH}/${idProducto}`, { body, headers: { 'idempotency-key': opts.key ?? randomUUID() } });
}

/** Tacos al pastor (3001, PLA, 89.00 with IVA 16 %) as the full body, with a new price. */
const tacos = {
  idEmpresa: COMPANY,
  descripcionProducto: 'Tacos al pastor con piña (3 pzas)',
  idGrupo: 'ENT',
  nombreCorto: 'Tacos piña',
  visibleMenu: false,
  precio: 95.5,
  impuesto1: 16,
  impuesto2: 0,
  impuesto3: 0,
  bloqueado: true,
  permitirprodcompenmodif: true,
};

/** The body that keeps a demo product as seeded, but for the price given. */
function seeded(descripcion: string, nombreCorto: string, idGrupo: string, precio: number) {
  return {
    idEmpresa: COMPANY,
    descripcionProducto: descripcion,
    idGrupo,
    nombreCorto,
    visibleMenu: true,
    precio,
    impuesto1: 16,
    impuesto2: 0,
    impuesto3: 0,
    bloqueado: false,
    permitirprodcompenmodif: idGrupo === 'MOD',
  };
}

async function productRow(id: string) {
  return db.selectFrom('productos').selectAll().where('idproducto', '=', id).executeTakeFirstOrThrow();
}

async function priceRows(id: string) {
  return db.selectFrom('productosdetalle').selectAll().where('idproducto', '=', id).orderBy('idempresa').execute();
}

async function syncMarks() {
  return db.selectFrom('nsplatformcontrol').selectAll().orderBy('Id').execute();
}

async function priceLog(id: string) {
  return db.selectFrom('logcambioprecios').selectAll().where('idproducto', '=', id).orderBy('fecha').execute();
}

/** Everything the operation may write, to prove a refusal or a replay wrote nothing. */
async function snapshot() {
  const count = async (table: 'logcambioprecios' | 'bitacorasistema' | 'nsplatformcontrol') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    productos: await db.selectFrom('productos').selectAll().orderBy('idproducto').execute(),
    productosdetalle: await db.selectFrom('productosdetalle').selectAll().orderBy('idproducto').orderBy('idempresa').execute(),
    modificadores: await db.selectFrom('modificadores').selectAll().orderBy('idproducto').orderBy('idmodificador').execute(),
    logcambioprecios: await count('logcambioprecios'),
    bitacorasistema: await count('bitacorasistema'),
    nsplatformcontrol: await count('nsplatformcontrol'),
  };
}

/** The row with the given columns left out. */
function without<T extends object>(row: T, columns: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(row).filter(([k]) => !columns.includes(k))) as Partial<T>;
}

const PRODUCT_COLUMNS = ['descripcion', 'idgrupo', 'nombrecorto', 'visible_menu'];
const PRICE_COLUMNS = ['precio', 'preciosinimpuestos', 'impuesto1', 'impuesto2', 'impuesto3', 'bloqueado', 'permitirprodcompenmodif'];

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

describe('PUT /productos: refusals change nothing', () => {
  it.each([
    ['404 product_not_found for an unknown product', 'NOEXISTE', {}, 404, 'product_not_found'],
    ['404 product_not_found when the product has no price for the company', '3002', { idEmpresa: EMPTY_COMPANY }, 404, 'product_not_found'],
    ['422 company_not_found', '3002', { idEmpresa: '9999999999' }, 422, 'company_not_found'],
    ['422 group_not_found', '3002', { idGrupo: 'XXX' }, 422, 'group_not_found'],
    ['422 user_not_found', '3002', { usuario: 'NADIE' }, 422, 'user_not_found'],
  ])('%s', async (_name, id, change, status, code) => {
    const before = await snapshot();
    const res = await put(id, { ...tacos, ...change });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ code, status, instance: `/productos/${BRANCH}/${id}` });
    expect(res.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await snapshot()).toEqual(before);
  });

  const fields = Object.keys(tacos);
  it.each(fields)('400 validation_failed without %s (full replacement: every field is required)', async (field) => {
    const before = await snapshot();
    const res = await put('3002', without(tacos, [field]));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(`body.${field}`);
    expect(await snapshot()).toEqual(before);
  });

  it.each([
    ['precio with 5 decimals', { precio: 10.12345 }, 'body.precio'],
    ['a negative precio', { precio: -1 }, 'body.precio'],
    ['impuesto1 with 3 decimals', { impuesto1: 16.125 }, 'body.impuesto1'],
    ['impuesto2 above 100', { impuesto2: 101 }, 'body.impuesto2'],
    ['a description longer than 60', { descripcionProducto: 'x'.repeat(61) }, 'body.descripcionProducto'],
    ['an empty description', { descripcionProducto: '' }, 'body.descripcionProducto'],
    ['visibleMenu as text', { visibleMenu: 'true' }, 'body.visibleMenu'],
    ['a usuario longer than 15', { usuario: 'U'.repeat(16) }, 'body.usuario'],
  ])('400 validation_failed for %s', async (_name, change, path) => {
    const res = await put('3002', { ...tacos, ...change });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('400 for an idProducto longer than 15 characters', async () => {
    const res = await put('X'.repeat(16), tacos);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });

  it('400 idempotency_key_missing without an Idempotency-Key', async () => {
    const before = await snapshot();
    const res = await stack.api('PUT', `/productos/${BRANCH}/3002`, { body: tacos });
    expect([res.status, res.body.code]).toEqual([400, 'idempotency_key_missing']);
    expect(await snapshot()).toEqual(before);
  });

  it('401 without a key and 403 on a branch of another user', async () => {
    const anonymous = await stack.api('PUT', `/productos/${BRANCH}/3002`, { key: null, body: tacos, headers: { 'idempotency-key': randomUUID() } });
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'unauthorized']);
    const forbidden = await put('3002', tacos, { branch: OTHER_USERS_BRANCH });
    expect([forbidden.status, forbidden.body.code]).toEqual([403, 'branch_forbidden']);
    const other = stack.pos.get(OTHER_USERS_BRANCH)!.db;
    expect((await other.selectFrom('productosdetalle').select('precio').where('idproducto', '=', '3002').executeTakeFirstOrThrow()).precio).toBe('135.0000');
  });
});

describe('PUT /productos: exactly once', () => {
  const body = { ...tacos, descripcionProducto: 'Enchiladas suizas', idGrupo: 'PLA', nombreCorto: 'Ench. suizas', precio: 140 };

  it('a replayed PUT answers the same and writes no second price log', async () => {
    const key = randomUUID();
    const first = await put('3002', body, { key });
    expect(first.status, first.text).toBe(200);
    const after = await snapshot();
    const again = await put('3002', body, { key });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await snapshot()).toEqual(after);
    expect(await priceLog('3002')).toHaveLength(1);

    const reused = await put('3002', { ...body, precio: 150 }, { key });
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect((await priceRows('3002'))[0]!.precio).toBe('140.0000');
    // The product is part of the request: the same body for another product is another request.
    const otherProduct = await put('3005', body, { key });
    expect([otherProduct.status, otherProduct.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await priceLog('3005')).toHaveLength(0);
  });

  it("the agent's own record answers a retry the gateway forgot, without writing again", async () => {
    const key = randomUUID();
    const first = await put('3003', { ...body, descripcionProducto: 'Chiles en nogada', precio: 250 }, { key });
    expect(first.status, first.text).toBe(200);
    const after = await snapshot();
    await stack.store.db.deleteFrom('gw_idempotency').where('idem_key', '=', key).execute();
    const retry = await put('3003', { ...body, descripcionProducto: 'Chiles en nogada', precio: 250 }, { key });
    expect(retry.status).toBe(200);
    expect(retry.body.precioAnterior).toBe(245);
    expect(retry.body.precioCambiado).toBe(true);
    expect(await snapshot()).toEqual(after);
    expect(await priceLog('3003')).toHaveLength(1);
  });
});

describe('PUT /productos: the product row lock', () => {
  it('waits for a terminal holding the product and then logs the price that terminal committed', async ({ skip }) => {
    skipOnBabelfish(skip, 'tableHints');
    await withTerminal(stack.posConfigs.get(BRANCH)!, async (trx) => {
      await trx.selectFrom('productos').select('idproducto').where('idproducto', '=', '3004').forUpdate().execute();
      let settled = false;
      const pending = put('3004', { ...tacos, descripcionProducto: 'Mole poblano con pollo', idGrupo: 'PLA', precio: 175 }).then((r) => {
        settled = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 400));
      // Only the product row is held: the update waits on it before reading anything else.
      expect(settled).toBe(false);
      await trx.updateTable('productosdetalle').set({ precio: '170.0000' }).where('idproducto', '=', '3004').execute();
      await trx.commit().execute();
      const res = await pending;
      expect(res.status, res.text).toBe(200);
      expect(res.body.precioAnterior).toBe(170);
    });
    expect((await priceLog('3004')).map((l) => [l.precioanterior, l.precionuevo])).toEqual([['170.0000', '175.0000']]);
  });
});

describe('products.update on Soft Restaurant 10', () => {
  it('writes no WorkspaceId anywhere and no sync mark: SR 10 has neither', async () => {
    const log = pino({ level: 'silent' });
    const pos = await openPos(await newPosDatabase('branch', 'sr10'), log);
    try {
      expect(pos.schema.has('productos', 'WorkspaceId')).toBe(false);
      const runner = new JobRunner({
        pos,
        operations: new Map([[updateProduct.def.name, updateProduct]]),
        log,
        concurrency: 1,
        idempotencyRetentionMs: 3_600_000,
      });
      const result = await runner.run({
        type: 'job',
        jobId: randomUUID(),
        op: 'products.update',
        params: { ...tacos, idProducto: '3001' },
        budgetMs: 30_000,
        idempotency: { scope: 'test', key: randomUUID(), fingerprint: 'f' },
      });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      const price = await pos.db
        .selectFrom('productosdetalle')
        .select(['precio', 'preciosinimpuestos', 'bloqueado'])
        .where('idproducto', '=', '3001')
        .executeTakeFirstOrThrow();
      expect(price).toEqual({ precio: '95.5000', preciosinimpuestos: '82.3276', bloqueado: true });
      const logged = await pos.db.selectFrom('logcambioprecios').select(['precioanterior', 'precionuevo']).where('idproducto', '=', '3001').execute();
      expect(logged).toEqual([{ precioanterior: '89.0000', precionuevo: '95.5000' }]);
      const marks = await pos.db
        .selectFrom('nsplatformcontrol')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(marks.n)).toBe(0);
    } finally {
      await pos.close();
    }
  });
});
