/**
 * A shift's cash cut (GET /turnos/{licenseKey}/{idTurno}/corte) compared with Soft Restaurant's
 * own queries run against the same rows: per account, order-lifecycle rows 577-582 while the
 * shift is open, shift-close rows 195-200 once its close moved the accounts to history.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
let idTurno: number;

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
  const shift = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA1').where('cierre', 'is', null).executeTakeFirstOrThrow();
  idTurno = Number(shift.idturno);
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': randomUUID() } });
}

const corte = (turno = idTurno) => stack.api('GET', `/turnos/${BRANCH}/${turno}/corte`);

async function paidOrder(productos: unknown[], pagos: unknown[]): Promise<number> {
  const open = await write('/temp_ordenes/{lk}', orderBody({ serie: 'A', productos }));
  expect(open.status, JSON.stringify(open.body)).toBe(201);
  const paid = await write(`/temp_ordenes/{lk}/${open.body.folio}/pagar`, { pagos });
  expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  return open.body.folio;
}

const line = (idProducto: string, cantidad: number, movimiento = 1) => ({ movimiento, idProducto, cantidad });

/**
 * SR's per-account statements, verbatim but for the table set, summed over the shift's paid,
 * not cancelled accounts: rows 577-580 (or 195-198) by tipo, 581 (199) tips, 582 (200) card tips.
 */
async function srSums(history: boolean) {
  const [header, pagos] = history ? ['cheques', 'chequespagos'] : ['tempcheques', 'tempchequespagos'];
  const folios = await sql<{
    folio: number;
  }>`SELECT folio FROM ${sql.table(header)} WHERE idturno=${idTurno} AND pagado=${true} AND cancelado=${false}`.execute(db);
  const out = { efectivo: 0, tarjeta: 0, vales: 0, credito: 0, propina: 0, propinatarjeta: 0 };
  const p = sql.table(pagos);
  for (const { folio } of folios.rows) {
    for (const [tipo, key] of [
      [1, 'efectivo'],
      [2, 'tarjeta'],
      [3, 'vales'],
      [4, 'credito'],
    ] as const) {
      const { rows } = await sql<{
        importe: string | null;
      }>`select SUM((importe+propina)*${p}.tipodecambio) as importe from ${p} inner join formasdepago on ${p}.idformadepago=formasdepago.idformadepago where formasdepago.tipo=${tipo} and ${p}.folio=${folio}`.execute(
        db,
      );
      out[key] += Number(rows[0]?.importe ?? 0);
    }
    const tips = await sql<{ propina: string | null }>`select SUM(propina*${p}.tipodecambio) as propina from ${p} where ${p}.folio=${folio}`.execute(db);
    out.propina += Number(tips.rows[0]?.propina ?? 0);
    const cardTips = await sql<{
      propinatarjeta: string | null;
    }>`select SUM(propina*${p}.tipodecambio) as propinatarjeta from ${p} inner join formasdepago on ${p}.idformadepago=formasdepago.idformadepago where formasdepago.tipo=2 and ${p}.folio=${folio}`.execute(
      db,
    );
    out.propinatarjeta += Number(cardTips.rows[0]?.propinatarjeta ?? 0);
  }
  const cents = (n: number) => Math.round(n * 100) / 100;
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, cents(v)])) as typeof out;
}

function expectMatchesSr(body: ApiResponse['body'], sr: Awaited<ReturnType<typeof srSums>>) {
  expect(body.porTipo).toEqual({ efectivo: sr.efectivo, tarjeta: sr.tarjeta, vales: sr.vales, credito: sr.credito });
  expect(body.ventas.propinas).toBe(sr.propina);
  expect(body.ventas.propinasTarjeta).toBe(sr.propinatarjeta);
  // The methods add up to the tenders.
  for (const [tipo, key] of [
    [1, 'efectivo'],
    [2, 'tarjeta'],
    [3, 'vales'],
    [4, 'credito'],
  ] as const) {
    const methods = (body.formasDePago as Array<{ tipo: number; importePesos: number }>).filter((m) => m.tipo === tipo);
    expect(Math.round(methods.reduce((s, m) => s + m.importePesos * 100, 0)) / 100).toBe(sr[key]);
  }
}

