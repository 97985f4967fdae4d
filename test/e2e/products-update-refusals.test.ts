/**
 * PUT /productos/{licenseKey}/{idProducto} through the whole path: every refusal leaves the
 * database as it was, and a replay answers the same without writing again.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addEmptyCompany, EMPTY_COMPANY, productTools, tacos, without } from '../support/products.js';
import { BRANCH, OTHER_USERS_BRANCH, startTestStack, type TestStack } from '../support/stack.js';

let stack: TestStack;
const { put, priceRows, priceLog, snapshot } = productTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack();
  await addEmptyCompany(stack);
});
afterAll(async () => {
  await stack?.stop();
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
