/**
 * A payment or a cancellation racing the close of the shift it lands in: whichever commits first,
 * the account must end up in the closed shift's history or in no closed shift at all, never paid
 * into a closed shift and left in the temporary tables, which no later close would move.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { trapCommits } from '../support/commit-trap.js';
import { until } from '../support/until.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;
const company = '0000000001';

beforeAll(async () => {
  stack = await startTestStack();
  db = stack.pos.get(BRANCH)!.db;
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': randomUUID() } });
}

async function openShift(): Promise<number> {
  const row = await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA1').where('cierre', 'is', null).executeTakeFirst();
  if (row) return Number(row.idturno);
  const res = await write('/turnos_apertura/{lk}', { estacion: 'CAJA1', idEmpresa: company, cajero: 'CAJERO', fondo: 0 });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.idTurno;
}

async function printedOrder(): Promise<number> {
  const res = await write('/temp_ordenes/{lk}', orderBody({ serie: 'A', idMesero: '01', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 2 }] }));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  // Printed beforehand, so that the payment takes no counter lock the close would wait on.
  expect((await write(`/temp_ordenes/{lk}/${res.body.folio}/imprimir`, {})).status).toBe(200);
  return res.body.folio;
}

const closeShift = (idTurno: number) => write('/turnos_cierre/{lk}', { idTurno, estacion: 'CAJA1', idEmpresa: company });

/** Starts `held`, holds it at the commit of `op`, starts `meanwhile`, and then lets `held` commit. */
async function whileHeld(op: string, held: () => Promise<ApiResponse>, meanwhile: () => Promise<ApiResponse>) {
  const trap = await trapCommits(db, op, 'hold');
  let first: Promise<ApiResponse> | undefined;
  let second: Promise<ApiResponse> | undefined;
  try {
    first = held();
    await until(async () => (await trap.reached()) > 0);
    second = meanwhile();
    // Long enough for `meanwhile` to finish if nothing holds it back.
    await sleep(1500);
    await trap.release();
  } finally {
    await trap.remove();
  }
  return { held: await first, meanwhile: await second };
}

/** Holds `op` at its commit while the shift closes, then lets it commit. Returns both answers. */
async function raceClose(op: string, path: string, body: unknown, idTurno: number) {
  const { held, meanwhile } = await whileHeld(
    op,
    () => write(path, body),
    () => closeShift(idTurno),
  );
  return { answer: held, close: meanwhile };
}

/**
 * Closes the shift while `read` runs, so that the close commits halfway through it: the close
 * waits at its commit; a lock asked on `table` queues behind the close's, and the read's first
 * statement on `table` behind that lock. Returns the read's answer once the close has answered.
 */
async function closeWhileReading(idTurno: number, table: 'tempcancela' | 'tempcheques', read: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let blocker: Promise<void> | undefined;
  const { held: close, meanwhile: answer } = await whileHeld(
    'shifts.close',
    () => closeShift(idTurno),
    async () => {
      blocker = db.transaction().execute(async (trx) => {
        await sql`LOCK TABLE ${sql.table(table)} IN ACCESS EXCLUSIVE MODE`.execute(trx);
      });
      await sleep(300);
      return read();
    },
  );
  expect(close.status).toBe(200);
  await blocker;
  return answer;
}

/** Where the account is now: in history (with its shift) or still temporary (with its state). */
async function whereIs(folio: number, idTurno: number) {
  const history = await db
    .selectFrom('cheques')
    .select(['idturno', 'pagado', 'cancelado', 'total'])
    .where('foliotempcheques', '=', folio)
    .where('idturno', '=', idTurno)
    .execute();
  const temp = await db.selectFrom('tempcheques').select(['idturno', 'pagado', 'cancelado']).where('folio', '=', folio).executeTakeFirst();
  const shift = temp ? await db.selectFrom('turnos').select('cierre').where('idturno', '=', Number(temp.idturno)).executeTakeFirst() : undefined;
  return { history, temp, tempShiftClosed: shift?.cierre != null };
}