describe('cash cut', () => {
  let cancelledFolio: number;
  let cardFolio: number;
  let before: ApiResponse['body'];

  it("adds up an open shift's payments as SR's own queries do, dollars, change and tips included", async () => {
    before = (await corte()).body;
    await paidOrder(
      [line('3001', 2)],
      [
        { idFormaDePago: 'USD', importe: 5 },
        { idFormaDePago: 'EFE', importe: 100 },
      ],
    );
    cardFolio = await paidOrder([line('3002', 1)], [{ idFormaDePago: 'TAR', importe: 135, propina: 15 }]);
    await paidOrder([line('1005', 1)], [{ idFormaDePago: 'VAL', importe: 29.9 }]);
    await paidOrder(
      [line('1001', 2)],
      [
        { idFormaDePago: 'CRE', importe: 50 },
        { idFormaDePago: 'USD', importe: 2, propina: 1 },
      ],
    );
    const open = await write(
      '/temp_ordenes/{lk}',
      orderBody({
        serie: 'A',
        productos: [line('3001', 1), line('1005', 1, 2)],
      }),
    );
    cancelledFolio = open.body.folio;
    expect((await write(`/temp_ordenes/{lk}/${cancelledFolio}/cancelar`, { razon: 'Se fue' })).status).toBe(200);

    const res = await corte();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ idTurno, abierto: true, declaracion: null, diferencia: null });
    expectMatchesSr(res.body, await srSums(false));
    // What these accounts added: 178 cash; 150 card with its 15 tip; 29.90 vouchers; for 70.00, 50 credit and 2 dollars
    // (34.50) less 14.50 change plus a 1-dollar tip: 37.25 cash.
    const delta = (k: string) => Math.round((res.body.porTipo[k] - before.porTipo[k]) * 100) / 100;
    expect([delta('efectivo'), delta('tarjeta'), delta('vales'), delta('credito')]).toEqual([215.25, 150, 29.9, 50]);
    expect(res.body.ventas.cuentas - before.ventas.cuentas).toBe(4);
    const sold = (k: string) => Math.round((res.body.ventas[k] - before.ventas[k]) * 100) / 100;
    // 178.00 + 135.00 + 29.90 + 70.00, their taxes at 16 %, the tips in pesos (15 on the card, 1 dollar).
    expect([sold('total'), sold('impuestos'), sold('propinas'), sold('propinasTarjeta')]).toEqual([412.9, 56.95, 32.25, 15]);
    expect(res.body.ventas.cuentasCanceladas - before.ventas.cuentasCanceladas).toBe(1);
    expect(res.body.ventas.productosCancelados - before.ventas.productosCancelados).toBe(2);
    const usd = res.body.formasDePago.find((m: { idFormaDePago: string }) => m.idFormaDePago === 'USD');
    expect(usd).toMatchObject({ tipo: 1, descripcion: 'Dólares' });
  });

  it('answers 404 for a shift that does not exist', async () => {
    const res = await corte(987654);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('shift_not_found');
  });

  it('gives the same cut after the close moved the accounts to history, with the declaration and the difference', async () => {
    const open = (await corte()).body;
    // Open accounts the seed left stay in the temporary tables; the close takes paid and cancelled ones.
    const close = await write('/turnos_cierre/{lk}', {
      idTurno,
      estacion: 'CAJA1',
      idEmpresa: '0000000001',
      declaracion: [
        { idFormaDePago: 'EFE', importe: 200 },
        { idFormaDePago: 'TAR', importe: 150 },
      ],
    });
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    const res = await corte();
    expect(res.status).toBe(200);
    expect(res.body.abierto).toBe(false);
    expect({ ...res.body, abierto: true, declaracion: null, diferencia: null }).toEqual({ ...open, jobId: res.body.jobId });
    expectMatchesSr(res.body, await srSums(true));
    expect(res.body.declaracion).toEqual({ efectivo: 200, tarjeta: 150, vales: 0, credito: 0 });
    expect(res.body.diferencia.tarjeta).toBe(Math.round((150 - res.body.porTipo.tarjeta) * 100) / 100);

    // The cancelled account went to history cancelled; the paid one appears in the closed orders with its numcheque.
    const cancelled = await db.selectFrom('cheques').select(['cancelado', 'idturno']).where('foliotempcheques', '=', cancelledFolio).executeTakeFirstOrThrow();
    expect(cancelled).toMatchObject({ cancelado: true });
    expect(Number(cancelled.idturno)).toBe(idTurno);
    const card = await db.selectFrom('cheques').select(['folio', 'numcheque']).where('foliotempcheques', '=', cardFolio).executeTakeFirstOrThrow();
    const listed = await stack.api('POST', `/ordenes/buscar/${BRANCH}`, { body: { idTurnos: [idTurno], pageSize: 500 } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    const order = listed.body.data.find((o: { folio: number }) => o.folio === Number(card.folio));
    expect(order).toMatchObject({ numcheque: Number(card.numcheque), pagado: true, folioTemporal: cardFolio });
    expect(order.pagos).toEqual([expect.objectContaining({ idFormaDePago: 'TAR', importe: 135, propina: 15 })]);
  });
});
