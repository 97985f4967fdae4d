/**
 * Settling an account through the whole path (print, pay, reopen, cancel), each asserting the
 * rows SR reads afterwards: order-lifecycle rows 358-365 (print) and 506-589 (pay).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { trapCommits } from '../support/commit-trap.js';
import { until } from '../support/until.js';
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

function write(path: string, body: unknown, key = randomUUID()): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } });
}

const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 }; // 2 × 89.00 = 178.00

async function openOrder(productos: unknown[] = [tacos], mesa = ''): Promise<number> {
  const res = await write('/temp_ordenes/{lk}', orderBody({ serie: 'A', mesa, idMesero: '01', productos }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.folio;
}

/** A payment row as a terminal writes it (order-lifecycle row 515), completed for this schema. */
const terminalPayment = (folio: number, importe: number) =>
  stack.agents
    .get(BRANCH)!
    .pos.schema.completeRow('tempchequespagos', { folio, idformadepago: 'EFE', importe, propina: 0, tipodecambio: 1, referencia: '', importe_cashdro: 0 });

/** The shift open at CAJA1, where its sales land. */
async function openShift(): Promise<number> {
  const row = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA1').where('cierre', 'is', null).executeTakeFirstOrThrow();
  return Number(row.idturno);
}

const header = (folio: number) => db.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
const payments = (folio: number) => db.selectFrom('tempchequespagos').selectAll().where('folio', '=', folio).orderBy('idformadepago').execute();
const ultimofolio = async () => Number((await db.selectFrom('folios').select('ultimofolio').where('serie', '=', 'A').executeTakeFirstOrThrow()).ultimofolio);

/** SR's own sum over an account's payments (order-lifecycle row 546, tips included as rows 577-580 add them). */
async function srPaidSum(folio: number): Promise<string> {
  const { rows } = await sql<{ s: string }>`SELECT SUM((importe+propina)*tipodecambio) AS s FROM tempchequespagos WHERE folio=${folio}`.execute(db);
  return Number(rows[0]!.s).toFixed(2);
}

/** Every row an operation may write, to prove a refusal wrote nothing. */
async function snapshot(folio: number) {
  const rows = async (q: Promise<unknown[]>) => (await q).map((r) => JSON.stringify(r));
  return {
    header: JSON.stringify(await header(folio)),
    pagos: await rows(payments(folio)),
    folios: await rows(db.selectFrom('folios').selectAll().orderBy('serie').execute()),
    cancela: await rows(db.selectFrom('tempcancela').selectAll().where('foliocheque', '=', folio).execute()),
  };
}

describe('print', () => {
  it('numbers the account from folios.ultimofolio on the first print; a reprint keeps the number and counts', async () => {
    const folio = await openOrder();
    const before = await ultimofolio();
    const res = await write(`/temp_ordenes/{lk}/${folio}/imprimir`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ folio, numcheque: before + 1, impresiones: 1, totales: { total: 178 } });
    expect(await ultimofolio()).toBe(before + 1);
    const printed = await header(folio);
    expect(printed).toMatchObject({ impreso: true, numcheque: before + 1, impresiones: 1, pagado: false, autorizacionfolio: '', codigo_unico_af: '' });
    expect(printed.cierre).toBeInstanceOf(Date);

    const again = await write(`/temp_ordenes/{lk}/${folio}/imprimir`, {});
    expect(again.body).toMatchObject({ numcheque: before + 1, impresiones: 2 });
    expect(await ultimofolio()).toBe(before + 1);
    expect((await header(folio)).cierre).toEqual(printed.cierre);
  });

  it('refuses lines and discounts on a printed account, takes them after reopening, and keeps the number on the next print', async () => {
    const folio = await openOrder();
    const { numcheque } = (await write(`/temp_ordenes/{lk}/${folio}/imprimir`, {})).body;
    const lines = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [tacos] });
    expect(lines.status).toBe(409);
    expect(lines.body).toMatchObject({ code: 'account_not_open', state: 'printed' });
    const discount = await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 10 });
    expect(discount.status).toBe(409);

    const reopened = await write(`/temp_ordenes/{lk}/${folio}/reabrir`, {});
    expect(reopened.status, JSON.stringify(reopened.body)).toBe(200);
    expect(reopened.body).toMatchObject({ folio, reabiertas: 1 });
    expect(await header(folio)).toMatchObject({ impreso: false, reabiertas: 1, numcheque });
    expect((await write(`/temp_ordenes/{lk}/${folio}/reabrir`, {})).body).toMatchObject({ code: 'account_not_open', state: 'open' });

    const added = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [tacos] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.totales.total).toBe(356);
    expect((await write(`/temp_ordenes/{lk}/${folio}/descuento`, { modo: 'porcentaje', valor: 0 })).status).toBe(200);
    const before = await ultimofolio();
    const reprint = await write(`/temp_ordenes/{lk}/${folio}/imprimir`, {});
    expect(reprint.body).toMatchObject({ numcheque, impresiones: 2, totales: { total: 356 } });
    expect(await ultimofolio()).toBe(before);
  });

  it('answers 404 for an unknown folio', async () => {
    const res = await write('/temp_ordenes/{lk}/999999/imprimir', {});
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('account_not_found');
  });
});

