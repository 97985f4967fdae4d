/**
 * The events of settling an account: printed, reopened, paid and cancelled, read from the feed,
 * whether the API made the change (origin api, with its job) or a terminal did (origin pos).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PosDb } from '../../src/pos/schema.js';
import { BRANCH, startTestStack, type ApiResponse, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';
import { orderBody } from '../support/order-body.js';

let stack: TestStack;
let db: PosDb;

beforeAll(async () => {
  stack = await startTestStack({ agent: { events: { pollIntervalMs: 100 } } });
  db = stack.pos.get(BRANCH)!.db;
  // The agent's first poll only takes its baseline; wait for it before changing anything.
  await until(async () => (await db.selectFrom('ba_event_state').select('id').executeTakeFirst()) !== undefined);
});
afterAll(async () => {
  await stack?.stop();
});

function write(path: string, body: unknown): Promise<ApiResponse> {
  return stack.api('POST', path.replace('{lk}', BRANCH), { body, headers: { 'idempotency-key': randomUUID() } });
}

interface FeedEvent {
  type: string;
  origin: string;
  jobId: string | null;
  data: { folio?: number; impreso?: boolean; numcheque?: number } | null;
}

/** Waits for the feed to hold an event of `type` about `folio`, and answers it. */
async function eventFor(type: string, folio: number): Promise<FeedEvent> {
  let found: FeedEvent | undefined;
  await until(async () => {
    const feed = await stack.api('GET', `/eventos/${BRANCH}?limit=500`);
    found = (feed.body.data as FeedEvent[]).find((e) => e.type === type && e.data?.folio === folio);
    return found !== undefined;
  }, 10_000);
  return found!;
}

async function openOrder(): Promise<number> {
  const res = await write(
    '/temp_ordenes/{lk}',
    orderBody({
      serie: 'A',
      productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }],
    }),
  );
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.folio;
}

describe('settlement events', () => {
  it('reports printing, reopening and paying through the API, each with its job', async () => {
    const folio = await openOrder();
    await eventFor('orden.abierta', folio);
    const printed = await write(`/temp_ordenes/{lk}/${folio}/imprimir`, {});
    expect(await eventFor('orden.impresa', folio)).toMatchObject({
      origin: 'api',
      jobId: printed.body.jobId,
      data: { impreso: true, numcheque: printed.body.numcheque },
    });
    const reopened = await write(`/temp_ordenes/{lk}/${folio}/reabrir`, {});
    expect(await eventFor('orden.reabierta', folio)).toMatchObject({ origin: 'api', jobId: reopened.body.jobId, data: { impreso: false } });
    const paid = await write(`/temp_ordenes/{lk}/${folio}/pagar`, { pagos: [{ idFormaDePago: 'EFE', importe: 100 }] });
    expect(paid.status).toBe(200);
    expect(await eventFor('orden.pagada', folio)).toMatchObject({ origin: 'api', jobId: paid.body.jobId });
  });

  it('reports a cancellation through the API', async () => {
    const folio = await openOrder();
    await eventFor('orden.abierta', folio);
    const cancelled = await write(`/temp_ordenes/{lk}/${folio}/cancelar`, { razon: 'Se fue' });
    expect(await eventFor('orden.cancelada', folio)).toMatchObject({ origin: 'api', jobId: cancelled.body.jobId });
  });

  it('reports a terminal printing and reopening an account as made at the POS', async () => {
    const folio = await openOrder();
    await eventFor('orden.abierta', folio);
    // What SR's print writes (order-lifecycle row 361), and a reopen undoing it.
    await db.updateTable('tempcheques').set({ impreso: true, numcheque: 77, impresiones: 1, cierre: new Date() }).where('folio', '=', folio).execute();
    expect(await eventFor('orden.impresa', folio)).toMatchObject({ origin: 'pos', jobId: null, data: { numcheque: 77 } });
    await db.updateTable('tempcheques').set({ impreso: false, reabiertas: 1 }).where('folio', '=', folio).execute();
    expect(await eventFor('orden.reabierta', folio)).toMatchObject({ origin: 'pos', jobId: null });
  });
});
