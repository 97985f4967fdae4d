/**
 * Accounts paid or cancelled and then moved to history by a shift close, all between two polls of
 * the change detector: the poll that finds them gone reports what it missed (orden.pagada,
 * orden.cancelada, and orden.abierta of a quick sale no poll saw) before orden.cerrada. Before,
 * they went from orden.abierta straight to orden.cerrada, or went unreported, and a webhook
 * counting sales from orden.pagada missed them (a probe saw 7 of 8).
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { operations } from '../../src/agent/operations.js';
import { ChangeDetector } from '../../src/pos/events/detector.js';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { newPosDatabase } from '../support/databases.js';
import { polledEvents } from '../support/polled-events.js';
import { orderBody } from '../support/order-body.js';

const log = pino({ level: 'silent' });
let pos: PosRuntime;
let runner: JobRunner;
let detector: ChangeDetector;
let jobs = 0;

async function run<T>(op: string, params: Record<string, unknown>): Promise<T> {
  const result = await runner.run({ type: 'job', jobId: `across-${++jobs}`, op, params, budgetMs: 60_000 });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return (result as { data: T }).data;
}

const pollEvents = () => polledEvents(detector, pos.db);

beforeAll(async () => {
  pos = await openPos(await newPosDatabase(), log);
  runner = new JobRunner({ pos, operations, log, concurrency: 1, idempotencyRetentionMs: 3_600_000 });
  detector = new ChangeDetector({ db: pos.db, dialect: pos.dialect, schema: pos.schema, log }, 'ACROSS0000000001');
  await pollEvents();
});
afterAll(async () => {
  await pos?.close();
});

it('reports what it missed of the accounts a close moved between two polls, before their orden.cerrada', async () => {
  const open = async (mesa: string) =>
    await run<{ folio: number; totales: { total: number } }>(
      'orders.create',
      orderBody({ mesa, productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
    );
  const paid = await open('81');
  const cancelled = await open('82');
  expect(await pollEvents()).toEqual([`orden.abierta ${paid.folio}`, `orden.abierta ${cancelled.folio}`]);

  await run('orders.pay', { folio: paid.folio, pagos: [{ idFormaDePago: 'EFE', importe: paid.totales.total }] });
  await run('orders.cancel', { folio: cancelled.folio, razon: 'cliente se fue' });
  // A quick sale no poll sees before the close moves it.
  const quick = await run<{ folio: number }>(
    'orders.createClosed',
    orderBody({ idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
  );
  await run('shifts.close', { idTurno: 2, estacion: 'TERM1', idEmpresa: '0000000001', serie: 'A' });
  const events = await pollEvents();
  // Events of a closed account carry its history record, numbered apart from the temporary folios.
  const historyFolio = async (folio: number) =>
    Number((await pos.db.selectFrom('cheques').select('folio').where('foliotempcheques', '=', folio).executeTakeFirstOrThrow()).folio);
  const [p, c, q] = [await historyFolio(paid.folio), await historyFolio(cancelled.folio), await historyFolio(quick.folio)];
  expect(events.filter((e) => e.endsWith(` ${p}`))).toEqual([`orden.pagada ${p}`, `orden.cerrada ${p}`]);
  expect(events.filter((e) => e.endsWith(` ${c}`))).toEqual([`orden.cancelada ${c}`, `orden.cerrada ${c}`]);
  expect(events.filter((e) => e.endsWith(` ${q}`))).toEqual([`orden.abierta ${q}`, `orden.pagada ${q}`, `orden.cerrada ${q}`]);
  expect(events.at(-1)).toBe('turno.cerrado');
  // Reported once: the next poll finds nothing more.
  expect(await pollEvents()).toEqual([]);
});