describe('pay', () => {
  it('settles mixed tenders with dollars and change: rows net of change, SR sums equal to the total', async () => {
    const folio = await openOrder();
    const before = await ultimofolio();
    // 5 dollars at 17.25 = 86.25, plus 100 pesos: 186.25 for 178.00, 8.25 change.
    const res = await write(`/temp_ordenes/{lk}/${folio}/pagar`, {
      pagos: [
        { idFormaDePago: 'USD', importe: 5 },
        { idFormaDePago: 'EFE', importe: 100 },
      ],
      usuario: 'CAJERO',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ folio, numcheque: before + 1, idTurno: await openShift(), cambio: 8.25, propina: 0, totales: { total: 178 } });
    const h = await header(folio);
    expect(h).toMatchObject({ pagado: true, impreso: true, impresiones: 1, idturno: await openShift(), usuariopago: 'CAJERO', numcheque: before + 1 });
    expect(Number(h.cambio)).toBe(8.25);
    expect(Number(h.efectivo)).toBe(178);
    expect(Number(h.tarjeta)).toBe(0);
    const rows = await payments(folio);
    expect(rows.map((r) => [r.idformadepago, Number(r.importe), Number(r.tipodecambio)])).toEqual([
      ['EFE', 91.75, 1],
      ['USD', 5, 17.25],
    ]);
    expect(await srPaidSum(folio)).toBe('178.00');
  });

  it('takes the change off dollars when they are the only cash, still to the cent', async () => {
    const folio = await openOrder();
    const res = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'USD', importe: 20 }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.cambio).toBe(167);
    expect(await srPaidSum(folio)).toBe('178.00');
  });

  it('puts a card tip in the card bucket and the totals with tips', async () => {
    const folio = await openOrder();
    const res = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'TAR', importe: 178, propina: 20, referencia: 'AUT123' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ cambio: 0, propina: 20 });
    const h = await header(folio);
    expect([h.tarjeta, h.efectivo, h.propina, h.propinatarjeta, h.totalconpropina, h.total].map(Number)).toEqual([198, 0, 20, 20, 198, 178]);
    expect((await payments(folio))[0]).toMatchObject({ idformadepago: 'TAR', referencia: 'AUT123' });
    expect(await srPaidSum(folio)).toBe('198.00');
  });

  it('refuses short, over and unknown tenders with nothing written', async () => {
    const folio = await openOrder();
    const before = await snapshot(folio);
    for (const [pagos, code] of [
      [[{ idFormaDePago: 'TAR', importe: 100 }], 'payment_insufficient'],
      [[{ idFormaDePago: 'USD', importe: 10.31 }], 'payment_insufficient'],
      [[{ idFormaDePago: 'TAR', importe: 200 }], 'overpayment'],
      [
        [
          { idFormaDePago: 'EFE', importe: 100 },
          { idFormaDePago: 'TAR', importe: 178.01 },
        ],
        'overpayment',
      ],
      [[{ idFormaDePago: 'BTC', importe: 178 }], 'payment_method_not_found'],
    ] as const) {
      const res = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.code).toBe(code);
      expect(await snapshot(folio)).toEqual(before);
    }
  });

  it('refuses a fraction of a cent in pesos, which would round into the total: the cash cut would miss it', async () => {
    const folio = await openOrder();
    const before = await snapshot(folio);
    for (const [pagos, path] of [
      [[{ idFormaDePago: 'EFE', importe: 177.995 }], 'body.pagos.0.importe'],
      [[{ idFormaDePago: 'TAR', importe: 178.004 }], 'body.pagos.0.importe'],
      [
        [
          { idFormaDePago: 'USD', importe: 5 },
          { idFormaDePago: 'TAR', importe: 91.75, propina: 0.001 },
        ],
        'body.pagos.1.propina',
      ],
    ] as const) {
      const res = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', errors: [{ path }] });
      expect(await snapshot(folio)).toEqual(before);
    }
    // Dollars keep their 4 decimals, settled at the rate as SR rounds them.
    const dollars = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'USD', importe: 10.3189 }] });
    expect(dollars.status, JSON.stringify(dollars.body)).toBe(200);
  });

  it('refuses paying twice (409) and answers a retry with the same key from the first payment', async () => {
    const folio = await openOrder();
    const key = randomUUID();
    const body = { pagos: [{ idFormaDePago: 'EFE', importe: 200 }] };
    const first = await write(`/temp_ordenes/{lk}/${folio}/pagar`, body, key);
    expect(first.status).toBe(200);
    const retry = await write(`/temp_ordenes/{lk}/${folio}/pagar`, body, key);
    expect(retry.body).toEqual(first.body);
    const twice = await write(`/temp_ordenes/{lk}/${folio}/pagar`, body);
    expect(twice.status).toBe(409);
    expect(twice.body).toMatchObject({ code: 'account_not_open', state: 'paid' });
    expect(await payments(folio)).toHaveLength(1);
  });

  it('races a direct SQL payment that locks the header as POS-SCHEMA.md says: exactly one wins', async () => {
    const folio = await openOrder();
    // The API's payment waits at its commit, holding the header, until the terminal has come in.
    const trap = await trapCommits(db, 'orders.pay', 'hold');
    try {
      const api = write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'TAR', importe: 178 }] });
      await until(async () => (await trap.reached()) > 0);
      // A terminal paying the same account now: it waits for the API's lock, then finds it paid.
      const terminal = db.transaction().execute(async (trx) => {
        const row = await trx.selectFrom('tempcheques').select('pagado').where('folio', '=', folio).forUpdate().executeTakeFirstOrThrow();
        if (row.pagado) return 'refused';
        await trx.insertInto('tempchequespagos').values(terminalPayment(folio, 178)).execute();
        await trx.updateTable('tempcheques').set({ pagado: true }).where('folio', '=', folio).execute();
        return 'paid';
      });
      await trap.release();
      expect((await api).status).toBe(200);
      expect(await terminal).toBe('refused');
    } finally {
      await trap.remove();
    }
    expect((await payments(folio)).map((p) => p.idformadepago)).toEqual(['TAR']);

    // The other way round: the terminal pays first, holding the lock while the API's request comes in
    // (200 ms gives it time to reach the lock); waiting or not, the API finds it paid and writes nothing.
    const second = await openOrder();
    const before = await ultimofolio();
    let apiAnswer: Promise<ApiResponse> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('tempcheques').select('pagado').where('folio', '=', second).forUpdate().execute();
      apiAnswer = write(`/temp_ordenes/{lk}/${second}/pagar`, { pagos: [{ idFormaDePago: 'TAR', importe: 178 }] });
      await sleep(200);
      await trx.insertInto('tempchequespagos').values(terminalPayment(second, 178)).execute();
      await trx.updateTable('tempcheques').set({ pagado: true }).where('folio', '=', second).execute();
    });
    const refused = await apiAnswer!;
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body).toMatchObject({ code: 'account_not_open', state: 'paid' });
    expect((await payments(second)).map((p) => p.idformadepago)).toEqual(['EFE']);
    expect(await ultimofolio()).toBe(before);
  });

  it('refuses an account with a terminal payment under way', async () => {
    const folio = await openOrder();
    await db.insertInto('tempchequespagos').values(terminalPayment(folio, 50)).execute();
    const res = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ state: 'paying' });
  });
});

