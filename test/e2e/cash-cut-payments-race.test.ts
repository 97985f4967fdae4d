/**
 * A cash cut of an open shift read while a sale is paid into it agrees with itself: its sums take
 * several statements, and one that met the payment's commit between two of them gave 38.50 by
 * tender and 77.00 by payment method (a probe). The shift's accounts and payments are counted
 * before and after the cut, which is read again when they moved. The cut here runs through a job
 * runner whose statements a plugin can stop after the first that reads the shift's payments,
 * while the sale commits.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { orderBody } from '../support/order-body.js';
import { testRunner } from '../support/job-runner.js';
import { pauseAfterFirstRead } from '../support/statement-pause.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => {
  await stack?.stop();
});

const sale = async () => {
  const res = await stack.api('POST', `/ordenes/${BRANCH}`, {
    body: orderBody({ estacion: 'CAJA1', serie: 'A', idFormaDePago: 'EFE', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
    headers: { 'idempotency-key': randomUUID() },
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { folio: number; idTurno: number };
};

/** The open shift's cut, stopped after its first read of the payments by tender (the first to join formasdepago) while `meanwhile` runs, and a quiet read after. */
async function cutAround(meanwhile: () => Promise<void>): Promise<{ raced: unknown; quiet: unknown }> {
  const db = stack.pos.get(BRANCH)!.db;
  const idTurno = Number(
    (await db.selectFrom('turnos').select('idturno').where('idestacion', '=', 'CAJA1').where('cierre', 'is', null).executeTakeFirstOrThrow()).idturno,
  );
  const pos = stack.agents.get(BRANCH)!.pos;
  const pause = pauseAfterFirstRead('formasdepago');
  const runner = testRunner({ ...pos, db: pos.db.withPlugin(pause) });
  const reading = runner.run({ type: 'job', jobId: randomUUID(), op: 'shifts.cashCut', params: { idTurno }, budgetMs: 20_000 });
  await until(() => pause.reached);
  await meanwhile();
  pause.release();
  const raced = await reading;
  expect(raced.ok, JSON.stringify(raced)).toBe(true);
  const { jobId: _jobId, ...quiet } = (await stack.api('GET', `/turnos/${BRANCH}/${idTurno}/corte`)).body;
  return { raced: (raced as { data: unknown }).data, quiet };
}

it('agrees with itself and with a quiet read when a sale is paid into the shift while it is read', async () => {
  const { raced, quiet } = await cutAround(async () => {
    await sale();
  });
  expect(raced).toEqual(quiet);
});

it('agrees with a quiet read when a terminal cancels a paid account of the shift while it is read', async () => {
  const paid = await sale();
  const db = stack.pos.get(BRANCH)!.db;
  const { raced, quiet } = await cutAround(async () => {
    await db.updateTable('tempcheques').set({ cancelado: true }).where('folio', '=', paid.folio).execute();
  });
  expect(raced).toEqual(quiet);
});
