/**
 * A write's COMMIT reaches the database, which commits, and the connection is lost before its
 * confirmation comes back. The key's record, read on another connection, shows the commit
 * happened, and the write goes on as committed: a print is sent to its printer once, rather than
 * answered `interrupted` from the record and never sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobRunner } from '../../src/agent/runner.js';
import type { PosRuntime } from '../../src/pos/runtime.js';
import { startVirtualPrinter } from '../../src/printing/virtual-printer.js';
import { LABEL_DEFAULTS } from '../../src/protocol/printers.js';
import { DEMO_PRINTER_RULE } from '../../src/demo/printers.js';
import { testRunner } from '../support/job-runner.js';
import { posThroughProxy, type LinkProxy } from '../support/link-proxy.js';
import { orderBody } from '../support/order-body.js';

let proxy: LinkProxy;
let pos: PosRuntime;
let runner: JobRunner;
/** PostgreSQL's simple-query message for `commit`, as the driver sends it. */
const COMMIT = Buffer.from('commit\u0000');

beforeAll(async () => {
  ({ pos, proxy } = await posThroughProxy());
  runner = testRunner(pos, DEMO_PRINTER_RULE);
});
afterAll(async () => {
  await pos?.close();
  await proxy?.close();
});

const PRINTER_ID = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';

it('sends a print whose commit was not confirmed, once, and answers what the printer said', async () => {
  const printer = await startVirtualPrinter({ host: '127.0.0.1' });
  try {
    const job = (jobId: string) =>
      runner.run({
        type: 'job',
        jobId,
        op: 'print.test',
        params: {
          printerId: PRINTER_ID,
          printers: {
            [PRINTER_ID]: { printerIp: printer.host, printerPort: printer.port, displayName: 'Caja', kind: 'thermal', widthMm: 80, ...LABEL_DEFAULTS },
          },
        },
        budgetMs: 10_000,
        idempotency: { scope: 'ack', key: 'print-ack-lost', fingerprint: 'f' },
      });
    proxy.cutAfter(COMMIT);
    const result = await job(randomUUID());
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, data: { results: [{ printerId: PRINTER_ID, status: 'printed' }] } });
    await runner.drained();
    const again = await job(randomUUID());
    expect(again).toMatchObject({ ok: true, data: { results: [{ printerId: PRINTER_ID, status: 'printed' }] } });
    await printer.idle();
    expect(printer.jobs).toHaveLength(1);
  } finally {
    await printer.close();
  }
});

it('answers a write whose commit was not confirmed with what it committed, once', async () => {
  const create = () =>
    runner.run({
      type: 'job',
      jobId: randomUUID(),
      op: 'orders.create',
      params: orderBody(),
      budgetMs: 10_000,
      idempotency: { scope: 'ack', key: 'create-ack-lost', fingerprint: 'f' },
    });
  proxy.cutAfter(COMMIT);
  const result = await create();
  expect(result.ok, JSON.stringify(result)).toBe(true);
  const folio = (result as { data: { folio: number } }).data.folio;
  expect(await pos.db.selectFrom('tempcheques').select('folio').where('folio', '>=', folio).execute()).toHaveLength(1);
  expect(await create()).toMatchObject({ ok: true, data: { folio } });
});

it('runs a close’s housekeeping after a commit that was not confirmed: an emptied tempcheques numbers from 1 again', async () => {
  // Everything open is cancelled at a terminal, so the close leaves tempcheques empty.
  await pos.db.updateTable('tempcheques').set({ cancelado: true, idturno: 2 }).where('pagado', '=', false).execute();
  await pos.db.updateTable('tempcheques').set({ idturno: 2 }).where('idturno', '=', 0).execute();
  proxy.cutAfter(COMMIT);
  const closed = await runner.run({
    type: 'job',
    jobId: randomUUID(),
    op: 'shifts.close',
    params: { idTurno: 2, estacion: 'CAJA1', idEmpresa: '0000000001' },
    budgetMs: 10_000,
    idempotency: { scope: 'ack', key: 'close-ack-lost', fingerprint: 'f' },
  });
  expect(closed.ok, JSON.stringify(closed)).toBe(true);
  expect(await pos.db.selectFrom('tempcheques').select('folio').execute()).toEqual([]);
  const next = await runner.run({ type: 'job', jobId: randomUUID(), op: 'orders.create', params: orderBody(), budgetMs: 10_000 });
  expect(next).toMatchObject({ ok: true, data: { folio: 1 } });
});
