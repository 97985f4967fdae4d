/**
 * The hub's fleet status writes, batched (hub/status-batcher.ts, FleetStatusStore.write): what
 * one flush writes is what writing each change in order would have written, a change the store
 * refuses loses only itself, and the late end of an agent's older connection leaves its newer
 * one online.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StatusChange } from '../../src/gateway/hub/agent-status.js';
import { StatusBatcher } from '../../src/gateway/hub/status-batcher.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { newGatewayDatabase } from '../support/databases.js';

let store: GatewayStore;
let user: number;

beforeAll(async () => {
  store = new GatewayStore(await newGatewayDatabase());
  await store.migrate();
  user = await store.ensureUser('batches');
});
afterAll(async () => {
  await store?.close();
});

const identity = (licenseKey: string, workerId: string) => ({
  licenseKey,
  workerId,
  agentVersion: '1.0.0',
  nodeVersion: null,
  os: null,
  posVersion: null,
  agentStartedAt: null,
});
/** Connection ids, one per hello. */
const ID = Array.from({ length: 8 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
const health = (jobsRunning: number, lastError: { message: string; at: string } | null = null) => ({
  health: { sentAt: new Date().toISOString(), posDatabase: 'ok' as const, jobsRunning, lastError },
  clockOffsetMs: 5,
});

/**
 * A row with its times to the second: a change's time is stored on the store's clock, as how long
 * before the write it came (store-time.ts), so it lands within the write's round trip of it.
 */
function bySecond<T extends object>(row: T): T {
  const round = (v: unknown) => (v instanceof Date ? new Date(Math.round(v.getTime() / 1000) * 1000) : v);
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, round(v)])) as T;
}
async function statusOf(licenseKey: string) {
  const row = await store.db.selectFrom('gw_agent_status').selectAll().where('license_key', '=', licenseKey).executeTakeFirst();
  return row && bySecond(row);
}
async function connectionsOf(licenseKey: string) {
  const rows = await store.db
    .selectFrom('gw_agent_connections')
    .select(['worker_id', 'disconnected_at'])
    .where('license_key', '=', licenseKey)
    .orderBy('id')
    .execute();
  return rows.map(bySecond);
}

it('writes a connect, beats, a disconnect and a reconnect of one branch in one flush as if one by one', async () => {
  await store.upsertBranch(user, 'BATCH00000000001', 'agt_batch_1', 'one');
  await store.upsertBranch(user, 'BATCH00000000002', 'agt_batch_2', 'two');
  const batcher = new StatusBatcher(store.fleet, pino({ level: 'silent' }));
  const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));
  const changes: StatusChange[] = [
    { kind: 'connected', agent: identity('BATCH00000000001', 'w1'), connectionId: ID[0]!, report: null, at: t(0) },
    { kind: 'connected', agent: identity('BATCH00000000002', 'w1'), connectionId: ID[1]!, report: health(0), at: t(0) },
    { kind: 'heartbeat', licenseKey: 'BATCH00000000001', workerId: 'w1', report: health(2, { message: 'boom', at: t(1).toISOString() }), at: t(1) },
    { kind: 'heartbeat', licenseKey: 'BATCH00000000001', workerId: 'w1', report: health(1), at: t(2) },
    { kind: 'disconnected', licenseKey: 'BATCH00000000001', workerId: 'w1', connectionId: ID[0]!, at: t(3) },
    { kind: 'connected', agent: identity('BATCH00000000001', 'w2'), connectionId: ID[2]!, report: null, at: t(4) },
    // A late beat of the connection that left changes nothing of the new one's row.
    { kind: 'heartbeat', licenseKey: 'BATCH00000000001', workerId: 'w1', report: health(7), at: t(5) },
    { kind: 'heartbeat', licenseKey: 'BATCH00000000002', workerId: 'w1', report: health(3), at: t(5) },
  ];
  for (const change of changes) batcher.record(change);
  await batcher.flush();

  const one = await statusOf('BATCH00000000001');
  expect(one).toMatchObject({ online: true, worker_id: 'w2', connected_since: t(4), last_seen: t(4), jobs_running: 0 });
  // The error a beat reported stays as the branch's last error through the beats without one.
  expect(one).toMatchObject({ last_error: 'boom', last_error_at: t(1) });
  expect(await connectionsOf('BATCH00000000001')).toEqual([
    { worker_id: 'w1', disconnected_at: t(3) },
    { worker_id: 'w2', disconnected_at: null },
  ]);
  expect(await statusOf('BATCH00000000002')).toMatchObject({ online: true, jobs_running: 3, last_seen: t(5), clock_offset_ms: '5' });
});

