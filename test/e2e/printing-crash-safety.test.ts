/**
 * A print is recorded before it is sent. Its job's record (and the key's) commits first, saying
 * `interrupted`, and the bytes go out after the commit: an agent killed or a connection lost while
 * the printer prints can no longer take the record with it and leave a retry to print again. A
 * retry that comes while the first copy still prints waits for it and answers what the printer
 * said, rather than the `interrupted` the record holds meanwhile.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { orderBody } from '../support/order-body.js';
import { COFFEE_LINES, order, printingTools } from '../support/printing.js';
import { BRANCH, startTestStack, type TestStack } from '../support/stack.js';
import { until } from '../support/until.js';

let stack: TestStack;
const { registerAt, print, printJob, hungPrinter, cleanup } = printingTools(() => stack);

beforeAll(async () => {
  stack = await startTestStack({ links: true });
});
afterEach(cleanup);
afterAll(async () => {
  await stack?.stop();
});

async function agentRecord(key: string): Promise<{ results?: Array<{ error?: string }>; ticket?: { results: Array<{ error?: string }> } } | undefined> {
  const db = stack.pos.get(BRANCH)!.db;
  const row = await db.selectFrom('ba_idempotency').select('result').where('idem_key', '=', key).executeTakeFirst();
  return row && JSON.parse(row.result);
}

it('commits the print job and its key, saying interrupted, before the first byte reaches the printer', async () => {
  const hung = await hungPrinter();
  const printerId = await registerAt(hung.port);
  const key = randomUUID();
  const answer = print('orden', order([{ printerId, productos: COFFEE_LINES }]), { idempotencyKey: key });
  await until(() => hung.received() > 0, 5_000);
  // Read from another connection while the printer holds the job: what a retry would find had the agent died now.
  const recorded = await agentRecord(key);
  expect(recorded?.results).toMatchObject([{ printerId, status: 'failed', error: 'interrupted' }]);
  const res = await answer;
  expect(res.status, res.text).toBe(502);
  expect(res.body.results).toMatchObject([{ printerId, error: 'timeout' }]);
  // What the printer said is recorded just after the answer.
  await stack.agents.get(BRANCH)!.runner.drained();
  expect((await agentRecord(key))?.results).toMatchObject([{ error: 'timeout' }]);
  expect(JSON.parse((await printJob(res.body.orderRef)).results)).toMatchObject([{ error: 'timeout' }]);
});

it('answers a retry that comes while the ticket still prints with what the printer said, printing nothing more', async () => {
  const hung = await hungPrinter();
  const printerId = await registerAt(hung.port);
  const opened = await stack.api('POST', `/temp_ordenes/${BRANCH}`, {
    body: orderBody({ serie: 'A', mesa: '', idMesero: '01', productos: [{ movimiento: 1, idProducto: '3001', cantidad: 1 }] }),
    headers: { 'idempotency-key': randomUUID() },
  });
  expect(opened.status, opened.text).toBe(201);
  const key = randomUUID();
  const imprimir = () =>
    stack.api('POST', `/temp_ordenes/${BRANCH}/${opened.body.folio}/imprimir`, { body: { printerId }, headers: { 'idempotency-key': key } });
  const first = imprimir();
  await until(() => hung.received() > 0, 5_000);
  // The client loses its answer while the printer holds the ticket; the agent goes on with it.
  stack.links.get(BRANCH)!.sever();
  expect((await first).body.code).toBe('agent_offline');
  let retry = await imprimir();
  while (retry.status === 503) {
    await sleep(50);
    retry = await imprimir();
  }
  expect(retry.status, retry.text).toBe(502);
  expect(retry.body.results).toMatchObject([{ printerId, error: 'timeout' }]);
  const replay = await imprimir();
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.results).toMatchObject([{ printerId, error: 'timeout' }]);
  expect(hung.connections()).toBe(1);
});
