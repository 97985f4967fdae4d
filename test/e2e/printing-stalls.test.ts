/**
 * A printer that hangs holds only the jobs that print: more print jobs to it than the agent runs
 * at once, each waiting out the printer's write timeout in turn, and the branch still opens
 * accounts at once. Before, print jobs took the same slots as every other job, and a burst of
 * them to a dead printer held all eight: sales, payments and closes waited behind the timeouts.
 * A job whose turn at the printer comes after it timed out is not sent: its client was answered
 * 504, and one that sends again without a key would get the ticket twice.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { timed } from '../support/printer-ports.js';
import { COFFEE_LINES, order, printingTools } from '../support/printing.js';
import { orderBody } from '../support/order-body.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';

const JOB_TIMEOUT_MS = 3_000;
let stack: TestStack;
const { registerAt, print, hungPrinter, cleanup } = printingTools(() => stack);

beforeAll(async () => {
  // Jobs time out before the hung printer's 5 s write timeout does.
  stack = await startTestStack({ gateway: { jobTimeoutMs: JOB_TIMEOUT_MS } });
});
afterAll(async () => {
  await cleanup();
  await stack?.stop();
});

it('opens an account at once while ten print jobs wait on a printer that hangs', async () => {
  const hung = await hungPrinter();
  const printerId = await registerAt(hung.port, { displayName: 'Colgada' });
  const prints = Array.from({ length: 10 }, () => print('orden', order([{ printerId, productos: COFFEE_LINES }])));
  const runner = stack.agents.get(BRANCH)!.runner;
  // The first job is sending to the printer.
  await until(() => hung.received() > 0, 5_000);
  expect(runner.running).toBe(2);
  const { result: created, elapsedMs } = await timed(() =>
    stack.api('POST', `/temp_ordenes/${BRANCH}`, {
      body: orderBody({ serie: 'A', mesa: '', idMesero: '01', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
      headers: { 'idempotency-key': randomUUID() },
    }),
  );
  expect(created.status, created.text).toBe(201);
  expect(elapsedMs).toBeLessThan(2_000);
  const db = stack.pos.get(BRANCH)!.db;
  const row = await db.selectFrom('tempcheques').select(['folio', 'total']).where('folio', '=', created.body.folio).executeTakeFirst();
  expect(Number(row?.total)).toBe(89);
  // The printer goes away: the jobs still in line fail fast instead of each waiting out a timeout.
  await cleanup();
  const answers = await Promise.all(prints);
  expect(answers.every((a) => a.status === 502 || a.status === 504)).toBe(true);
});

it('does not send a job whose turn at the printer comes after it timed out; its key answers not_sent', async () => {
  const hung = await hungPrinter();
  const printerId = await registerAt(hung.port, { displayName: 'Colgada' });
  const [first, second] = [randomUUID(), randomUUID()];
  const body = order([{ printerId, productos: COFFEE_LINES }]);
  const answers = await Promise.all([print('orden', body, { idempotencyKey: first }), print('orden', body, { idempotencyKey: second })]);
  expect(answers.map((a) => a.status)).toEqual([504, 504]);
  // The first job waits out the printer's write timeout; the second's turn comes after its deadline.
  await until(() => stack.agents.get(BRANCH)!.runner.running === 0, 10_000);
  expect(hung.connections()).toBe(1);
  const replays = await Promise.all([print('orden', body, { idempotencyKey: first }), print('orden', body, { idempotencyKey: second })]);
  const errors = replays.map((r) => r.body.results?.[0]?.error);
  expect(errors.sort()).toEqual(['not_sent', 'timeout']);
  expect(hung.connections()).toBe(1);
});
