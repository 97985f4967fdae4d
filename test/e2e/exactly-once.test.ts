/**
 * Exactly-once writes end to end: Idempotency-Key replay and conflicts at the gateway, the
 * agent's own record when the answer is lost on a cut link, row locks between two real
 * connections, and a write refused by the database at its commit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { withTerminal } from '../support/databases.js';
import { skipOnBabelfish } from '../support/babelfish.js';
import { takeGate, trapCommits } from '../support/commit-trap.js';
import { until } from '../support/until.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;

beforeAll(async () => {
  stack = await startTestStack({ links: true });
  db = stack.pos.get(BRANCH)!.db;
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown, key: string = randomUUID()): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': key } });
}

const order = orderBody({ serie: 'A', mesa: '', idMesero: '01' });
const line = (idProducto: string, movimiento = 1) => ({ movimiento, idProducto, cantidad: 1 });

async function newOrder(): Promise<number> {
  const res = await write('/temp_ordenes/{lk}', { ...order, productos: [line('3001')] });
  expect(res.status).toBe(201);
  return res.body.folio;
}

async function lineIds(folio: number): Promise<Array<[number, string]>> {
  const rows = await db.selectFrom('tempcheqdet').select(['movimiento', 'idproducto']).where('foliodet', '=', folio).orderBy('movimiento').execute();
  return rows.map((r) => [Number(r.movimiento), r.idproducto ?? '']);
}

describe('Idempotency-Key at the gateway', () => {
  it('keys that differ only in letter case are different keys, down to the record in the POS database', async () => {
    const folio = await newOrder();
    const key = `Key-${randomUUID()}`;
    const first = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
    const second = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key.toUpperCase());
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
      [3, '1005'],
    ]);
  });

  it('replays a finished request with Idempotent-Replayed and does not write again', async () => {
    const folio = await newOrder();
    const key = randomUUID();
    const first = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
  });

  it('the same body with keys in another order is the same request', async () => {
    const key = randomUUID();
    const a = await write('/temp_ordenes/{lk}', { ...order, noPersonas: 3 }, key);
    const b = await write('/temp_ordenes/{lk}', { noPersonas: 3, ...order }, key);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body.folio).toBe(a.body.folio);
  });

  it('replays a business error too, without running again', async () => {
    const folio = await newOrder();
    const key = randomUUID();
    const first = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 7, idProducto: '3001' }] }, key);
    expect(first.status).toBe(422);
    const again = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 7, idProducto: '3001' }] }, key);
    expect(again.status).toBe(422);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/problem\+json/);
    expect(again.body.code).toBe('line_not_found');
  });

  it('does not keep validation errors: the key can be used again with a corrected body', async () => {
    const key = randomUUID();
    const bad = await write('/temp_ordenes/{lk}', { ...order, noPersonas: -1 }, key);
    expect(bad.status).toBe(400);
    const good = await write('/temp_ordenes/{lk}', { ...order, noPersonas: 1 }, key);
    expect(good.status).toBe(201);
  });

  it('422 idempotency_key_reused for the same key with another body, and nothing is written', async () => {
    const folio = await newOrder();
    const key = randomUUID();
    await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
    const reused = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1001')] }, key);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
  });

  it('409 idempotency_in_progress with Retry-After while the first request still runs', async ({ skip }) => {
    skipOnBabelfish(skip, 'tableHints');
    const folio = await newOrder();
    const key = randomUUID();
    // A terminal holds the account: the first request waits on the row lock.
    const first = await withTerminal(stack.posConfigs.get(BRANCH)!, async (trx) => {
      await trx.selectFrom('tempcheques').select('folio').where('folio', '=', folio).forUpdate().execute();
      const first = write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
      await sleep(300);
      const second = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('idempotency_in_progress');
      expect(second.headers.get('retry-after')).toBe('1');
      await trx.commit().execute();
      return first;
    });
    expect(first.status).toBe(200);
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
  });
});

describe('concurrency on one account', () => {
  it('a second write waits for the first transaction and then sees its result', async ({ skip }) => {
    skipOnBabelfish(skip, 'tableHints');
    const folio = await newOrder();
    await withTerminal(stack.posConfigs.get(BRANCH)!, async (trx) => {
      // Another terminal locks the account and adds line 2 without committing yet.
      await trx.selectFrom('tempcheques').select('folio').where('folio', '=', folio).forUpdate().execute();
      await trx
        .insertInto('tempcheqdet')
        .values(
          stack.agents.get(BRANCH)!.pos.schema.completeRow('tempcheqdet', {
            foliodet: folio,
            movimiento: 2,
            idproducto: '1001',
            cantidad: 1,
            precio: '35.0000',
            impuesto1: 16,
            impuesto2: 0,
            impuesto3: 0,
            descuento: 0,
            modificador: false,
          }),
        )
        .execute();
      let settled = false;
      const pending = write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }).then((r) => {
        settled = true;
        return r;
      });
      await sleep(400);
      expect(settled).toBe(false);
      await trx.commit().execute();
      const res = await pending;
      expect(res.status).toBe(200);
      expect(res.body.movimientos).toEqual([3]);
      expect(res.body.totales.total).toBe(89 + 35 + 29.9);
    });
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1001'],
      [3, '1005'],
    ]);
  });

  it('a write caught in a deadlock with a terminal still lands exactly once', async ({ skip }) => {
    skipOnBabelfish(skip, 'tableHints');
    const folio = await newOrder();
    // At its commit the agent's write, holding the account, waits for the gate the terminal holds.
    const trap = await trapCommits(db, 'orders.addLines', 'wait');
    let terminalOutcome: 'locked' | 'victim' | undefined;
    try {
      await withTerminal(stack.posConfigs.get(BRANCH)!, async (trx) => {
        await takeGate(trx);
        const pending = write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] });
        await until(async () => (await trap.reached()) > 0);
        await sleep(200);
        // Then the terminal asks for the account: a cycle the database must break by aborting one side.
        terminalOutcome = await trx
          .selectFrom('tempcheques')
          .select('folio')
          .where('folio', '=', folio)
          .forUpdate()
          .execute()
          .then(
            () => 'locked' as const,
            () => 'victim' as const,
          );
        // The terminal gives up its locks either way (a victim's transaction is already gone).
        await trx
          .rollback()
          .execute()
          .catch(() => undefined);
        const res = await pending;
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(res.body.movimientos).toEqual([2]);
      });
      // When the agent was the victim it ran the whole write again; otherwise once.
      expect(await trap.reached()).toBe(terminalOutcome === 'locked' ? 2 : 1);
    } finally {
      await trap.remove();
    }
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
  });

  it('twenty concurrent additions to one account lose nothing and number every line once', async ({ skip }) => {
    skipOnBabelfish(skip, 'tableHints');
    const folio = await newOrder();
    const results = await Promise.all(Array.from({ length: 20 }, () => write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const numbers = results.map((r) => r.body.movimientos[0]).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    const ids = await lineIds(folio);
    expect(ids.map(([m]) => m)).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
    const header = await db.selectFrom('tempcheques').select('total').where('folio', '=', folio).executeTakeFirstOrThrow();
    expect(header.total).toBe((89 + 20 * 29.9).toFixed(4));
  });
});

describe('lost answers and failures', () => {
  it('a retry after the answer was lost finds the write applied exactly once', async () => {
    const folio = await newOrder();
    const key = randomUUID();
    const link = stack.links.get(BRANCH)!;
    // The agent's answer never reaches the gateway: the link is cut once the write is committed.
    link.hold();
    const pending = write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
    await until(async () => (await lineIds(folio)).length === 2);
    link.sever();
    const lost = await pending;
    expect(lost.status).toBe(503);
    expect(lost.body.code).toBe('agent_offline');
    // Committed although the client was told otherwise: the retry must not add it again.
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
    let retry: ApiResponse;
    for (;;) {
      retry = await write(`/temp_ordenes/{lk}/${folio}/productos`, { productos: [line('1005')] }, key);
      if (retry.status !== 503) break;
      await sleep(50);
    }
    expect(retry.status).toBe(200);
    expect(retry.body.movimientos).toEqual([2]);
    expect(retry.body.itemsAgregados).toBe(1);
    expect(await lineIds(folio)).toEqual([
      [1, '3001'],
      [2, '1005'],
    ]);
    const records = await db.selectFrom('ba_idempotency').select(['op', 'fingerprint']).where('idem_key', '=', key).execute();
    expect(records).toHaveLength(1);
  });

  it('a write refused at its commit leaves the database as it was and the key reusable', async () => {
    const folio = await newOrder();
    const key = randomUUID();
    const before = await db.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow();
    const trap = await trapCommits(db, 'orders.cancelLines', 'fail');
    try {
      const res = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'prueba' }, key);
      expect(res.status).toBe(500);
      expect(res.body.code).toBe('internal_error');
      expect(JSON.stringify(res.body)).not.toMatch(/refused|trap|stack|select|insert/i);
      expect(await trap.reached()).toBe(1);
    } finally {
      await trap.remove();
    }
    expect(await db.selectFrom('tempcheques').selectAll().where('folio', '=', folio).executeTakeFirstOrThrow()).toEqual(before);
    expect(await lineIds(folio)).toEqual([[1, '3001']]);
    expect(await db.selectFrom('tempcancela').select('cancelaid').where('foliocheque', '=', folio).execute()).toHaveLength(0);
    expect(await db.selectFrom('ba_idempotency').select('op').where('idem_key', '=', key).execute()).toHaveLength(0);
    const retry = await write(`/temp_ordenes/{lk}/${folio}/cancelar_productos`, { productos: [{ movimiento: 1, idProducto: '3001' }], razon: 'prueba' }, key);
    expect(retry.status).toBe(200);
  });
});
