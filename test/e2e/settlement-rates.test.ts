/**
 * A payment method whose `formasdepago.tipodecambio` is 0 (pesos methods left at 0 in some
 * branches): SR's sums multiply every payment by the rate its row carries (order-lifecycle rows
 * 577-580, shift-close 195-198), so a payment row must carry 1, or the sale counts as nothing in
 * the cash cut.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  await db.updateTable('formasdepago').set({ tipodecambio: 0 }).where('idformadepago', '=', 'EFE').execute();
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': randomUUID() } });
}

const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 }; // 2 × 89.00 = 178.00

describe('a payment method with an exchange rate of 0', () => {
  it('counts a quick sale paid with it at its total in the cash cut, as a paid account is', async () => {
    const shift = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA1').where('cierre', 'is', null).executeTakeFirstOrThrow();
    const cut = async () => (await stack.api('GET', `/turnos/${BRANCH}/${Number(shift.idturno)}/corte`)).body as { porTipo: { efectivo: number } };
    const before = await cut();

    const open = await write('/temp_ordenes/{lk}', orderBody({ serie: 'A', productos: [tacos] }));
    expect((await write(`/temp_ordenes/{lk}/${open.body.folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] })).status).toBe(200);
    const paid = await cut();
    // A paid account adds its 178.00: pay-account.ts stores rate 1 for a rate of 0.
    expect(paid.porTipo.efectivo - before.porTipo.efectivo).toBeCloseTo(178, 2);

    const res = await write('/ordenes/{lk}', orderBody({ serie: 'A', idFormaDePago: 'EFE', productos: [tacos] }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.idTurno).toBe(Number(shift.idturno));
    const pagos = await db.selectFrom('tempchequespagos').select(['importe', 'tipodecambio']).where('folio', '=', res.body.folio).execute();
    expect((await cut()).porTipo.efectivo - paid.porTipo.efectivo).toBeCloseTo(178, 2);
    expect(pagos).toEqual([{ importe: '178.0000', tipodecambio: '1.0000' }]);
  });
});
