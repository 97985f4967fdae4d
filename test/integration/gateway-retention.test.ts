import { randomBytes } from 'node:crypto';
/**
 * A running gateway purges its store on a schedule: idempotency records past their expiry, job
 * log entries and ended agent connections older than the job log's retention, events older than
 * theirs, keeping everything younger (and a connection still open, however old).
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

it('deletes expired idempotency records, job log entries, ended connections and events past their retention', async () => {
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

  const connection = (worker: string, connectedDays: number, endedDays: number | null) => ({
    license_key: 'TEST000000000001',
    worker_id: worker,
    connected_at: new Date(now - connectedDays * DAY),
    disconnected_at: endedDays === null ? null : new Date(now - endedDays * DAY),
  });
  const event = (id: string, ageDays: number) => ({
    event_id: id,
    license_key: null,
    type: 'webhook.prueba',
    payload: '{}',
    created_at: new Date(now - ageDays * DAY),
  });

  gateway = await buildGateway({
    store,
    log: pino({ level: 'silent' }),
    jobLogRetentionDays: 30,
    eventRetentionDays: 7,
    purgeIntervalMs: 100,
    webhookKey: randomBytes(32),
  });
  // Whichever turn of the schedule comes first (one runs at start) takes them.
  await store.db
    .insertInto('gw_idempotency')
    .values([record('expired', -1000), record('current', DAY)])
    .execute();
  await store.insertJobLog([job('old', 31), job('recent', 29)]);
  await store.upsertBranch(user, 'TEST000000000001', 'agt_retention', 'Retention');
  await store.db
    .insertInto('gw_agent_connections')
    .values([connection('ended-long-ago', 40, 31), connection('ended-lately', 40, 29), connection('still-open', 40, null)])
    .execute();
  await store.db
    .insertInto('gw_events')
    .values([event('evt_old', 8), event('evt_recent', 6)])
    .execute();

  await until(async () => (await store.db.selectFrom('gw_idempotency').select('idem_key').where('user_id', '=', user).execute()).length === 1, 5_000);
  await until(async () => (await store.db.selectFrom('gw_job_log').select('job_id').execute()).length === 1, 5_000);
  expect(await store.db.selectFrom('gw_idempotency').select('idem_key').where('user_id', '=', user).execute()).toEqual([{ idem_key: 'current' }]);
  expect(await store.db.selectFrom('gw_job_log').select('job_id').execute()).toEqual([{ job_id: 'recent' }]);
  await until(async () => (await store.db.selectFrom('gw_events').select('event_id').execute()).length === 1, 5_000);
  expect(await store.db.selectFrom('gw_events').select('event_id').execute()).toEqual([{ event_id: 'evt_recent' }]);
  const connections = await store.db.selectFrom('gw_agent_connections').select('worker_id').orderBy('worker_id').execute();
  expect(connections).toEqual([{ worker_id: 'ended-lately' }, { worker_id: 'still-open' }]);
});
