/**
 * PUT /productos/{licenseKey}/{idProducto}: the product row lock a terminal holds, and the same
 * operation run by an agent's job runner on a Soft Restaurant 10 database.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { updateProduct } from '../../src/pos/operations/update-product.js';
import { openPos } from '../../src/pos/runtime.js';
import { newPosDatabase, withTerminal } from '../support/databases.js';
import { addEmptyCompany, productTools, tacos } from '../support/products.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { skipOnBabelfish } from '../support/babelfish.js';

let stack: TestStack;
const { put, priceLog } = productTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack();
  await addEmptyCompany(stack);
});
afterAll(async () => {
  await stack?.stop();
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
      await sleep(400);
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