describe('settling while the shift closes', () => {
  it('a payment racing the close lands in the closed shift’s history, or is refused', async () => {
    const idTurno = await openShift();
    const folio = await printedOrder();
    const { close, answer } = await raceClose('orders.pay', `/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] }, idTurno);
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    const where = await whereIs(folio, idTurno);
    if (answer.status === 200) {
      // Paid into the shift: the close moved it and counted it.
      expect(where.temp, 'a paid account left in the temporary tables of a closed shift').toBeUndefined();
      expect(where.history).toHaveLength(1);
      expect(close.body.efectivo).toBeGreaterThanOrEqual(178);
    } else {
      expect(answer.body.code).toBe('shift_not_open');
      expect(where.temp).toMatchObject({ pagado: false });
    }
  });

  it('a payment arriving while the close commits waits for it and finds the shift closed', async () => {
    const idTurno = await openShift();
    const folio = await printedOrder();
    const { held: close, meanwhile: answer } = await whileHeld(
      'shifts.close',
      () => closeShift(idTurno),
      () => write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] }),
    );
    expect(close.status).toBe(200);
    expect(answer.status, JSON.stringify(answer.body)).toBe(409);
    expect(answer.body.code).toBe('shift_not_open');
    expect((await whereIs(folio, idTurno)).temp).toMatchObject({ pagado: false });
  });

  it('a quick sale racing the close lands in the closed shift’s history, or in no closed shift', async () => {
    const idTurno = await openShift();
    const body = orderBody({ serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 2 }] });
    const { close, answer } = await raceClose('orders.createClosed', '/ordenes/{lk}', body, idTurno);
    expect(close.status).toBe(200);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const where = await whereIs(answer.body.folio, idTurno);
    if (where.temp) expect(where.tempShiftClosed, 'a paid sale left in the temporary tables of a closed shift').toBe(false);
    else expect(where.history).toMatchObject([{ pagado: true }]);
  });

  it('a cancellation racing the close lands in the closed shift’s history, or waits for the next', async () => {
    const idTurno = await openShift();
    const folio = await printedOrder();
    const { close, answer } = await raceClose('orders.cancel', `/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'Se fue' }, idTurno);
    expect(close.status, JSON.stringify(close.body)).toBe(200);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const where = await whereIs(folio, idTurno);
    if (where.temp) {
      expect(where.tempShiftClosed, 'a cancelled account left in the temporary tables of a closed shift').toBe(false);
    } else {
      expect(where.history).toMatchObject([{ cancelado: true }]);
    }
  });
});

describe('a cash cut read while the shift closes', () => {
  it('counts each account once, whether it reads before, after or across the close', async () => {
    const idTurno = await openShift();
    const folio = await printedOrder();
    expect((await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] })).status).toBe(200);
    const quiet = (await stack.api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body;
    expect(quiet.ventas.total).toBeGreaterThanOrEqual(178);

    // The cut's first read of tempcancela comes after its reads of the temporary headers.
    const raced = (await closeWhileReading(idTurno, 'tempcancela', () => stack.api('GET', `/turnos/${BRANCH}/${idTurno}/corte`))).body;
    const after = (await stack.api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body;
    expect(after.ventas).toEqual(quiet.ventas);
    expect(raced.ventas).toEqual(quiet.ventas);
    expect(raced.porTipo).toEqual(quiet.porTipo);
  });
});

describe('the day’s orders read while the shift closes', () => {
  it('lists a paid account once, whether it reads before, after or across the close', async () => {
    const idTurno = await openShift();
    const folio = await printedOrder();
    expect((await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 178 }] })).status).toBe(200);
    type Listed = { folio: number; folioTemporal?: number; idTurno: number; origen: string };
    const mine = (body: { data: Listed[] }) =>
      body.data.filter((o) => o.idTurno === idTurno && (o.origen === 'temporal' ? o.folio === folio : o.folioTemporal === folio));
    const list = () => stack.api('GET', `/ordenes_dia/${BRANCH}?pageSize=100`);
    expect(mine((await list()).body)).toHaveLength(1);

    // The listing reads the history tables first, then tempcheques.
    const listed = await closeWhileReading(idTurno, 'tempcheques', list);
    expect(mine((await list()).body)).toHaveLength(1);
    expect(mine(listed.body)).toHaveLength(1);
  });
});
