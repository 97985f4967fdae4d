/**
 * Accounts at the size limits of the API (500 lines in one request): everything lands, and no
 * statement goes past SQL Server's 2,100 parameters, which a single multi-row INSERT of that many
 * ~40-column lines would.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/agent/runner.js';
import { TsqlRecorder } from '../../src/pos/sql-dialect.js';
import { operations } from '../../src/agent/operations.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { orderBody } from '../support/order-body.js';

const SQL_SERVER_PARAMETERS = 2_100;
const LINES = 500;

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

/** Runs an operation on the branch's agent runtime, recording the T-SQL of every statement. */
async function recorded(op: string, params: Record<string, unknown>): Promise<{ data: unknown; statements: string[] }> {
  const pos = stack.agents.get(BRANCH)!.pos;
  const recorder = new TsqlRecorder();
  const runner = new JobRunner({
    pos: { ...pos, db: pos.db.withPlugin(recorder) },
    operations,
    log: pino({ level: 'silent' }),
    concurrency: 1,
    idempotencyRetentionMs: 3_600_000,
  });
  const result = await runner.run({
    type: 'job',
    jobId: randomUUID(),
    op,
    params,
    budgetMs: 60_000,
    idempotency: { scope: 'test', key: randomUUID(), fingerprint: 'f' },
  });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return { data: result.ok ? result.data : undefined, statements: recorder.statements };
}

const parameters = (statement: string) => Math.max(0, ...[...statement.matchAll(/@(\d+)/g)].map((m) => Number(m[1])));

describe(`an account of ${LINES} lines`, () => {
  it('is added in one request, split into statements SQL Server accepts, and cancelled the same way', async () => {
    const created = await stack.api('POST', `/temp_ordenes/${BRANCH}`, {
      body: orderBody({ serie: 'A' }),
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(created.status).toBe(201);
    const folio = created.body.folio as number;
    const productos = Array.from({ length: LINES }, (_, i) => ({ movimiento: i + 1, idProducto: '1005', cantidad: 1 }));

    const added = await recorded('orders.addLines', { folio, productos });
    expect(added.data).toMatchObject({ movimientos: Array.from({ length: LINES }, (_, i) => i + 1), totales: { total: 14_950 } });
    const inserts = added.statements.filter((s) => s.startsWith('insert into "tempcheqdet"'));
    expect(inserts.length).toBeGreaterThan(1);
    expect(Math.max(...added.statements.map(parameters))).toBeLessThanOrEqual(SQL_SERVER_PARAMETERS);

    const db = stack.pos.get(BRANCH)!.db;
    const count = async (table: 'tempcheqdet' | 'productosenproduccion') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where(table === 'tempcheqdet' ? 'foliodet' : 'folio', '=', folio)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count('tempcheqdet')).toBe(LINES);
    expect(await count('productosenproduccion')).toBe(LINES);

    const cancelled = await recorded('orders.cancelLines', {
      folio,
      productos: productos.map((p) => ({ movimiento: p.movimiento, idProducto: p.idProducto })),
      razon: 'Prueba',
    });
    expect(cancelled.data).toMatchObject({ totales: { total: 0 } });
    expect(Math.max(...cancelled.statements.map(parameters))).toBeLessThanOrEqual(SQL_SERVER_PARAMETERS);
    expect(
      Number(
        (
          await db
            .selectFrom('tempcancela')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('foliocheque', '=', folio)
            .executeTakeFirstOrThrow()
        ).n,
      ),
    ).toBe(LINES);
    expect(await count('tempcheqdet')).toBe(0);
  });
});
