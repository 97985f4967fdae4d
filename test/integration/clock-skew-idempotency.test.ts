/**
 * Idempotency claims and the retention purges made by gateway instances whose clocks disagree,
 * on one real store: a claim's age and a record's expiry are the store's, so an instance 60 s
 * ahead does not take over a claim still running on another (dispatching its job twice), a claim
 * made by one goes stale on time when it dies, and an instance days ahead purges nothing early.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { schedulePurges } from '../../src/gateway/purges.js';
import { GatewayStore } from '../../src/gateway/store.js';
import { onSkewedClock, twoInstancesOnOneStore } from '../support/skewed-clock.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const AHEAD = 60_000;
/** Twice the default job timeout, as the gateway judges a claim stale. */
const STALE = 60_000;
const print = 'a'.repeat(64);
/** Two instances' connections to one store. */
let one: GatewayStore;
let other: GatewayStore;
let user: number;

beforeAll(async () => {
  ({ one, other, user } = await twoInstancesOnOneStore('skewed claims'));
});
afterAll(async () => {
  await Promise.all([one?.close(), other?.close()]);
});

it('a claim running on one instance is not taken over by another whose clock is 60 s ahead', async () => {
  expect((await one.claimIdempotencyKey(user, 'running', print, DAY, STALE)).claimed).toBe(true);
  const again = await onSkewedClock(AHEAD, () => other.claimIdempotencyKey(user, 'running', print, DAY, STALE));
  expect(again).toMatchObject({ claimed: false, record: { state: 'running' } });
});

it("a claim made by an instance whose clock is 60 s ahead goes stale when its age passes on the store's clock", async () => {
  expect((await onSkewedClock(AHEAD, () => one.claimIdempotencyKey(user, 'orphaned', print, DAY, 200))).claimed).toBe(true);
  expect((await other.claimIdempotencyKey(user, 'orphaned', print, DAY, 200)).claimed).toBe(false);
  await sleep(300);
  expect((await other.claimIdempotencyKey(user, 'orphaned', print, DAY, 200)).claimed).toBe(true);
});

it("a record kept by an instance whose clock is 60 s ahead expires when its retention passes on the store's clock", async () => {
  await onSkewedClock(AHEAD, async () => {
    expect((await one.claimIdempotencyKey(user, 'kept', print, 200, STALE)).claimed).toBe(true);
    await one.completeIdempotencyKey(user, 'kept', 201, { jobId: 'j-kept' }, 'j-kept');
  });
  await sleep(300);
  expect((await other.claimIdempotencyKey(user, 'kept', print, DAY, STALE)).claimed).toBe(true);
});

it('an instance whose clock is two days ahead purges nothing written within the retention by one two days behind', async () => {
  await onSkewedClock(-2 * DAY, async () => {
    expect((await one.claimIdempotencyKey(user, 'recent', print, HOUR, STALE)).claimed).toBe(true);
    await one.insertJobLog([
      {
        job_id: 'recent-job',
        license_key: 'SKEW000000000001',
        op: 'products.list',
        worker_id: 'w',
        outcome: 'ok',
        error_code: null,
        started_at: new Date(),
        duration_ms: 1,
      },
    ]);
  });
  await one.db.insertInto('gw_events').values({ event_id: 'evt-recent', license_key: null, type: 'webhook.prueba', payload: '{}' }).execute();
  await onSkewedClock(2 * DAY, async () => {
    const purges = schedulePurges(other, pino({ level: 'silent' }), { jobLogRetentionMs: DAY, eventRetentionMs: DAY, everyMs: HOUR });
    await purges.stop();
  });
  expect.soft(await one.db.selectFrom('gw_idempotency').select('idem_key').where('idem_key', '=', 'recent').execute()).toHaveLength(1);
  expect.soft(await one.db.selectFrom('gw_job_log').select('job_id').execute()).toEqual([{ job_id: 'recent-job' }]);
  expect.soft(await one.db.selectFrom('gw_events').select('event_id').execute()).toEqual([{ event_id: 'evt-recent' }]);
});
