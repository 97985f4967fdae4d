/**
 * What gateway instances whose clocks disagree write for each other on one real store, beside
 * leases and claims: an agent's last sight, its connections and the job log (read by another
 * instance's fleet view), a rollout step's time, and the cluster's rate-limit windows. Each is
 * on the store's clock, so a branch shows online and its jobs counted whichever instance's
 * clock wrote or reads them, and a key's requests through two instances share one window.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sharedRateLimitStore } from '../../src/gateway/cluster/shared-rate-limit.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { fleetListQuery } from '../../src/protocol/fleet.js';
import { onSkewedClock, twoInstancesOnOneStore } from '../support/skewed-clock.js';

const BRANCH = 'SKEW000000000002';
const MINUTES_2 = 120_000;
const HOURS_25 = 25 * 3_600_000;
/** Two instances' connections to one store. */
let one: GatewayStore;
let other: GatewayStore;
let user: number;

beforeAll(async () => {
  ({ one, other, user } = await twoInstancesOnOneStore('skewed fleet'));
  await one.upsertBranch(user, BRANCH, `agt_${randomUUID()}`, 'Centro');
});
afterAll(async () => {
  await Promise.all([one?.close(), other?.close()]);
});

const CONNECTION = '00000000-0000-4000-8000-000000000001';
const agent = { licenseKey: BRANCH, workerId: 'w1', agentVersion: '1.0.0', nodeVersion: null, os: null, posVersion: null, agentStartedAt: null };
const listed = async (store: GatewayStore) => (await store.fleet.list(user, fleetListQuery.parse({}))).data[0]!;

it("shows an agent online, and its jobs and disconnections of the last day, whichever instance's clock wrote or reads them", async () => {
  // The instance holding the agent runs 2 min behind, longer than the 90 s that mark it offline.
  await onSkewedClock(-MINUTES_2, () => one.fleet.write([{ kind: 'connected', agent, connectionId: CONNECTION, report: null, at: new Date() }]));
  expect((await listed(other)).online).toBe(true);
  expect((await onSkewedClock(MINUTES_2, () => other.fleet.detail(user, BRANCH)))?.online).toBe(true);

  // A job, and the agent leaving, recorded by an instance 25 h behind: within the last day still.
  await onSkewedClock(-HOURS_25, async () => {
    const started = new Date();
    await one.insertJobLog([
      { job_id: 'skewed-job', license_key: BRANCH, op: 'products.list', worker_id: 'w1', outcome: 'ok', error_code: null, started_at: started, duration_ms: 4 },
    ]);
    await one.fleet.write([{ kind: 'disconnected', licenseKey: BRANCH, workerId: 'w1', connectionId: CONNECTION, at: new Date() }]);
  });
  const detail = await other.fleet.detail(user, BRANCH);
  expect(detail?.online).toBe(false);
  expect.soft(detail?.last24h.jobs).toBe(1);
  expect.soft(detail?.last24h.disconnections).toBe(1);
});

it("stamps a rollout step with the store's time, not that of the instance recording it", async () => {
  const rollout = await one.rollouts.create(user, { version: '1.1.0', maxFallasPorcentaje: 20 }, [BRANCH]);
  await onSkewedClock(HOURS_25, () => one.rollouts.progress(rollout.id, [BRANCH], 'downloading', null));
  const [step] = (await other.rollouts.get(user, rollout.id))!.branches;
  const { rows } = await sql<{ now: Date }>`select now() as now`.execute(other.db);
  expect(Math.abs(Date.parse(step!.updatedAt) - rows[0]!.now.getTime())).toBeLessThan(10_000);
});

it('counts a key in one window through two instances whose clocks are a window apart', async () => {
  const windowMs = 10_000;
  const counter = (store: GatewayStore) => new (sharedRateLimitStore(store.rateLimits, windowMs))({});
  const hit = (store: GatewayStore, key: string) =>
    new Promise<{ current: number; ttl: number }>((resolve, reject) => counter(store).incr(key, (error, result) => (error ? reject(error) : resolve(result!))));
  for (;;) {
    const key = `key-${randomUUID()}`;
    const first = await hit(one, key);
    // Too near the window's end, the second hit could fall in the next window on any clock.
    if (first.ttl < 1_000) {
      await sleep(first.ttl + 50);
      continue;
    }
    expect(first.current).toBe(1);
    expect((await onSkewedClock(windowMs, () => hit(other, key))).current).toBe(2);
    return;
  }
});
