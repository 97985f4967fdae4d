/**
 * The SQL Server form of every statement change detection runs, compared with a saved
 * expectation like the operations' (operations.test.ts): the first poll's baseline, a poll that
 * finds nothing, a poll that finds changes of every kind, the outbox's reads and deletes, and a
 * poll after a shift close.
 * `npm run tsql:update` regenerates it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { operations } from '../../src/agent/operations.js';
import { ChangeDetector } from '../../src/pos/events/detector.js';
import { forgetEvents, pendingEvents } from '../../src/pos/events/outbox.js';
import { openPos, type PosRuntime } from '../../src/pos/runtime.js';
import { TsqlRecorder } from '../../src/pos/sql-dialect.js';
import { newPosDatabase } from '../support/databases.js';
import { orderBody } from '../support/order-body.js';

const FILE = new URL('./expected/events/detection.sql', import.meta.url);
const log = pino({ level: 'silent' });
let pos: PosRuntime;

beforeAll(async () => {
  pos = await openPos(await newPosDatabase(), log);
});
afterAll(async () => {
  await pos?.close();
});

async function run(op: string, params: Record<string, unknown>): Promise<void> {
  const runner = new JobRunner({ pos, operations, log, concurrency: 1, idempotencyRetentionMs: 3_600_000 });
  const result = await runner.run({ type: 'job', jobId: `tsql-${op}`, op, params, budgetMs: 60_000 });
  expect(result.ok, JSON.stringify(result)).toBe(true);
}

it('change detection compiles to the saved T-SQL', async () => {
  const recorder = new TsqlRecorder();
  const db = pos.db.withPlugin(recorder);
  const detector = new ChangeDetector({ db, dialect: pos.dialect, schema: pos.schema, log }, 'TSQL000000000001');
  const blocks: string[] = [];
  const record = async (title: string, step: () => Promise<unknown>) => {
    recorder.statements.length = 0;
    await step();
    blocks.push(`-- ${title}\n${recorder.statements.map((s) => `${s};`).join('\n')}\n`);
  };

  await record('first poll: the baseline', () => detector.poll());
  await record('a poll that finds nothing', () => detector.poll());
  await run('orders.create', orderBody({ serie: 'A', noPersonas: 2, mesa: '', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }));
  await pos.db.updateTable('productosdetalle').set({ precio: '91.0000' }).where('idproducto', '=', '3002').execute();
  await run('shifts.open', { estacion: 'CAJA2', idEmpresa: '0000000001', cajero: 'CAJERO', fondo: 10 });
  const polled = await (async () => {
    let n = 0;
    await record('a poll that finds an account, a shift and a price', async () => (n = await detector.poll()));
    return n;
  })();
  expect(polled).toBeGreaterThanOrEqual(3);
  await record('the outbox: read, then forget what the gateway stored', async () => {
    const events = await pendingEvents(db, 200);
    await forgetEvents(
      db,
      events.map((e) => e.id),
    );
  });

  // A quick sale no poll sees, then the close of CAJA1's shift: the poll reads the history keys of the closed shift.
  await run('orders.createClosed', orderBody({ serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }));
  await run('shifts.close', { idTurno: 2, estacion: 'TERM1', idEmpresa: '0000000001', serie: 'A' });
  await record('a poll after a shift close', () => detector.poll());

  const actual = blocks.join('\n');
  if (process.env.UPDATE_TSQL === '1') writeFileSync(FILE, actual);
  expect(existsSync(FILE), 'no saved expectation: run npm run tsql:update').toBe(true);
  expect(actual).toBe(readFileSync(FILE, 'utf8'));
});
