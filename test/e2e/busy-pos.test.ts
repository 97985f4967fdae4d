/**
 * A terminal holding records past the agent's lock timeout: the client gets 503 `pos_busy` with
 * Retry-After long before the job deadline, nothing is written, and the same request with the
 * same Idempotency-Key goes through once the terminal lets go.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { withTerminal } from '../support/databases.js';
import { skipOnBabelfish } from '../support/babelfish.js';
import { orderBody } from '../support/order-body.js';

const LOCK_TIMEOUT_MS = 500;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ lockTimeoutMs: LOCK_TIMEOUT_MS });
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown, key: string = randomUUID()): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } });
}

const line = (idProducto: string) => ({ movimiento: 1, idProducto, cantidad: 1 });

async function newOrder(): Promise<number> {
  const res = await write(
    '/temp_ordenes/{lk}',
    orderBody({
      serie: 'A',
      mesa: '',
      idMesero: '01',
      productos: [line('3001')],
    }),
  );
  expect(res.status).toBe(201);
  return res.body.folio;
}

async function state(folio: number) {
  const db = stack.pos.get(BRANCH)!.db;
  const lines = await db.selectFrom('tempcheqdet').select(['movimiento', 'idproducto']).where('foliodet', '=', folio).orderBy('movimiento').execute();
  const header = await db.selectFrom('tempcheques').select('total').where('folio', '=', folio).executeTakeFirstOrThrow();
  return { lines: lines.map((l) => [Number(l.movimiento), l.idproducto]), total: header.total };
}

/** Runs `during` while another POS session holds the account row with an uncommitted change. */
function whileATerminalHolds<T>(folio: number, during: () => Promise<T>): Promise<T> {
  return withTerminal(stack.posConfigs.get(BRANCH)!, async (trx) => {
    await trx.updateTable('tempcheques').set({ observaciones: 'en caja' }).where('folio', '=', folio).execute();
    return during();
  });
}

describe('a terminal holding an account past the lock timeout', () => {
  it('answers a write with 503 pos_busy and Retry-After, writes nothing, and the same key succeeds afterwards', async ({ skip }) => {
    skipOnBabelfish(skip, 'lockTimeout');
    const folio = await newOrder();
    const before = await state(folio);
    const key = randomUUID();
    const path = `/temp_ordenes/{lk}/${folio}/productos`;
    const body = { productos: [line('1005')] };

    let waited = 0;
    const busy = await whileATerminalHolds(folio, async () => {
      const started = Date.now();
      const res = await write(path, body, key);
      waited = Date.now() - started;
      return res;
    });
    expect(busy.status, JSON.stringify(busy.body)).toBe(503);
    expect(busy.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.body.code).toBe('pos_busy');
    expect(busy.body.detail).toMatch(/terminal/);
    // It waited for the lock, then gave up well before the 30 s job deadline.
    expect(waited).toBeGreaterThanOrEqual(LOCK_TIMEOUT_MS - 50);
    expect(waited).toBeLessThan(10_000);
    expect(await state(folio)).toEqual(before);
    const record = await stack.pos.get(BRANCH)!.db.selectFrom('ba_idempotency').select('idem_key').where('idem_key', '=', key).execute();
    expect(record).toEqual([]);

    const retried = await write(path, body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.movimientos).toEqual([2]);
    expect((await state(folio)).lines).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
  });

  it('a read sees the last committed account on PostgreSQL, and gets pos_busy on SQL Server, whose readers wait for writers', async ({ skip }) => {
    skipOnBabelfish(skip, 'readersWait');
    const folio = await newOrder();
    const read = await whileATerminalHolds(folio, () => stack.api('GET', `/temp_ordenes/${BRANCH}?folio=${folio}`));
    if (stack.posConfigs.get(BRANCH)!.dialect === 'postgres') {
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data.map((o: { folio: number }) => o.folio)).toEqual([folio]);
    } else {
      expect(read.status, JSON.stringify(read.body)).toBe(503);
      expect(read.body.code).toBe('pos_busy');
    }
  });
});
