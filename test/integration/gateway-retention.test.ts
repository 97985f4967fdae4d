import { randomBytes } from 'node:crypto';
/**
 * A running gateway purges its store on a schedule: idempotency records past their expiry and
 * job log entries older than the retention, keeping everything younger.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildGateway, type Gateway } from '../../src/gateway/app.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';
import { until } from '../support/until.js';

const DAY = 86_400_000;
let store: GatewayStore;
let gateway: Gateway | undefined;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
});
afterAll(async () => {
  await gateway?.app.close();
  await store?.close();
});

it('deletes expired idempotency records and job log entries past the retention, every interval', async () => {
  const user = await store.ensureUser('retention');
  const now = Date.now();
  const record = (key: string, expiresIn: number) => ({
    user_id: user,
    idem_key: key,
    fingerprint: 'e'.repeat(64),
    state: 'done' as const,
    status_code: 200,
    body: '{}',
    job_id: key,
    created_at: new Date(now - DAY),
    expires_at: new Date(now + expiresIn),
  });
  const job = (id: string, ageDays: number) => ({
    job_id: id,
    license_key: 'TEST000000000001',
    op: 'products.list',
    worker_id: 'w',
    outcome: 'ok',
    error_code: null,
    started_at: new Date(now - ageDays * DAY),
    duration_ms: 1,
  });

  gateway = await buildGateway({ store, log: pino({ level: 'silent' }), jobLogRetentionDays: 30, purgeIntervalMs: 100, webhookKey: randomBytes(32) });
  // Whichever turn of the schedule comes first (one runs at start) takes them.
  await store.db
    .insertInto('gw_idempotency')
    .values([record('expired', -1000), record('current', DAY)])
    .execute();
  await store.insertJobLog([job('old', 31), job('recent', 29)]);

  await until(async () => (await store.db.selectFrom('gw_idempotency').select('idem_key').where('user_id', '=', user).execute()).length === 1, 5_000);
  await until(async () => (await store.db.selectFrom('gw_job_log').select('job_id').execute()).length === 1, 5_000);
  expect(await store.db.selectFrom('gw_idempotency').select('idem_key').where('user_id', '=', user).execute()).toEqual([{ idem_key: 'current' }]);
  expect(await store.db.selectFrom('gw_job_log').select('job_id').execute()).toEqual([{ job_id: 'recent' }]);
});
