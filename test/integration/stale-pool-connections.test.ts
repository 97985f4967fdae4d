/**
 * A connection the database closed while it sat in the agent's pool (a restart, a failover, a
 * proxy or firewall cutting idle sessions) fails on its first statement, before the pool has
 * heard it is gone. The job runs once more on another connection instead of answering 503
 * pos_unavailable for a database that is up; a write's key record decides whether a commit the
 * lost connection could not confirm happened.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { JobRunner } from '../../src/agent/runner.js';
import type { PosRuntime } from '../../src/pos/runtime.js';
import { testRunner } from '../support/job-runner.js';
import { posThroughProxy, type LinkProxy } from '../support/link-proxy.js';
import { orderBody } from '../support/order-body.js';

let proxy: LinkProxy;
let pos: PosRuntime;
let runner: JobRunner;
let jobs = 0;

beforeAll(async () => {
  ({ pos, proxy } = await posThroughProxy());
  runner = testRunner(pos);
});
afterAll(async () => {
  await pos?.close();
  await proxy?.close();
});

const read = () => runner.run({ type: 'job', jobId: `read-${++jobs}`, op: 'stations.list', params: {}, budgetMs: 10_000 });
const create = (key: string) =>
  runner.run({
    type: 'job',
    jobId: `write-${++jobs}`,
    op: 'orders.create',
    params: orderBody(),
    budgetMs: 10_000,
    idempotency: { scope: 'stale', key, fingerprint: 'f' },
  });

/** Fills the pool with idle connections, then cuts them all; the pool hears of it only on the next I/O turn. */
async function cutIdleConnections(): Promise<void> {
  const warm = await Promise.all([read(), read(), read()]);
  expect(warm.every((r) => r.ok)).toBe(true);
  proxy.sever();
}

it('answers a read on a connection the server closed while it was idle', async () => {
  await cutIdleConnections();
  const result = await read();
  expect(result.ok, JSON.stringify(result)).toBe(true);
});

it('runs a write on a connection the server closed while it was idle, once', async () => {
  await cutIdleConnections();
  const key = randomUUID();
  const result = await create(key);
  expect(result.ok, JSON.stringify(result)).toBe(true);
  const folio = (result as { data: { folio: number } }).data.folio;
  const rows = await pos.db.selectFrom('tempcheques').select('folio').where('folio', '=', folio).execute();
  expect(rows).toHaveLength(1);
  const again = await create(key);
  expect(again).toMatchObject({ ok: true, data: { folio } });
});
