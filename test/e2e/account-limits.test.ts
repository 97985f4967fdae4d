/**
 * Accounts as large as Soft Restaurant's columns allow, and one step past: refused with 422
 * value_out_of_range (400 for a rate with too many decimals) and nothing written, never a 500
 * from a column that overflowed half-way through a write.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/agent/operations.js';
import { JobRunner } from '../../src/agent/runner.js';
import { implement } from '../../src/pos/operation.js';
import { accountSuite, base, tacos } from '../support/accounts.js';
import { BRANCH } from '../support/stack.js';

const { stack, write, openOrder, lines, counts } = accountSuite();

const line = (movimiento: number, idProducto: string, cantidad: number, extra: Record<string, unknown> = {}) => ({
  movimiento,
  idProducto,
  cantidad,
  ...extra,
});
const many = (n: number) => Array.from({ length: n }, (_, i) => line(i + 1, '3001', 1));

describe('an account past what the POS holds', () => {
  it.each([
    ['a price and quantity past the money columns', '/temp_ordenes/{lk}', [line(1, '3001', 99_999_999, { precio: 999_999_999 })]],
    ['the same, created closed', '/ordenes/{lk}', [line(1, '3001', 99_999_999, { precio: 999_999_999 })]],
    ['a total whose cents a JSON number cannot hold', '/temp_ordenes/{lk}', [line(1, '3001', 1_234_567.89, { precio: 99_999_999.99 })]],
    [
      'more items than tempcheques.totalarticulos holds, at no price',
      '/temp_ordenes/{lk}',
      Array.from({ length: 12 }, (_, i) => line(i + 1, '9001', 99_999_999)),
    ],
  ])('refuses %s with nothing written', async (_, path, productos) => {
    const before = await counts();
    const extra = path.startsWith('/ordenes') ? { idFormaDePago: 'EFE' } : {};
    const res = await write(path, { ...base, mesa: '', idMesero: '01', ...extra, productos });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.code).toBe('value_out_of_range');
    expect(res.body.detail).toMatch(/^An account is kept below 100000000000 pesos and 1000000000 items/);
    expect(await counts()).toEqual(before);
  });

  it('takes an account up to 999 lines and refuses the 1000th, which tempcheqdet.movimiento cannot number', async () => {
    const folio = await openOrder(many(500));
    const more = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: many(499) });
    expect(more.status, JSON.stringify(more.body)).toBe(200);
    const before = await counts();
    const past = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [tacos] });
    expect(past.status, JSON.stringify(past.body)).toBe(422);
    expect(past.body).toMatchObject({ code: 'value_out_of_range', detail: expect.stringContaining('999 lines') });
    expect(await counts()).toEqual(before);
    expect((await lines(folio)).length).toBe(999);
  });

  it('answers a value a column refuses as 422, when no check before the statement knew it', async () => {
    const products = operations.get('products.list')!;
    const runner = new JobRunner({
      pos: stack().agents.get(BRANCH)!.pos,
      operations: new Map([['overflow', implement(products.def, async (ctx) => sql`select cast(1e20 as numeric(5, 2)) as n`.execute(ctx.db))]]),
      log: pino({ level: 'silent' }),
      concurrency: 1,
      idempotencyRetentionMs: 60_000,
    });
    const answer = await runner.run({ type: 'job', jobId: randomUUID(), op: 'overflow', params: {}, budgetMs: 5_000 });
    expect(answer).toMatchObject({ ok: false, error: { code: 'value_out_of_range' } });
  });

  it('refuses a line tax rate with more decimals than tempcheqdet keeps (numeric(5,2))', async () => {
    const before = await counts();
    const res = await write('/temp_ordenes/{lk}', { ...base, mesa: '', idMesero: '01', productos: [line(1, '3001', 1, { impuesto1: 16.125 })] });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'body.productos.0.impuesto1' }] });
    expect(await counts()).toEqual(before);
  });
});
