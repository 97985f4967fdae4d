/**
 * The agent validates a job's params again, with the operation's own schema, before it touches
 * the database (docs/architecture.md, "One operation, one schema, one function", and step 7 of
 * a request's path): a job that did not come through the gateway's validation (a gateway of
 * another version, a forged frame) is answered `validation_failed` and writes nothing, not even
 * its idempotency record. Jobs are handed straight to a JobRunner on a real POS database.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobRunner } from '../../src/agent/runner.js';
import type { JobMessage } from '../../src/protocol/messages.js';
import { openPos } from '../../src/pos/runtime.js';
import type { PosRuntime } from '../../src/pos/runtime.js';
import { newPosDatabase } from '../support/databases.js';
import { testRunner } from '../support/job-runner.js';
import { orderBody } from '../support/order-body.js';

let pos: PosRuntime;
let runner: JobRunner;
beforeAll(async () => {
  pos = await openPos(await newPosDatabase('branch'), pino({ level: 'silent' }));
  runner = testRunner(pos);
});
afterAll(async () => {
  await pos?.close();
});

const job = (op: string, params: Record<string, unknown>): JobMessage => ({
  type: 'job',
  jobId: randomUUID(),
  op,
  params,
  budgetMs: 30_000,
  idempotency: { scope: 'validation', key: randomUUID(), fingerprint: 'f' },
});

/** Every table an account write or its record touches: row counts, and the folio counters. */
async function written(): Promise<Record<string, unknown>> {
  const tables = ['tempcheques', 'tempcheqdet', 'productosenproduccion', 'bitacorasistema', 'ba_idempotency', 'ba_event_origins'];
  const counts: Record<string, unknown> = {};
  for (const table of tables) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(pos.db);
    counts[table] = Number(rows[0]!.n);
  }
  counts.folios = await pos.db.selectFrom('folios').select(['serie', 'ultimofolio', 'ultimaorden']).orderBy('serie').execute();
  return counts;
}

const tacos = { movimiento: 1, idProducto: '3001', cantidad: 2 };

it('writes with params its schema accepts', async () => {
  const before = await written();
  const created = await runner.run(job('orders.create', orderBody({ serie: 'A', mesa: '', idMesero: '01', productos: [tacos] })));
  expect(created.ok, JSON.stringify(created)).toBe(true);
  expect(await written()).not.toEqual(before);
});

it.each([
  [
    'an account with a service type that does not exist',
    'orders.create',
    orderBody({ serie: 'A', mesa: '', idMesero: '01', tipoDeServicio: 9, productos: [tacos] }),
  ],
  ['lines numbered out of order', 'orders.addLines', { folio: 'open', productos: [{ ...tacos, movimiento: 2 }] }],
  ['a negative quantity', 'orders.addLines', { folio: 'open', productos: [{ ...tacos, cantidad: -2 }] }],
])('refuses %s with validation_failed and writes nothing', async (_case, op, params) => {
  let folio: unknown;
  if (params.folio === 'open') {
    const opened = await runner.run(job('orders.create', orderBody({ serie: 'A', mesa: '', idMesero: '01', productos: [tacos] })));
    expect(opened.ok, JSON.stringify(opened)).toBe(true);
    folio = (opened as { data: { folio: number } }).data.folio;
  }
  const before = await written();
  const answer = await runner.run(job(op, { ...params, ...(folio === undefined ? {} : { folio }) }));
  expect(answer).toMatchObject({
    ok: false,
    error: { code: 'validation_failed', details: { errors: [expect.objectContaining({ path: expect.any(String), message: expect.any(String) })] } },
  });
  expect(await written()).toEqual(before);
});