it('writes the rest of a run when one of its branches is gone', async () => {
  await store.upsertBranch(user, 'BATCH00000000003', 'agt_batch_3', 'three');
  const batcher = new StatusBatcher(store.fleet, pino({ level: 'silent' }));
  const at = new Date();
  batcher.record({ kind: 'connected', agent: identity('BATCH00000000003', 'w1'), connectionId: ID[3]!, report: null, at });
  batcher.record({ kind: 'connected', agent: identity('BATCHGONE0000000', 'w1'), connectionId: ID[4]!, report: null, at });
  await batcher.flush();
  expect(await statusOf('BATCH00000000003')).toMatchObject({ online: true, worker_id: 'w1' });
  expect(await statusOf('BATCHGONE0000000')).toBeUndefined();
  expect(await connectionsOf('BATCH00000000003')).toHaveLength(1);
});

it("keeps an agent online when its older connection's end is written after its newer connection", async () => {
  await store.upsertBranch(user, 'BATCH00000000004', 'agt_batch_4', 'four');
  const batcher = new StatusBatcher(store.fleet, pino({ level: 'silent' }));
  const t = (s: number) => new Date(Date.UTC(2026, 0, 2, 12, 0, s));
  // One agent (one worker id): its link to one instance died half-open, it said hello to
  // another, and the first instance wrote that the old connection ended only after that.
  batcher.record({ kind: 'connected', agent: identity('BATCH00000000004', 'w1'), connectionId: ID[5]!, report: null, at: t(0) });
  batcher.record({ kind: 'connected', agent: identity('BATCH00000000004', 'w1'), connectionId: ID[6]!, report: null, at: t(5) });
  batcher.record({ kind: 'disconnected', licenseKey: 'BATCH00000000004', workerId: 'w1', connectionId: ID[5]!, at: t(6) });
  await batcher.flush();
  expect(await statusOf('BATCH00000000004')).toMatchObject({ online: true, connected_since: t(5), last_seen: t(5) });
  expect(await connectionsOf('BATCH00000000004')).toEqual([
    { worker_id: 'w1', disconnected_at: t(5) },
    { worker_id: 'w1', disconnected_at: null },
  ]);
  // The newer connection's own end is written.
  batcher.record({ kind: 'disconnected', licenseKey: 'BATCH00000000004', workerId: 'w1', connectionId: ID[6]!, at: t(9) });
  await batcher.flush();
  expect(await statusOf('BATCH00000000004')).toMatchObject({ online: false, last_seen: t(9) });
  expect((await connectionsOf('BATCH00000000004')).at(-1)).toEqual({ worker_id: 'w1', disconnected_at: t(9) });
});

it('never moves last seen back before the connection began, whatever the times of the batches', async () => {
  await store.upsertBranch(user, 'BATCH00000000005', 'agt_batch_5', 'five');
  const batcher = new StatusBatcher(store.fleet, pino({ level: 'silent' }));
  const hello = new Date();
  batcher.record({ kind: 'connected', agent: identity('BATCH00000000005', 'w1'), connectionId: ID[7]!, report: null, at: hello });
  await batcher.flush();
  // A beat whose moment reaches the store's clock earlier than the hello's did (its batch was written sooner after it).
  batcher.record({ kind: 'heartbeat', licenseKey: 'BATCH00000000005', workerId: 'w1', report: health(0), at: new Date(hello.getTime() - 50) });
  await batcher.flush();
  const row = await store.db
    .selectFrom('gw_agent_status')
    .select(['connected_since', 'last_seen'])
    .where('license_key', '=', 'BATCH00000000005')
    .executeTakeFirstOrThrow();
  expect(row.last_seen.getTime()).toBeGreaterThanOrEqual(row.connected_since.getTime());
});
