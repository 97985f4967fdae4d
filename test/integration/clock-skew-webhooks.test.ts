/**
 * Webhook deliveries leased by gateway instances whose clocks disagree, on one real store: a
 * lease, a retry's time and an event's age are judged by the store's clock, so an instance 60 s
 * ahead neither sends a delivery another holds, nor keeps one from the others after it died.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { GatewayStore } from '../../src/gateway/store.js';
import { WebhookDelivery } from '../../src/gateway/webhook-delivery.js';
import { newWebhookSecret, sealSecret } from '../../src/gateway/webhook-secrets.js';
import { onSkewedClock, twoInstancesOnOneStore } from '../support/skewed-clock.js';
import { until } from '../support/until.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const BRANCH = 'SKEW000000000001';
const AHEAD = 60_000;
const key = Buffer.alloc(32, 9);
/** Two instances' connections to one store. */
let one: GatewayStore;
let other: GatewayStore;
let receiver: WebhookReceiver;
let user: number;
let n = 0;

beforeAll(async () => {
  ({ one, other, user } = await twoInstancesOnOneStore('skewed webhooks'));
  receiver = await WebhookReceiver.start();
  await one.upsertBranch(user, BRANCH, `agt_${randomUUID()}`, 'Centro');
  await one.webhooks.create(user, { url: receiver.url, eventos: ['orden.abierta'], licenseKeys: null, secretSealed: sealSecret(key, newWebhookSecret()) });
});
afterAll(async () => {
  await receiver?.close();
  await Promise.all([one?.close(), other?.close()]);
});
beforeEach(async () => {
  // Each test starts from one new pending delivery.
  await one.db.updateTable('gw_deliveries').set({ state: 'delivered', lease_until: null }).execute();
  n++;
  await one.events.append(BRANCH, [
    { id: `skew-${n}`, type: 'orden.abierta', licenseKey: BRANCH, timestamp: new Date().toISOString(), origin: 'pos', jobId: null, data: { folio: n } },
  ]);
});

it('a delivery leased by one instance is not leased by another whose clock is 60 s ahead', async () => {
  expect(await one.events.leaseDue(8, 30_000)).toHaveLength(1);
  expect(await onSkewedClock(AHEAD, () => other.events.leaseDue(8, 30_000))).toEqual([]);
});

it("a lease taken by an instance whose clock is 60 s ahead ends when its length has passed on the store's clock", async () => {
  expect(await onSkewedClock(AHEAD, () => one.events.leaseDue(8, 200))).toHaveLength(1);
  expect(await other.events.leaseDue(8, 30_000)).toEqual([]);
  await sleep(300);
  expect(await other.events.leaseDue(8, 30_000)).toHaveLength(1);
});

it('a retry scheduled by an instance whose clock is 60 s ahead is due to the others when its delay has passed', async () => {
  const [leased] = await onSkewedClock(AHEAD, async () => {
    const found = await one.events.leaseDue(8, 30_000);
    const attempt = { at: new Date(), status: 500, error: 'HTTP 500', durationMs: 1 };
    await one.events.recordAttempt(found[0]!.id, attempt, { delivered: false, retryAt: new Date(Date.now() + 200) });
    return found;
  });
  expect(leased).toBeDefined();
  await sleep(300);
  expect((await other.events.leaseDue(8, 30_000)).map((d) => d.id)).toEqual([leased!.id]);
});

it("an instance whose clock is a day ahead retries a new event's failed delivery rather than giving it up", async () => {
  const delivery = new WebhookDelivery({
    store: one,
    log: pino({ level: 'silent' }),
    webhookKey: key,
    policy: { allowHttp: true, allowLoopback: true, allowPrivate: false },
    timeoutMs: 2_000,
    pollMs: 20,
  });
  receiver.script = [500];
  const pending = () =>
    sql<{ attempts: number; state: string; due_in_s: number }>`
      select attempt_count as attempts, state, extract(epoch from next_attempt_at - now()) as due_in_s
      from gw_deliveries where state <> 'delivered'`.execute(one.db);
  await onSkewedClock(25 * 3_600_000, async () => {
    delivery.start();
    await until(async () => (await pending()).rows.some((r) => r.attempts > 0), 5_000);
    await delivery.stop();
  });
  const [row] = (await pending()).rows;
  expect(row?.state).toBe('pending');
  // The first retry's 5 s, by the store's clock.
  expect(Number(row?.due_in_s)).toBeGreaterThan(0);
  expect(Number(row?.due_in_s)).toBeLessThanOrEqual(5);
});