describe('cancel', () => {
  it('cancels every line with the reason and motive, keeps the header cancelled, and refuses paying it', async () => {
    const folio = await openOrder([tacos, { movimiento: 2, idProducto: '1005', cantidad: 1 }], 'T2');
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'El cliente se fue', idMotivoCancela: '01', usuario: 'CAJERO' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ folio, itemsCancelados: 2, jobId: expect.any(String) });
    const h = await header(folio);
    expect(h).toMatchObject({
      cancelado: true,
      pagado: false,
      usuariocancelo: 'CAJERO',
      razoncancelado: 'El cliente se fue',
      idmotivocancela: '01',
      idturno: await openShift(),
    });
    expect(Number(h.total)).toBe(0);
    expect(await db.selectFrom('tempcheqdet').select('movimiento').where('foliodet', '=', folio).execute()).toEqual([]);
    const cancelled = await db
      .selectFrom('tempcancela')
      .select(['clave', 'razon', 'idmotivocancela'])
      .where('foliocheque', '=', folio)
      .orderBy('clave')
      .execute();
    expect(cancelled).toEqual([
      { clave: '1005', razon: 'El cliente se fue Mesa: T2', idmotivocancela: '01' },
      { clave: '3001', razon: 'El cliente se fue Mesa: T2', idmotivocancela: '01' },
    ]);
    const pay = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 1 }] });
    expect(pay.body).toMatchObject({ code: 'account_not_open', state: 'cancelled' });
    expect((await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'otra vez' })).status).toBe(409);
    const log = await db.selectFrom('bitacorasistema').select(['evento', 'valores']).where('evento', 'like', '%Cancelación de cuenta').execute();
    expect(log).toContainEqual({ evento: 'Comedor - Cancelación de cuenta', valores: `Cuenta: T2, Folio: ${folio}, Razón: El cliente se fue` });
    // The table is free again: a new account opens on it.
    await openOrder([tacos], 'T2');
  });

  it('refuses an account with a terminal payment under way, and changes nothing', async () => {
    const folio = await openOrder();
    await db.insertInto('tempchequespagos').values(terminalPayment(folio, 50)).execute();
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'se fue' });
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body).toMatchObject({ code: 'account_not_open', state: 'paying' });
    expect(await header(folio)).toMatchObject({ cancelado: false });
    expect(await db.selectFrom('tempcheqdet').select('movimiento').where('foliodet', '=', folio).execute()).not.toEqual([]);
  });

  it('refuses a paid account and an unknown motive', async () => {
    const folio = await openOrder();
    expect((await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'x', idMotivoCancela: 'ZZ' })).body.code).toBe('motive_not_found');
    await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] });
    const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'tarde' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'account_not_open', state: 'paid' });
  });
});
