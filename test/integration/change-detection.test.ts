/**
 * What a quiet poll's sums (observe.ts, tableSumsReader) must not miss: changes that leave plain sums
 * as they were, made straight in the database as a terminal makes them, between two polls.
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { operations } from '../../src/agent/operations.js';
import { ChangeDetector } from '../../src/pos/events/detector.js';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { newPosDatabase } from '../support/databases.js';
import { polledEvents } from '../support/polled-events.js';
import { orderBody } from '../support/order-body.js';

const log = pino({ level: 'silent' });
let pos: PosRuntime;
let detector: ChangeDetector;
const folios: number[] = [];

async function openAccount(mesa: string): Promise<number> {
  const runner = new JobRunner({ pos, operations, log, concurrency: 1, idempotencyRetentionMs: 3_600_000 });
  const result = await runner.run({
    type: 'job',
    jobId: `detect-${mesa}`,
    op: 'orders.create',
    params: orderBody({
      serie: 'A',
      noPersonas: 2,
      mesa,
      productos: [
        { movimiento: 1, idProducto: '3001', cantidad: 2 },
        { movimiento: 2, idProducto: '3002', cantidad: 5 },
      ],
    }),
    budgetMs: 60_000,
  });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return Number((result as { data: { folio: number } }).data.folio);
}

const pollEvents = () => polledEvents(detector, pos.db);

beforeAll(async () => {
  pos = await openPos(await newPosDatabase(), log);
  folios.push(await openAccount('91'), await openAccount('92'));
  detector = new ChangeDetector({ db: pos.db, dialect: pos.dialect, schema: pos.schema, log }, 'DETECT0000000001');
});
afterAll(async () => {
  await pos?.close();
});
beforeEach(async () => {
  await pollEvents();
  expect(await pollEvents()).toEqual([]);
});

it('two lines of one account trading quantities, the header untouched', async () => {
  const [folio] = folios;
  await pos.db.transaction().execute(async (trx) => {
    await trx.updateTable('tempcheqdet').set({ cantidad: 5 }).where('foliodet', '=', folio!).where('movimiento', '=', 1).execute();
    await trx.updateTable('tempcheqdet').set({ cantidad: 2 }).where('foliodet', '=', folio!).where('movimiento', '=', 2).execute();
  });
  expect(await pollEvents()).toEqual([`orden.actualizada ${folio}`]);
});

it('two accounts trading a quantity of the same product, the terminal rewriting both totals', async () => {
  const [a, b] = folios;
  const { precio } = await pos.db.selectFrom('tempcheqdet').select('precio').where('foliodet', '=', a!).where('movimiento', '=', 1).executeTakeFirstOrThrow();
  await pos.db.transaction().execute(async (trx) => {
    await trx.updateTable('tempcheqdet').set({ cantidad: 3 }).where('foliodet', '=', a!).where('movimiento', '=', 1).execute();
    await trx.updateTable('tempcheqdet').set({ cantidad: 1 }).where('foliodet', '=', b!).where('movimiento', '=', 1).execute();
    await trx
      .updateTable('tempcheques')
      .set((eb) => ({ total: eb('total', '+', precio) }))
      .where('folio', '=', a!)
      .execute();
    await trx
      .updateTable('tempcheques')
      .set((eb) => ({ total: eb('total', '-', precio) }))
      .where('folio', '=', b!)
      .execute();
  });
  expect((await pollEvents()).sort()).toEqual([`orden.actualizada ${a}`, `orden.actualizada ${b}`].sort());
});

it('a discount moving from one line to another of the same account', async () => {
  const [folio] = folios;
  await pos.db.transaction().execute(async (trx) => {
    await trx.updateTable('tempcheqdet').set({ descuento: 10 }).where('foliodet', '=', folio!).where('movimiento', '=', 1).execute();
  });
  expect(await pollEvents()).toEqual([`orden.actualizada ${folio}`]);
  await pos.db.transaction().execute(async (trx) => {
    await trx.updateTable('tempcheqdet').set({ descuento: 0 }).where('foliodet', '=', folio!).where('movimiento', '=', 1).execute();
    await trx.updateTable('tempcheqdet').set({ descuento: 10 }).where('foliodet', '=', folio!).where('movimiento', '=', 2).execute();
  });
  expect(await pollEvents()).toEqual([`orden.actualizada ${folio}`]);
});
